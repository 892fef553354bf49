"""Emailed invitations to a game's seats; the link works for people without an account yet."""

from __future__ import annotations

import math
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from games import side_effects
from games.models import Game, Invitation, Seat
from games.services.accounts import normal_address, speaks_for
from games.services.errors import (
    AddressNotVerified,
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    Throttled,
)
from games.services.lobby import take_free_seat
from games.services.play import lock_game

MAX_INVITES = 10
# The daily cap on invitations (settings.INVITATIONS_PER_DAY) counts over this rolling window.
INVITATION_WINDOW = timedelta(hours=24)


def parse_emails(text: str) -> list[str]:
    """Addresses from a comma-, semicolon- or whitespace-separated list, each once, in order."""
    found: list[str] = []
    for part in text.replace(";", ",").replace("\n", ",").split(","):
        for address in part.split():
            address = address.strip().lower()
            if address and address not in found:
                found.append(address)
    return found


def invitation_create(*, game_id: int, by: User, emails: list[str] | str) -> list[Invitation]:
    """Invite ``emails`` to a game in the lobby: one Invitation each, one email each.

    Each address is invited to a game once: a request naming an address already invited is
    refused whole. One account sends at most ``INVITATIONS_PER_DAY`` invitations in any 24
    hours (``Throttled`` says how long until more may go). Locks the game row, then the
    inviter's user row, so concurrent requests cannot slip past either rule.
    """
    addresses = parse_emails(emails) if isinstance(emails, str) else parse_emails(",".join(emails))
    if not addresses:
        raise InvalidInput("Give at least one email address.")
    if len(addresses) > MAX_INVITES:
        raise InvalidInput(f"Invite at most {MAX_INVITES} people at once.")
    for address in addresses:
        try:
            validate_email(address)
        except ValidationError:
            raise InvalidInput(f"“{address}” is not an email address.") from None
    per_day: int = settings.INVITATIONS_PER_DAY
    if len(addresses) > per_day:
        raise InvalidInput(f"You can send at most {per_day} invitations a day.")
    invitations: list[Invitation] = []
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise NotFound(f"No game with id {game_id}.")
        if not Seat.objects.filter(game=game, user=by).exists():
            if not game.is_public:  # a private game does not exist for those outside it
                raise NotFound(f"No game with id {game_id}.")
            raise Forbidden("Only the game's players can invite people.")
        if game.status != Game.Status.LOBBY:
            raise Conflict("The game has already started: nobody can join any more.")
        invited = Invitation.objects.filter(game=game, email__in=addresses).values_list("email", flat=True)
        already = sorted(set(invited))
        if already:
            raise Conflict(
                f"Already invited to this game: {', '.join(already)}. Each address gets one invitation "
                "per game; nothing was sent."
            )
        list(User.objects.select_for_update().filter(pk=by.pk).values_list("pk", flat=True))
        now = timezone.now()
        sent_today = list(
            Invitation.objects.filter(invited_by=by, created_at__gt=now - INVITATION_WINDOW)
            .order_by("created_at")
            .values_list("created_at", flat=True)
        )
        over = len(sent_today) + len(addresses) - per_day
        if over > 0:
            # Enough of today's invitations must age out of the window before these fit.
            wait = (sent_today[over - 1] + INVITATION_WINDOW - now).total_seconds()
            left = max(0, per_day - len(sent_today))
            raise Throttled(
                f"You can send {per_day} invitations a day and have {left} left for now.",
                wait=max(1, math.ceil(wait)),
            )
        for address in addresses:
            invitations.append(
                Invitation.objects.create(
                    game=game, email=address, token=secrets.token_urlsafe(24), invited_by=by
                )
            )
        # The emails go through the outbox, written with the invitations: the request never
        # waits for a mail server, and one that is down delays the email, not the invitation.
        side_effects.after_invitations(invitations)
    return invitations


def invitation_for(token: str) -> Invitation:
    invitation = Invitation.objects.select_related("game", "invited_by").filter(token=token).first()
    if invitation is None:
        raise NotFound("This invitation link is not valid.")
    return invitation


def unverified_problem(invitation: Invitation, user: User) -> AddressNotVerified | None:
    """Why ``user`` may not take ``invitation``'s seat (as an error to raise), or None when the
    account has verified the invited address. An invitation is for its address's owner: an
    account that merely names the address (anyone can sign up with any address) is not."""
    if speaks_for(user, invitation.email):
        return None
    if normal_address(user.email) == normal_address(invitation.email):
        detail = (
            f"This invitation went to {invitation.email}, which your account has not verified yet. "
            "Follow the link we emailed to that address (or send it again), then take your seat."
        )
    else:
        detail = (
            f"This invitation went to {invitation.email}, which is not your account's verified "
            "address. Log in with the account that uses it, or change your address to it on your "
            "profile and verify it."
        )
    return AddressNotVerified(detail, address=invitation.email)


def invitation_accept(*, token: str, user: User) -> Seat:
    """Take a seat through an invitation, for an account that verified the invited address.
    Following one's own accepted link again is harmless."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().filter(token=token).first()
        if invitation is None:
            raise NotFound("This invitation link is not valid.")
        if invitation.accepted_by_id is not None and invitation.accepted_by_id != user.pk:
            raise Conflict("This invitation has already been used by someone else.")
        if invitation.accepted_by_id is None and (problem := unverified_problem(invitation, user)):
            raise problem
        existing = Seat.objects.filter(game_id=invitation.game_id, user=user).first()
        # The invitation is what lets its holder into a private game: no visibility check here.
        seat = existing if existing is not None else take_free_seat(lock_game(invitation.game_id), user)
        if invitation.accepted_by_id is None:
            invitation.accepted_by = user
            invitation.accepted_at = timezone.now()
            invitation.save(update_fields=["accepted_by", "accepted_at"])
    return seat
