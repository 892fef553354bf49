"""When the last seat of a game in the lobby is taken (issue 17, item 7).

A game created with "start as soon as every seat is taken" starts in the transaction that
seats its last player (``games.services.lobby.take_free_seat``). Otherwise its creator gets an
email, from beat, once the last seat has been taken for ``SEATS_FILLED_EMAIL_DELAY_SECONDS``
and the game still waits: a creator who is at the lobby and starts it at once is not emailed.
A creator whose game started by itself hears that it started. Each is sent once
(``Notification`` kind ``seats_filled``), so a failed run is simply found again by the next.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db.models import Count, Exists, F, Max, OuterRef
from django.utils import timezone

from games import emails
from games.models import Game, Notification

KEY = "full"
# Games are looked at for this long after their last seat was taken (or their start).
HORIZON = timedelta(days=2)


def creators_to_tell(now: datetime | None = None) -> list[int]:
    """Ids of games whose creator is owed the email now."""
    now = timezone.now() if now is None else now
    told = Notification.objects.filter(game_id=OuterRef("pk"), kind=Notification.Kind.SEATS_FILLED)
    waiting = (
        Game.objects.filter(status=Game.Status.LOBBY)
        .annotate(seated=Count("seats"), last_join=Max("seats__joined_at"))
        .filter(
            seated=F("players"),
            last_join__lte=now - timedelta(seconds=settings.SEATS_FILLED_EMAIL_DELAY_SECONDS),
            last_join__gte=now - HORIZON,
        )
        .exclude(Exists(told))
        .values_list("pk", flat=True)
    )
    started = (
        Game.objects.filter(status=Game.Status.ACTIVE, auto_start=True, started_at__gte=now - HORIZON)
        .exclude(Exists(told))
        .values_list("pk", flat=True)
    )
    return sorted({*waiting, *started})


def send_seats_filled(*, game_id: int) -> bool:
    """The email to the creator of ``game_id``, once; whether it was sent now."""
    game = Game.objects.select_related("created_by").filter(pk=game_id).first()
    if game is None or game.status not in (Game.Status.LOBBY, Game.Status.ACTIVE):
        return False
    started = game.status == Game.Status.ACTIVE
    if started and not game.auto_start:
        return False  # the creator started it themselves
    creator: User = game.created_by
    if not creator.email or emails.preference(creator) == emails.Notify.NONE:
        return False

    def build() -> EmailMultiAlternatives:
        context = {
            "game": game,
            "game_name": game.display_name,
            "game_url": emails.game_url(creator, game),
            "started": started,
        }
        subject = (
            f"{game.display_name} has started: every seat is taken"
            if started
            else f"Every seat of {game.display_name} is taken: start the game"
        )
        return emails.render("seats_filled", to=creator.email, subject=subject, context=context, user=creator)

    return emails.deliver_once(
        user=creator, game=game, kind=Notification.Kind.SEATS_FILLED, key=KEY, build=build
    )
