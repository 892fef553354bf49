"""What happens after an event is committed: bot moves and emails, queued as Celery tasks.

Everything here runs from ``transaction.on_commit``: a task never sees an uncommitted event,
and a rolled-back append sends nothing. Tasks take ids and a seq and do nothing when the game
has moved past that seq, so each is safe to run twice.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction

from games.models import Game, PlayerProfile


def after_append(game: Game, *, bot_seats: list[int]) -> None:
    game_id, seq = game.pk, game.seq

    def queue() -> None:
        from games import tasks

        if bot_seats:
            tasks.bot_move.apply_async((game_id, seq), countdown=settings.BOT_MOVE_DELAY_SECONDS)

    transaction.on_commit(queue)


def away_until_for(game: Game, seats: list[int]) -> datetime | None:
    """The latest ``away_until`` among the people in ``seats`` of ``game`` (None if nobody is away)."""
    if not seats:
        return None
    values = [
        value
        for value in PlayerProfile.objects.filter(
            user__seats__game=game, user__seats__position__in=seats, away_until__isnull=False
        ).values_list("away_until", flat=True)
        if value is not None
    ]
    return max(values, default=None)
