"""Celery tasks: thin interfaces that take ids, call a service and own their retries.

Every task is safe to run twice: the game services check the seq they were queued for, and
the email senders keep a ``Notification`` row per email (see ``games.emails``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date
from typing import Any

from celery import Task, shared_task
from django.conf import settings
from django.utils import timezone

from games import emails

log = logging.getLogger(__name__)


@shared_task(name="games.ping", ignore_result=False)
def ping(token: str) -> str:
    """Answers with the token it was given: proves a message went through the broker to a worker."""
    return f"pong:{token}"


@shared_task(name="games.bot_move")
def bot_move(game_id: int, seq: int) -> int:
    """Plays the bot seats that must act in ``game_id`` if it is still at ``seq``; returns moves made."""
    from games.services import bot_play

    return len(bot_play(game_id=game_id, expected_seq=seq))


def retry_countdown(retries: int) -> int:
    """Exponential backoff for a failed send: base, 2 x base, 4 x base ... up to a cap capped."""
    return int(min(settings.EMAIL_RETRY_BASE_SECONDS * 2**retries, settings.EMAIL_RETRY_MAX_SECONDS))


def _sending(task: Task, send: Callable[[], Any]) -> Any:
    """Runs ``send``; when the mail server fails, retries the task later with backoff.

    Emails already sent are not sent again on the retry: their Notification rows say so.
    """
    try:
        return send()
    except emails.SEND_ERRORS as exc:
        retries = task.request.retries
        countdown = retry_countdown(retries)
        log.warning("%s: mail server failed (%s); retry %s in %ss", task.name, exc, retries + 1, countdown)
        raise task.retry(exc=exc, countdown=countdown, max_retries=settings.EMAIL_MAX_RETRIES) from exc


@shared_task(bind=True, name="games.notify_turn", acks_late=True)
def notify_turn(self: Task, game_id: int, seq: int) -> int:
    """"Your turn" emails for the people who must act in ``game_id`` at ``seq``; returns emails sent."""
    return int(_sending(self, lambda: emails.send_turn_emails(game_id=game_id, seq=seq)))


@shared_task(bind=True, name="games.notify_reminder", acks_late=True)
def notify_reminder(self: Task, game_id: int, seq: int) -> int:
    """Reminders before the deadline for the people who still must act at ``seq``."""
    return int(_sending(self, lambda: emails.send_reminders(game_id=game_id, seq=seq)))


@shared_task(bind=True, name="games.notify_timeout", acks_late=True)
def notify_timeout(self: Task, game_id: int, seq: int) -> int:
    """Tells everyone in the game about the timeout recorded as event ``seq``."""
    return int(_sending(self, lambda: emails.send_timeout_emails(game_id=game_id, seq=seq)))


@shared_task(bind=True, name="games.notify_seat_to_bot", acks_late=True)
def notify_seat_to_bot(self: Task, game_id: int, seq: int) -> int:
    """Tells everyone in the game that the seat of event ``seq`` is now played by a bot."""
    return int(_sending(self, lambda: emails.send_seat_to_bot_emails(game_id=game_id, seq=seq)))


@shared_task(bind=True, name="games.notify_game_over", acks_late=True)
def notify_game_over(self: Task, game_id: int) -> int:
    """The final scores and a replay link to everyone in a finished game."""
    return int(_sending(self, lambda: emails.send_game_over_emails(game_id=game_id)))


@shared_task(bind=True, name="games.send_invitation", acks_late=True)
def send_invitation_email(self: Task, invitation_id: int) -> bool:
    return bool(_sending(self, lambda: emails.send_invitation_now(invitation_id=invitation_id)))


@shared_task(bind=True, name="games.send_digest", acks_late=True)
def send_digest(self: Task, user_id: int, day: str) -> bool:
    """One user's digest for ``day`` (ISO date)."""
    the_day = date.fromisoformat(day)
    return bool(_sending(self, lambda: emails.send_digest(user_id=user_id, day=the_day)))


@shared_task(name="games.daily_digest")
def daily_digest() -> int:
    """Beat, once a day: one digest task per person who chose the digest and has a game waiting."""
    day = timezone.now().date().isoformat()
    recipients = emails.digest_recipients()
    for user_id in recipients:
        send_digest.delay(user_id, day)
    return len(recipients)


@shared_task(bind=True, name="games.seats_filled", acks_late=True)
def seats_filled(self: Task, game_id: int) -> bool:
    """The last seat was taken: auto-start if asked, and email the creator (issue 17)."""
    from games.seats_filled import handle_seats_filled

    return bool(_sending(self, lambda: handle_seats_filled(game_id=game_id)))


@shared_task(name="games.turn_emails_for_leavers", ignore_result=False)
def turn_emails_for_leavers() -> int:
    """Beat, every minute: turn emails for players who were at the table when their turn came
    and left without moving (issue 17); returns the games emailed about."""
    from games import presence

    due = presence.turn_emails_for_leavers()
    for game_id, seq in due:
        notify_turn.delay(game_id, seq)
    return len(due)


@shared_task(name="games.sweep", ignore_result=False)
def sweep() -> dict[str, int]:
    """Beat, every minute: applies expired deadlines, then sends due reminders."""
    from games.services.timeouts import sweep_due

    result = sweep_due()
    return {"timeouts": result.timeouts, "reminders": result.reminders}
