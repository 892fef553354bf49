"""The transactional outbox: side effects written as rows with the change that owes them, and
the relay that turns due rows into Celery tasks.

Writing (``add``) happens inside the caller's transaction, as one multi-row INSERT, and
registers a *nudge* for after the commit: it publishes one ``games.relay`` task, and a failed
publish is only logged. So a committed move answers success whatever the broker does; its
side effects wait in the table until a relay runs (the nudge's, beat's every
``OUTBOX_RELAY_SECONDS``, or ``manage.py outbox_relay``).

A row's life: ``pending`` and due -> published by a relay, which moves ``due_at`` one lease
ahead -> ``done`` when its task has finished (the task marks it), or published again
once the lease has run out (its task died with a worker, or its message was lost). Tasks are
idempotent, so a second publish is harmless. After ``OUTBOX_MAX_ATTEMPTS`` publishes the relay
gives the row up (``failed``) and logs an error; so does an email task that ran out of retries.

Locking: ``relay`` claims rows with ``SELECT ... FOR UPDATE SKIP LOCKED`` and commits the claim
before publishing, so relays running at once never publish a row twice per lease, and a task
run in-process (eager mode) marks a row that is already claimed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from games import rows
from games.models import Game, Outbox, PlayerProfile, Seat

log = logging.getLogger(__name__)

Kind = Outbox.Kind
Status = Outbox.Status

# Which task each kind of row becomes, by name (the outbox imports no tasks module: the relay
# publishes by name, and the task routes send mail tasks to the mail queue), and what it takes:
# "game, key", "game", "key" or "payload" (the row's payload as keyword arguments).
TASKS: dict[str, tuple[str, str]] = {
    Kind.BOT_MOVE: ("games.bot_move", "game, key"),
    Kind.TURN: ("games.notify_turn", "game, key"),
    Kind.REMINDER: ("games.notify_reminder", "game, key"),
    Kind.TIMEOUT: ("games.notify_timeout", "game, key"),
    Kind.SEAT_TO_BOT: ("games.notify_seat_to_bot", "game, key"),
    Kind.GAME_OVER: ("games.notify_game_over", "game"),
    Kind.INVITATION: ("games.send_invitation", "key"),
    Kind.SEATS_FILLED: ("games.seats_filled", "game"),
    Kind.ANSWER: ("games.answer_reply", "payload"),
    Kind.DIGEST: ("games.send_digest", "payload"),
    Kind.RATINGS: ("games.update_ratings", "game"),
    Kind.RATINGS_REBUILD: ("games.rebuild_ratings", "payload"),
    Kind.REMATCH: ("games.send_rematch", "game, key"),
    Kind.CREW_INVITATION: ("games.send_crew_invitation", "key"),
    Kind.WEBHOOK: ("games.deliver_webhooks", "payload"),
    Kind.WEBHOOK_CHAT: ("games.deliver_webhook_chat", "game, key"),
    Kind.WEBHOOK_DISABLED: ("games.webhook_disabled", "key"),
}
RELAY_TASK = "games.relay"


@dataclass(frozen=True)
class Effect:
    """One row to write: ``kind`` for ``game_id`` (None: no game) about ``key``, due ``delay``
    seconds after now, with what its task needs beyond the key in ``payload``."""

    kind: str
    game_id: int | None
    key: int
    delay: float = 0
    payload: dict[str, Any] | None = None


# ---------------------------------------------------------------------------------------------
# Writing rows (inside the caller's transaction)


@cache
def _insert_sql(rows: int, with_game: bool) -> str:
    """One INSERT for ``rows`` rows. A row that exists already is left alone, unless it was
    given up: then it is pending again (a timeout re-queues a bot seat whose move was lost,
    the repair sweep a missing effect). The same SQL on PostgreSQL and SQLite (3.24+); rows of
    no game meet their own unique index (a partial one, hence its WHERE)."""
    table = connection.ops.quote_name(Outbox._meta.db_table)
    columns = "game_id, kind, key, payload, status, due_at, attempts, created_at"
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, 0, %s)"] * rows)
    target = "(game_id, kind, key)" if with_game else "(kind, key) WHERE game_id IS NULL"
    return (
        f"INSERT INTO {table} ({columns}) VALUES {values}"
        f" ON CONFLICT {target} DO UPDATE"
        " SET status = excluded.status, due_at = excluded.due_at, attempts = 0, published_at = NULL"
        f" WHERE {table}.status = '{Status.FAILED.value}'"
    )


def add(effects: Iterable[Effect]) -> None:
    """Write ``effects`` in the current transaction and nudge the relay after its commit.

    Plain SQL, one statement (two when some rows belong to no game): this runs on every move,
    and the ORM's bulk_create costs more to build than the insert takes."""
    effects = list(effects)
    if not effects:
        return
    now = timezone.now()
    payload_field = Outbox._meta.get_field("payload")
    for with_game in (True, False):
        group = [effect for effect in effects if (effect.game_id is not None) == with_game]
        if not group:
            continue
        params: list[Any] = []
        for effect in group:
            due = now + timedelta(seconds=effect.delay)
            params += [
                effect.game_id, str(effect.kind), effect.key,
                payload_field.get_db_prep_save(effect.payload, connection), Status.PENDING.value,
                connection.ops.adapt_datetimefield_value(due), connection.ops.adapt_datetimefield_value(now),
            ]
        with rows.prepared_cursor() as cursor:
            cursor.execute(_insert_sql(len(group), with_game), params)
    _nudge_after_commit(now, {effect.delay for effect in effects})


def _nudge_after_commit(now: datetime, delays: set[float]) -> None:
    """After the commit, publish a relay for the rows due now and one for each later due time
    (bot moves), as delayed messages. Losing a nudge costs at most one beat interval."""

    def nudge() -> None:
        for delay in sorted(delays):
            if delay > 0:
                publish_relay(up_to=now + timedelta(seconds=delay), countdown=delay)
            else:
                publish_relay()

    transaction.on_commit(nudge)


class NudgeGate:
    """At most one plain relay nudge waiting in the queue at a time, for every process.

    A nudge sets ``key`` in Redis (SET NX, expiring after ``OUTBOX_RELAY_SECONDS``) before it
    publishes; the relay task deletes it as it starts, before it claims. So a nudge that finds
    the key set is not needed: the relay waiting to start will claim after the delete, which
    comes after this nudge's commit, and so sees its rows. Under load that is one relay per
    queue wait instead of one per move, each claiming many rows (every relay is a claim
    transaction and a task on the worker: one per move saturated it and held turn emails back
    behind a queue of relays with nothing left to publish). A nudge whose message is lost
    leaves the key until it expires: beat's relay, every ``OUTBOX_RELAY_SECONDS``, covers that
    time as it covers a lost nudge now. Redis failing (or no REDIS_URL) means no gate: every
    nudge publishes, as before; after a failure the gate rests ``RETRY_AFTER_SECONDS``."""

    RETRY_AFTER_SECONDS = 30.0

    def __init__(self, url: str, queue: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self.key = f"pirates:relay-nudged:{queue}"
        self.resting_until = 0.0

    def _usable(self) -> bool:
        return time.monotonic() >= self.resting_until

    def _failed(self, what: str) -> None:
        self.resting_until = time.monotonic() + self.RETRY_AFTER_SECONDS
        log.warning("outbox: the nudge gate could not %s; every nudge publishes for %.0f s",
                    what, self.RETRY_AFTER_SECONDS, exc_info=True)

    def close(self) -> bool:
        """Whether this nudge is the one to publish (False: one is already waiting)."""
        if not self._usable():
            return True
        try:
            expires = int(settings.OUTBOX_RELAY_SECONDS * 1000)
            return bool(self.client.set(self.key, b"1", nx=True, px=expires))
        except Exception:
            self._failed("be read")
            return True

    def open(self) -> None:
        """A relay starts (or a nudge's publish failed): the next nudge publishes again."""
        if not self._usable():
            return
        try:
            self.client.delete(self.key)
        except Exception:
            self._failed("be opened")


_gate: NudgeGate | None = None
_gate_lock = threading.Lock()


def nudge_gate() -> NudgeGate | None:
    """This process's gate; None without REDIS_URL or when tasks run eagerly (in-process)."""
    global _gate
    if not settings.REDIS_URL or current_app.conf.task_always_eager:
        return None
    if _gate is None:
        with _gate_lock:
            if _gate is None:
                _gate = NudgeGate(settings.REDIS_URL, settings.CELERY_TASK_DEFAULT_QUEUE)
    return _gate


def publish_relay(*, up_to: datetime | None = None, countdown: float = 0) -> bool:
    """Publish one ``games.relay`` task, once, without retrying: this runs in requests, which
    must not wait for a broker that is down. Returns whether the broker took it (or a plain
    nudge was not needed: one is waiting, see ``NudgeGate``)."""
    relay_task = task_named(RELAY_TASK)
    gate = nudge_gate() if up_to is None and not countdown else None
    if gate is not None and not gate.close():
        return True
    try:
        if up_to is None and not countdown:
            # A plain message, not one with an ETA that a worker would hold on a timer.
            relay_task.apply_async(retry=False)
        else:
            kwargs = {"up_to": up_to.isoformat()} if up_to is not None else {}
            relay_task.apply_async(kwargs=kwargs, countdown=countdown, retry=False)
    except Exception as exc:
        if current_app.conf.task_always_eager:
            raise  # the relay ran in-process: its errors are the tasks' own, not the broker's
        if gate is not None:
            gate.open()
        # Each transport fails in its own way (kombu's, redis-py's, socket errors); none
        # may turn a committed change into an error.
        log.warning("could not publish the outbox relay (%s); beat's relay will publish it", exc)
        return False
    return True


# ---------------------------------------------------------------------------------------------
# The relay


def lease(attempts: int) -> timedelta:
    """How long a published row waits for its task before it is published again: the lease,
    doubled for each earlier publish (a task that keeps dying is not hammered), at most an hour."""
    base = settings.OUTBOX_LEASE_SECONDS
    return timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), max(base, 3600)))


def relay(*, up_to: datetime | None = None, limit: int | None = None) -> int:
    """Publish the pending rows due by now (or by ``up_to`` if later) as tasks; returns how
    many were published. Stops at the first broker error: the rows it could not publish are
    due again at once and the error is raised for the caller (the task) to retry."""
    now = timezone.now()
    horizon = max(now, up_to) if up_to is not None else now
    limit = settings.OUTBOX_RELAY_BATCH if limit is None else limit
    claimed = _claim(now, horizon, limit)
    published = 0
    try:
        for row in claimed:
            _publish(row)
            published += 1
    except Exception:
        _unclaim([row.pk for row in claimed[published:]], now)
        raise
    return published


@dataclass(frozen=True)
class _Row:
    pk: int
    kind: str
    game_id: int | None
    key: int
    attempts: int
    payload: dict[str, Any] | None


def _claim(now: datetime, horizon: datetime, limit: int) -> list[_Row]:
    """Take up to ``limit`` due rows and move each one lease ahead, committed before any is
    published (a task that runs at once must find its row claimed). Rows published too often
    are given up instead."""
    with transaction.atomic():
        due = (
            Outbox.objects.select_for_update(skip_locked=True)
            .filter(status=Status.PENDING, due_at__lte=horizon)
            .order_by("due_at")
            .values_list("pk", "kind", "game_id", "key", "attempts", "payload")[:limit]
        )
        rows = [_Row(*values) for values in due]
        spent = [row for row in rows if row.attempts >= settings.OUTBOX_MAX_ATTEMPTS]
        if spent:
            Outbox.objects.filter(pk__in=[row.pk for row in spent]).update(status=Status.FAILED)
            for row in spent:
                log.error("outbox: gave up %s for game %s at %s after %s publishes",
                          row.kind, row.game_id, row.key, row.attempts)
        rows = [row for row in rows if row.attempts < settings.OUTBOX_MAX_ATTEMPTS]
        rows = _without_idle_turns(rows, now)
        by_attempts: dict[int, list[int]] = {}
        for row in rows:
            by_attempts.setdefault(row.attempts + 1, []).append(row.pk)
        for attempts, pks in by_attempts.items():
            Outbox.objects.filter(pk__in=pks).update(
                attempts=attempts, published_at=now, due_at=now + lease(attempts)
            )
    return rows


def _without_idle_turns(rows: list[_Row], now: datetime) -> list[_Row]:
    """``rows`` less the turn-email rows that cannot send anything, which are marked done here:
    those of positions their game has moved past (or games over or gone), and those whose
    people to act all chose no email per turn (``none`` or the daily digest). Their task would
    send nothing and mark them done (``send_turn_emails`` and ``turn_emails_wait`` both stop
    at a game past the seq, and email only the per-turn preferences), and a game's seq never
    goes back. In a game that moves quickly most turn rows are such, and each task costs the
    mail lane a message and three queries, queued ahead of the turn emails that do go out.
    Two queries, none without turn rows; read without a lock (a game only moves further on,
    and a preference changed meanwhile counts from the next turn, as it would a moment later)."""
    turns = [row for row in rows if row.kind == Kind.TURN and row.game_id is not None]
    if not turns:
        return rows
    ids = {row.game_id for row in turns if row.game_id is not None}
    at = {
        pk: (seq, to_act)
        for pk, seq, to_act in Game.objects.filter(pk__in=ids, status=Game.Status.ACTIVE)
        .values_list("pk", "seq", "to_act")
    }
    current = {row.pk: row.game_id for row in turns if row.game_id in at and at[row.game_id][0] == row.key}
    emailed = _people_emailed_per_turn({game_id for game_id in current.values() if game_id is not None})
    keep = {pk for pk, game_id in current.items()
            if game_id is not None and any((game_id, seat) in emailed for seat in at[game_id][1])}
    settled = [row.pk for row in turns if row.pk not in keep]
    if not settled:
        return rows
    Outbox.objects.filter(pk__in=settled).update(status=Status.DONE, done_at=now)
    gone = set(settled)
    return [row for row in rows if row.pk not in gone]


def _people_emailed_per_turn(game_ids: set[int]) -> set[tuple[int, int]]:
    """(game, position) of the seats of ``game_ids`` whose person may get a turn email."""
    if not game_ids:
        return set()
    seats = Seat.objects.filter(game_id__in=game_ids, user__isnull=False, replaced_by_bot=False).filter(
        PlayerProfile.emailed_per_turn("user__profile")
    )
    return set(seats.values_list("game_id", "position"))


def _unclaim(pks: list[int], now: datetime) -> None:
    """Rows claimed but not published: due again now, their claim not counted (best effort:
    if this fails too, their lease brings them back)."""
    if not pks:
        return
    try:
        Outbox.objects.filter(pk__in=pks, status=Status.PENDING).update(
            due_at=now, attempts=F("attempts") - 1, published_at=None
        )
    except DatabaseError as exc:
        log.warning("outbox: could not release %s unpublished rows (%s); their lease will", len(pks), exc)


def _publish(row: _Row) -> None:
    """Publish ``row``'s task by its name (the app's registry: eager in tests, routed to its
    queue by ``CELERY_TASK_ROUTES`` otherwise)."""
    name, takes = TASKS[row.kind]
    args = {
        "game, key": [row.game_id, row.key], "game": [row.game_id], "key": [row.key], "payload": [],
    }[takes]
    kwargs: dict[str, Any] = dict(row.payload or {}) if takes == "payload" else {}
    task_named(name).apply_async(args=args, kwargs={**kwargs, "outbox_id": row.pk})


_discovering = threading.Lock()


def task_named(name: str) -> Any:
    """The app's task called ``name``. A web process has not imported the tasks modules (a
    worker imports them at start): the first lookup there has the app discover them, one
    thread at a time (a thread arriving while another imports finds the modules half-run and
    the task not yet registered)."""
    if name not in current_app.tasks:
        with _discovering:
            if name not in current_app.tasks:
                current_app.loader.import_default_modules()
    return current_app.tasks[name]


# ---------------------------------------------------------------------------------------------
# What tasks report


def done(outbox_id: int | None) -> None:
    """The task of row ``outbox_id`` finished: the row is done (None: a task run by hand)."""
    if outbox_id is None:
        return
    # A prepared statement: every task of the outbox ends here.
    with rows.prepared_cursor() as cursor:
        cursor.execute(_done_sql(), [
            Status.DONE.value, connection.ops.adapt_datetimefield_value(timezone.now()), outbox_id,
            Status.DONE.value,
        ])


@cache
def _done_sql() -> str:
    q = connection.ops.quote_name
    return (
        f"UPDATE {q(Outbox._meta.db_table)} SET {q('status')} = %s, {q('done_at')} = %s"
        f" WHERE {q('id')} = %s AND {q('status')} <> %s"
    )


def extend(outbox_id: int | None, seconds: float) -> None:
    """The task of row ``outbox_id`` retries itself in ``seconds``: keep the relay from
    publishing it again before that retry had its chance (plus one lease). Best effort: when
    the database is what failed, the relay's duplicate is harmless."""
    if outbox_id is None:
        return
    due = timezone.now() + timedelta(seconds=seconds + settings.OUTBOX_LEASE_SECONDS)
    try:
        Outbox.objects.filter(pk=outbox_id, status=Status.PENDING).update(due_at=due)
    except DatabaseError as exc:
        log.warning("outbox: could not extend row %s (%s)", outbox_id, exc)


@cache
def _defer_sql() -> str:
    table = connection.ops.quote_name(Outbox._meta.db_table)
    return (
        f"INSERT INTO {table} (game_id, kind, key, status, due_at, attempts, created_at)"
        " VALUES (%s, %s, %s, %s, %s, 0, %s)"
        " ON CONFLICT (game_id, kind, key) DO UPDATE"
        " SET status = excluded.status, due_at = excluded.due_at, attempts = 0,"
        " published_at = NULL, done_at = NULL"
    )


def defer(game_id: int, seq: int, until: datetime) -> None:
    """The turn emails of (``game_id``, ``seq``) are not all sent yet (a person is still at the
    table, or owed one the sweep found): its TURN row is pending again, due at ``until``, its
    publishes not counted (waiting is not failing); written if there is none. No nudge: the
    relay beat runs every ``OUTBOX_RELAY_SECONDS`` publishes it when it is due."""
    now = timezone.now()
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            _defer_sql(), [game_id, str(Kind.TURN), seq, Status.PENDING.value, adapt(until), adapt(now)]
        )


def give_up(outbox_id: int | None) -> None:
    """The task of row ``outbox_id`` ran out of retries: the row is not published again."""
    if outbox_id is None:
        return
    Outbox.objects.filter(pk=outbox_id, status=Status.PENDING).update(status=Status.FAILED)


# ---------------------------------------------------------------------------------------------
# Repair: running games whose position has no side effect on the way


@dataclass(frozen=True)
class Repaired:
    bot_moves: int
    turns: int


def _seats_to_act(before: datetime) -> QuerySet[Seat]:
    """Seats to act in running games unchanged since ``before`` (index ``seat_to_act``)."""
    return Seat.objects.filter(must_act=True, game__status=Game.Status.ACTIVE, game__updated_at__lte=before)


def bot_moves_missing(before: datetime) -> QuerySet[Seat, tuple[int, int]]:
    """(game, seq) of running games with a bot seat to act since before ``before`` and no
    bot-move row for that seq that is pending or done (lookups by index ``outbox_once``)."""
    rows = Outbox.objects.filter(
        game_id=OuterRef("game_id"), kind=Kind.BOT_MOVE, key=OuterRef("game__seq"),
        status__in=[Status.PENDING, Status.DONE],
    )
    bots = _seats_to_act(before).filter(Q(user__isnull=True) | Q(replaced_by_bot=True))
    return bots.filter(~Exists(rows)).values_list("game_id", "game__seq").distinct().order_by("game_id")


def turns_missing(before: datetime) -> QuerySet[Seat, tuple[int, int]]:
    """(game, seq) of running games with a person to act since before ``before`` who may get
    an email per turn, and no turn-email row at all for that seq (one given up stays given up).
    A move writes none when its people to act want no email per turn (``side_effects``): one
    who chose a per-turn email since gets the row here."""
    rows = Outbox.objects.filter(game_id=OuterRef("game_id"), kind=Kind.TURN, key=OuterRef("game__seq"))
    people = _seats_to_act(before).filter(user__isnull=False, replaced_by_bot=False)
    people = people.filter(PlayerProfile.emailed_per_turn("user__profile"))
    return people.filter(~Exists(rows)).values_list("game_id", "game__seq").distinct().order_by("game_id")


def repair(now: datetime | None = None, limit: int | None = None) -> Repaired:
    """Write the side effects missing for positions older than ``OUTBOX_REPAIR_AFTER_SECONDS``:
    a bot move (due at once) or the turn emails. Such a gap should not exist (the rows are
    written with the event); it does for games from before the outbox, after a row was
    deleted by hand, or a bot move given up."""
    now = timezone.now() if now is None else now
    limit = settings.SWEEP_BATCH_SIZE if limit is None else limit
    before = now - timedelta(seconds=settings.OUTBOX_REPAIR_AFTER_SECONDS)
    bots = list(bot_moves_missing(before)[:limit])
    turns = list(turns_missing(before)[:limit])
    effects = [Effect(Kind.BOT_MOVE, game_id, seq) for game_id, seq in bots]
    effects += [Effect(Kind.TURN, game_id, seq) for game_id, seq in turns]
    if effects:
        with transaction.atomic():
            add(effects)
        log.warning("repair: re-queued %s bot moves and %s turn emails", len(bots), len(turns))
    return Repaired(bot_moves=len(bots), turns=len(turns))


def prune(now: datetime | None = None, limit: int | None = None) -> int:
    """Delete done rows older than ``OUTBOX_KEEP_DAYS``, oldest first, at most ``limit``
    (``SWEEP_BATCH_SIZE``) per call: the table keeps what is pending, failed or recent. The
    oldest rows have the lowest ids, so the primary key finds them without a scan."""
    now = timezone.now() if now is None else now
    limit = settings.SWEEP_BATCH_SIZE if limit is None else limit
    cutoff = now - timedelta(days=settings.OUTBOX_KEEP_DAYS)
    old = Outbox.objects.filter(status=Status.DONE, done_at__lt=cutoff).order_by("pk")
    pks = list(old.values_list("pk", flat=True)[:limit])
    if not pks:
        return 0
    deleted, _ = Outbox.objects.filter(pk__in=pks).delete()
    return deleted
