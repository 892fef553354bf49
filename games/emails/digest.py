"""The daily digest of the games waiting for a player."""

from __future__ import annotations

from datetime import date

from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives

from games.emails.rendering import _game_context, render
from games.emails.sending import Kind, deliver_once
from games.emails.unsubscribe import Notify, preference
from games.models import Game, PlayerProfile, Seat
from games.services.accounts import mail_address


def digest_key(day: date) -> str:
    return day.strftime("%Y%m%d")


def digest_recipients() -> list[int]:
    """Ids of the people who chose the daily digest and have a game waiting for them."""
    return list(
        PlayerProfile.objects.filter(
            notify=Notify.DAILY_DIGEST,
            user__seats__must_act=True,
            user__seats__replaced_by_bot=False,
            user__seats__game__status=Game.Status.ACTIVE,
        )
        .values_list("user_id", flat=True)
        .distinct()
        .order_by("user_id")
    )


def send_digest(*, user_id: int, day: date) -> bool:
    """One email listing the games waiting for ``user_id``, once per day; nothing if none wait."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not mail_address(user) or preference(user) != Notify.DAILY_DIGEST:
        return False
    seats = list(
        Seat.objects.filter(user=user, must_act=True, replaced_by_bot=False, game__status=Game.Status.ACTIVE)
        .select_related("game")
        .order_by("game__deadline", "game_id")
    )
    if not seats:
        return False

    def build() -> EmailMultiAlternatives:
        games = [_game_context(user, seat.game, seat.position, seat.game.seq) for seat in seats]
        count = len(games)
        subject = f"Pirates by Mail: {count} game{'s' if count != 1 else ''} waiting for your move"
        context = {"games": games, "day": day}
        return render("digest", to=mail_address(user), subject=subject, context=context, user=user)

    return deliver_once(user=user, game=None, kind=Kind.DIGEST, key=digest_key(day), build=build)
