"""Rematch and crew emails: a seat offered in a rematch or a crew's game ("I'm in" / "Not this
time"), and an invitation into a crew."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives

from games.emails.rendering import game_url, render
from games.emails.sending import Kind, deliver_once
from games.models import CrewInvitation, Game, RematchReply, person_name
from games.services.accounts import account_for_address


def answer_urls(game_id: int, user_id: int) -> tuple[str, str]:
    """The "I'm in" and "Not this time" links of ``user_id``'s seat in ``game_id``."""
    from games.services.rematch import answer_token

    token = answer_token(game_id, user_id)
    return f"{settings.SITE_URL}/rematch/{token}/in/", f"{settings.SITE_URL}/rematch/{token}/out/"


def send_rematch_now(*, game_id: int, user_id: int) -> bool:
    """The seat offer, once, while the person has not answered and the game waits."""
    reply = (
        RematchReply.objects.filter(rematch__game_id=game_id, user_id=user_id)
        .select_related("rematch__game", "rematch__source", "rematch__created_by", "user")
        .first()
    )
    if reply is None or reply.answer != RematchReply.Answer.WAITING:
        return False
    call = reply.rematch
    game: Game = call.game
    if game.status != Game.Status.LOBBY:
        return False
    user: User = reply.user
    asker = person_name(call.created_by)

    def build() -> EmailMultiAlternatives:
        yes_url, no_url = answer_urls(game.pk, user.pk)
        context = {
            "game": game,
            "game_name": game.display_name,
            "asker": asker,
            "source": call.source,
            "yes_url": yes_url,
            "no_url": no_url,
            "game_url": game_url(user, game),
            "players": game.players,
        }
        what = "a rematch" if call.source is not None else "a new game"
        subject = f"{asker} asks you to {what}: {game.display_name}"
        from games.services.accounts import mail_address

        return render("rematch", to=mail_address(user), subject=subject, context=context, user=user)

    def still_due() -> bool:
        return RematchReply.objects.filter(pk=reply.pk, answer=RematchReply.Answer.WAITING).exists()

    return deliver_once(user=user, game=game, kind=Kind.REMATCH, key="seat", build=build, still_due=still_due)


def crew_invitation_url(invitation: CrewInvitation) -> str:
    return f"{settings.SITE_URL}/crews/join/{invitation.token}/"


def send_crew_invitation_now(*, invitation_id: int) -> bool:
    """The crew invitation with its join link; once per account, or once per address."""
    invitation = CrewInvitation.objects.filter(pk=invitation_id).select_related("crew", "invited_by").first()
    if invitation is None or invitation.accepted_at is not None:
        return False
    inviter = person_name(invitation.invited_by)
    user = account_for_address(invitation.email)
    context = {
        "crew": invitation.crew,
        "inviter": inviter,
        "join_url": crew_invitation_url(invitation),
    }
    subject = f"{inviter} invites you to the crew {invitation.crew.name}"

    def build() -> EmailMultiAlternatives:
        return render("crew_invitation", to=invitation.email, subject=subject, context=context, user=user)

    if user is None:
        from games.emails.sending import message_id, with_message_id

        with_message_id(build(), message_id(Kind.CREW_INVITATION, f"c{invitation.pk}")).send()
        return True
    return deliver_once(user=user, game=None, kind=Kind.CREW_INVITATION, key=f"c{invitation.pk}", build=build)
