"""Invitation emails."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import EmailMultiAlternatives

from games.emails.rendering import render
from games.emails.sending import SEND_ERRORS, Kind, deliver_once, message_id, with_message_id
from games.models import Invitation, person_name
from games.services.accounts import account_for_address

log = logging.getLogger(__name__)


def invitation_url(invitation: Invitation) -> str:
    return f"{settings.SITE_URL}/invite/{invitation.token}/"


def send_invitation_now(*, invitation_id: int) -> bool:
    """The invitation email with its join link. Once only when the address belongs to a player."""
    invitation = Invitation.objects.filter(pk=invitation_id).select_related("game", "invited_by").first()
    if invitation is None or invitation.accepted_at is not None:
        return False
    game = invitation.game
    inviter = person_name(invitation.invited_by)
    # The account this email counts for (sent once to it): the one that verified the invited
    # address; an account that only names the address is nobody's.
    user = account_for_address(invitation.email)

    def build() -> EmailMultiAlternatives:
        from games.emails.addresses import invitation_address, replies_enabled
        from games.emails.replies import with_reply_to

        context = {
            "game": game,
            "game_name": game.display_name,
            "inviter": inviter,
            "join_url": invitation_url(invitation),
            "rules_id": game.rules_id,
            "players": game.players,
            "move_hours": int(game.move_time.total_seconds() // 3600),
            # Replying "join" takes the seat (games/inbound/handle.py).
            "reply_address": invitation_address(invitation.pk) if replies_enabled() else "",
        }
        subject = f"{inviter} invites you to {game.display_name}"
        message = render("invitation", to=invitation.email, subject=subject, context=context, user=user)
        return with_reply_to(message, context)

    if user is None:
        # No Notification row without an account: the id is the invitation's, so a retried
        # send is the same message too.
        try:
            with_message_id(build(), message_id(Kind.INVITATION, f"i{invitation.pk}")).send()
        except SEND_ERRORS as exc:
            log.warning("sending invitation %s failed: %s", invitation_id, exc)
            raise
        return True
    return deliver_once(user=user, game=game, kind=Kind.INVITATION, key=f"i{invitation.pk}", build=build)
