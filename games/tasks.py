"""Celery tasks: thin interfaces that take ids, call a service and own their retries.

Every task is safe to run twice: the game services check the seq they were queued for, and
the email senders keep a ``Notification`` row per email (see ``games.emails``). Tasks queued
through the outbox (``games.outbox``) get the row's id as ``outbox_id`` and mark it done when
they have finished; a task that dies first leaves its row to be published again.

What is transient (the database or the broker restarting, a dropped connection) is retried
with exponential backoff; a mail server's errors have their own, slower backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import kombu.exceptions
import redis.exceptions
from celery import Task, shared_task
from django import db
from django.conf import settings
from django.utils import timezone

from games import emails, outbox, side_effects
from pirates_site.broker_watch import WatchedTask

log = logging.getLogger(__name__)

# Errors after which the same task is likely to succeed a little later.
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    db.OperationalError,
    db.InterfaceError,
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)


class OutboxTask(WatchedTask):
    """Retries transient errors with exponential backoff (1, 2, 4 ... seconds, at most
    ``TASK_RETRY_MAX_SECONDS``, jittered). A retry of a task from the outbox pushes its row's
    lease past the retry's countdown, so the relay does not publish it a second time while
    the retry is waiting."""

    autoretry_for = TRANSIENT_ERRORS
    retry_backoff = 1
    retry_backoff_max = settings.TASK_RETRY_MAX_SECONDS
    retry_jitter = True
    max_retries = settings.TASK_MAX_RETRIES

    def retry(self, *args: Any, **kwargs: Any) -> Any:
        countdown = kwargs.get("countdown")
        outbox.extend(self.request.kwargs.get("outbox_id") if self.request.kwargs else None,
                      float(countdown or self.default_retry_delay or 0))
        return super().retry(*args, **kwargs)


@shared_task(name="games.ping", ignore_result=False)
def ping(token: str) -> str:
    """Answers with the token it was given: proves a message went through the broker to a worker."""
    return f"pong:{token}"


@shared_task(base=OutboxTask, name="games.bot_move", acks_late=True)
def bot_move(game_id: int, seq: int, outbox_id: int | None = None) -> int:
    """Plays the bot seats that must act in ``game_id`` if it is still at ``seq``; returns moves made."""
    from games.services import bot_play

    moves = len(bot_play(game_id=game_id, expected_seq=seq))
    outbox.done(outbox_id)
    return moves


def retry_countdown(retries: int) -> int:
    """Exponential backoff for a failed send: base, 2 x base, 4 x base ... up to a cap capped."""
    return int(min(settings.EMAIL_RETRY_BASE_SECONDS * 2**retries, settings.EMAIL_RETRY_MAX_SECONDS))


def _sending(
    task: Task, send: Callable[[], Any], outbox_id: int | None, finish: Callable[[], None] | None = None
) -> Any:
    """Runs ``send`` and marks the outbox row done (or runs ``finish``, which settles the row
    itself); when the mail server fails, retries the task later with backoff, and gives the
    row up after the last retry.

    Emails already sent are not sent again on the retry: their Notification rows say so.
    """
    try:
        result = send()
    except emails.SEND_ERRORS as exc:
        retries = task.request.retries
        if retries >= settings.EMAIL_MAX_RETRIES:
            log.error("%s: mail server failed (%s); giving up after %s retries", task.name, exc, retries)
            outbox.give_up(outbox_id)
            raise
        countdown = retry_countdown(retries)
        log.warning("%s: mail server failed (%s); retry %s in %ss", task.name, exc, retries + 1, countdown)
        raise task.retry(exc=exc, countdown=countdown, max_retries=settings.EMAIL_MAX_RETRIES) from exc
    if finish is None:
        outbox.done(outbox_id)
    else:
        finish()
    return result


@shared_task(bind=True, base=OutboxTask, name="games.notify_turn", acks_late=True)
def notify_turn(self: Task, game_id: int, seq: int, outbox_id: int | None = None) -> int:
    """"Your turn" emails for the people who must act in ``game_id`` at ``seq``; returns emails sent.

    Presence defers a turn email, it never cancels one (games/presence.py): when someone who
    chose "only when away" is still at the table, the row is due again when they will have
    been gone ``PRESENCE_SECONDS`` (a row is written if the task was run by hand), instead of
    done. Run after the sends, so a person who left meanwhile is due at once, not lost."""
    from games import presence

    held: list[int] = []

    def finish() -> None:
        # Only someone the send held back can still be owed this turn's email (a preference
        # changed meanwhile is beat's to repair, presence.rearm_overdue): with nobody held back,
        # the row is done without reading the turn again.
        until = presence.turn_emails_wait(game_id, seq) if held else None
        if until is None:
            outbox.done(outbox_id)
        else:
            outbox.defer(game_id, seq, until)

    def send() -> int:
        return emails.send_turn_emails(game_id=game_id, seq=seq, held=held)

    return int(_sending(self, send, outbox_id, finish))


@shared_task(bind=True, base=OutboxTask, name="games.notify_reminder", acks_late=True)
def notify_reminder(self: Task, game_id: int, seq: int, outbox_id: int | None = None) -> int:
    """Reminders before the deadline for the people who still must act at ``seq``."""
    return int(_sending(self, lambda: emails.send_reminders(game_id=game_id, seq=seq), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.notify_timeout", acks_late=True)
def notify_timeout(self: Task, game_id: int, seq: int, outbox_id: int | None = None) -> int:
    """Tells everyone in the game about the timeout recorded as event ``seq``."""
    return int(_sending(self, lambda: emails.send_timeout_emails(game_id=game_id, seq=seq), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.notify_seat_to_bot", acks_late=True)
def notify_seat_to_bot(self: Task, game_id: int, seq: int, outbox_id: int | None = None) -> int:
    """Tells everyone in the game that the seat of event ``seq`` is now played by a bot."""
    return int(_sending(self, lambda: emails.send_seat_to_bot_emails(game_id=game_id, seq=seq), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.notify_game_over", acks_late=True)
def notify_game_over(self: Task, game_id: int, outbox_id: int | None = None) -> int:
    """The final scores and a replay link to everyone in a finished game."""
    return int(_sending(self, lambda: emails.send_game_over_emails(game_id=game_id), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.send_invitation", acks_late=True)
def send_invitation_email(self: Task, invitation_id: int, outbox_id: int | None = None) -> bool:
    return bool(_sending(self, lambda: emails.send_invitation_now(invitation_id=invitation_id), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.answer_reply", acks_late=True)
def answer_reply(self: Task, answer: dict[str, Any], outbox_id: int | None = None) -> bool:
    """The answer to an emailed reply (games/inbound/answers.py), once."""
    from games.inbound import answers

    return bool(_sending(self, lambda: answers.send(answers.from_task(answer)), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.send_digest", acks_late=True)
def send_digest(self: Task, user_id: int, day: str, outbox_id: int | None = None) -> bool:
    """One user's digest for ``day`` (ISO date)."""
    the_day = date.fromisoformat(day)
    return bool(_sending(self, lambda: emails.send_digest(user_id=user_id, day=the_day), outbox_id))


@shared_task(base=OutboxTask, name="games.daily_digest")
def daily_digest() -> int:
    """Beat, once a day: a digest row in the outbox for each person who chose the digest and
    has a game waiting; returns how many."""
    recipients = emails.digest_recipients()
    side_effects.digests(recipients, timezone.now().date())
    return len(recipients)


@shared_task(bind=True, base=OutboxTask, name="games.seats_filled", acks_late=True)
def seats_filled(self: Task, game_id: int, outbox_id: int | None = None) -> bool:
    """The creator of ``game_id`` hears that its last seat was taken (or that it started by
    itself), once, if the game still waits for them."""
    from games.seats_filled import send_seats_filled

    return bool(_sending(self, lambda: send_seats_filled(game_id=game_id), outbox_id))


@shared_task(base=OutboxTask, name="games.turn_emails_for_leavers", ignore_result=False)
def turn_emails_for_leavers() -> int:
    """Beat, every ``SWEEP_INTERVAL_SECONDS``: the safety net of turn emails (games/presence.py).
    A person to act whose turn email is due and neither sent nor on its way gets the
    position's TURN outbox row, due now; returns the positions. Nothing is lost if a run
    fails: the next one finds the same people (no turn email recorded for them yet)."""
    from games import presence

    return len(presence.rearm_overdue())


@shared_task(base=OutboxTask, name="games.sweep", ignore_result=False)
def sweep() -> dict[str, int]:
    """Beat, every minute: applies expired deadlines, sends due reminders, and re-queues the
    side effects missing for any running game's position."""
    from games.services.timeouts import sweep_due

    result = sweep_due()
    return {"timeouts": result.timeouts, "reminders": result.reminders}


@shared_task(base=OutboxTask, name="games.relay", max_retries=3)
def relay(up_to: str | None = None) -> int:
    """Publishes the outbox rows due by now (or by ``up_to``, an ISO time, for the delayed
    nudge of a bot move); beat runs it every ``OUTBOX_RELAY_SECONDS``. Returns rows published.
    Opens the nudge gate first (``outbox.NudgeGate``): a move committed from now on nudges
    again, and one committed before is claimed by this run."""
    gate = outbox.nudge_gate()
    if gate is not None:
        gate.open()
    return outbox.relay(up_to=datetime.fromisoformat(up_to) if up_to else None)


@shared_task(base=OutboxTask, name="games.update_ratings", acks_late=True)
def update_ratings(game_id: int, outbox_id: int | None = None) -> int:
    """The ratings after ``game_id`` finished (and any earlier-finished game still pending), in
    finish order; a game already applied counts nothing twice. Returns games applied."""
    from games import ratings

    applied = ratings.update_for_game(game_id)
    outbox.done(outbox_id)
    return applied


@shared_task(base=OutboxTask, name="games.rebuild_ratings", acks_late=True)
def rebuild_ratings(user_id: int, outbox_id: int | None = None) -> int:
    """``user_id`` changed whether their private games count: recompute the rule sets they
    played a finished private game in. Returns games applied."""
    from games import ratings

    applied = sum(ratings.rebuild(ratings.private_rules_of(user_id)).values())
    outbox.done(outbox_id)
    return applied


@shared_task(bind=True, name="games.heartbeat", acks_late=False)
def heartbeat(self: Task, queue: str) -> bool:
    """Beat, every ``WORKER_HEARTBEAT_SECONDS``, to each lane's queue: the worker that
    consumes the lane touches ``$VAR_DIR/worker-heartbeat-<queue>``, which its supervisor
    and health check watch (``pirates_site.lanes``). The file named is the queue the message
    came from when the broker says so, else ``queue``. Acked early: a lost heartbeat is not
    worth redelivering, the next one is on its way."""
    from pirates_site import lanes

    delivered = (self.request.delivery_info or {}).get("routing_key")
    return lanes.record(settings.VAR_DIR, delivered or queue, force=True)


@shared_task(bind=True, base=OutboxTask, name="games.send_rematch", acks_late=True)
def send_rematch(self: Task, game_id: int, user_id: int, outbox_id: int | None = None) -> bool:
    """The email offering ``user_id`` their seat in the rematch (or crew game) ``game_id``, once,
    while they have not answered and the game waits."""
    from games.emails.friends import send_rematch_now

    return bool(_sending(self, lambda: send_rematch_now(game_id=game_id, user_id=user_id), outbox_id))


@shared_task(bind=True, base=OutboxTask, name="games.send_crew_invitation", acks_late=True)
def send_crew_invitation(self: Task, invitation_id: int, outbox_id: int | None = None) -> bool:
    """The email inviting an address into a crew, once."""
    from games.emails.friends import send_crew_invitation_now

    return bool(_sending(self, lambda: send_crew_invitation_now(invitation_id=invitation_id), outbox_id))
def webhook_countdown(retries: int) -> int:
    """Backoff for a failed webhook delivery: base, 2 x base, 4 x base ... up to the cap."""
    return int(min(settings.WEBHOOK_RETRY_BASE_SECONDS * 2**retries, settings.WEBHOOK_RETRY_MAX_SECONDS))


def _delivering(task: Task, deliver: Callable[[bool], int], outbox_id: int | None) -> int:
    """Runs ``deliver`` (games/webhooks.py); while deliveries worth a retry are owed, retries
    the task later with backoff (the delivered ones are not sent again), and on the last try
    gives the rest up. The outbox row is done either way: the deliveries keep their own state."""
    retries = task.request.retries
    final = retries >= settings.WEBHOOK_MAX_RETRIES
    owed = deliver(final)
    if owed and not final:
        countdown = webhook_countdown(retries)
        log.info("%s: %s deliveries owed; retry %s in %ss", task.name, owed, retries + 1, countdown)
        raise task.retry(countdown=countdown, max_retries=settings.WEBHOOK_MAX_RETRIES)
    outbox.done(outbox_id)
    return owed


@shared_task(bind=True, base=OutboxTask, name="games.deliver_webhooks", acks_late=True)
def deliver_webhooks(
    self: Task, game_id: int, seq: int, since: int, outbox_id: int | None = None
) -> int:
    """The webhook deliveries owed by the position after event ``seq`` of ``game_id``."""
    from games import webhooks

    return _delivering(
        self,
        lambda final: webhooks.deliver_position(game_id=game_id, seq=seq, since=since, final=final),
        outbox_id,
    )


@shared_task(bind=True, base=OutboxTask, name="games.deliver_webhook_chat", acks_late=True)
def deliver_webhook_chat(self: Task, game_id: int, message_id: int, outbox_id: int | None = None) -> int:
    """The webhook deliveries of chat line ``message_id``."""
    from games import webhooks

    return _delivering(
        self,
        lambda final: webhooks.deliver_chat(game_id=game_id, message_id=message_id, final=final),
        outbox_id,
    )


@shared_task(bind=True, base=OutboxTask, name="games.webhook_disabled", acks_late=True)
def webhook_disabled(self: Task, hook_id: int, outbox_id: int | None = None) -> bool:
    """The email to whoever set up hook ``hook_id`` that it was disabled."""
    from games import webhooks

    return bool(_sending(self, lambda: webhooks.send_disabled_email(hook_id=hook_id), outbox_id))
