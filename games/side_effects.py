"""What happens after an event is committed: bot moves and emails, queued as Celery tasks.

Everything here runs from ``transaction.on_commit``: a task never sees an uncommitted event,
and a rolled-back append sends nothing. Tasks take ids and a seq and do nothing when the game
has moved past that seq, so each is safe to run twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from games.models import Event, Game


def after_append(game: Game, *, bot_seats: list[int]) -> None:
    """Queue what follows the position ``game`` is now in: bot moves, "your turn" emails for
    the people to act, or the game-over emails."""
    game_id, seq = game.pk, game.seq
    people_to_act = bool(set(game.to_act) - set(bot_seats))
    finished = game.status == Game.Status.FINISHED
    running = game.status == Game.Status.ACTIVE

    def queue() -> None:
        from games import tasks

        if bot_seats:
            tasks.bot_move.apply_async((game_id, seq), countdown=settings.BOT_MOVE_DELAY_SECONDS)
        if running and people_to_act:
            # After a grace period: a move taken back within it moves the game past ``seq``,
            # and the send path sends nothing for a seq the game has moved past.
            tasks.notify_turn.apply_async((game_id, seq), countdown=settings.TURN_EMAIL_GRACE_SECONDS)
        if finished:
            tasks.notify_game_over.delay(game_id)

    transaction.on_commit(queue)


def after_reminder(game: Game) -> None:
    """Queue the reminder emails for the turn ``game`` is at (its ``reminder_at`` was just cleared)."""
    game_id, seq = game.pk, game.seq

    def queue() -> None:
        from games import tasks

        tasks.notify_reminder.delay(game_id, seq)

    transaction.on_commit(queue)


def after_timeouts(game: Game, events: list[Event]) -> None:
    """Queue the emails telling everyone about timeouts and seats handed to bots."""
    game_id = game.pk
    timeouts = [e.seq for e in events if e.kind == Event.Kind.TIMEOUT]
    to_bot = [e.seq for e in events if e.kind == Event.Kind.SEAT_TO_BOT]
    if not events:
        return

    def queue() -> None:
        from games import tasks

        for seq in timeouts:
            tasks.notify_timeout.delay(game_id, seq)
        for seq in to_bot:
            tasks.notify_seat_to_bot.delay(game_id, seq)

    transaction.on_commit(queue)


def seats_filled(game: Game) -> None:
    """The last seat of a game in the lobby was just taken: tell its creator, and start it if
    they asked for that (issue 17). The task checks again that the game is still full and waiting."""
    game_id = game.pk
    # A creator who is at the lobby usually starts the game at once: the email waits a little,
    # and is not sent if the game has started by then. An auto-start happens at once.
    delay = 0 if game.auto_start else settings.SEATS_FILLED_EMAIL_DELAY_SECONDS

    def queue() -> None:
        from games import tasks

        tasks.seats_filled.apply_async((game_id,), countdown=delay)

    transaction.on_commit(queue)
