"""The transactional outbox: what an append owes is written as rows in the
append's own transaction; a relay publishes due rows; a row is done only when its task has
finished, and a row whose task never finished is published again after its lease. A committed
move answers success whatever the broker does."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import timedelta
from io import StringIO
from typing import Any

import kombu.exceptions
import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.utils import timezone
from pytest_django import Settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine.bots import choose_action
from games import outbox, services, tasks
from games.models import Game, Outbox, PlayerProfile
from games.services.timeouts import sweep_due
from tests import realservers
from tests.services.support import make_user, make_users, started_game, user_to_act

pytestmark = pytest.mark.django_db
OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]
Kind, Status = Outbox.Kind, Outbox.Status


def game_rows() -> Any:
    """The outbox rows of play: the lobby's seats-filled email (owed when a test's game fills
    its seats) is not what these tests look at."""
    return Outbox.objects.exclude(kind=Kind.SEATS_FILLED)


def rows(game: Game) -> list[tuple[str, int, str]]:
    found = game_rows().filter(game=game).order_by("key", "kind")
    return [(row.kind, row.key, row.status) for row in found.only("kind", "key", "status")]


def greedy_move(game: Game) -> None:
    """The person to act plays the greedy move through the service (no side effects run: a
    test's transaction never commits)."""
    game.refresh_from_db()
    user = user_to_act(game)
    state = services.load_state(game)
    action = choose_action(services.rules_for(game), state, game.to_act[0], "greedy", random.Random(game.seq))
    services.action_submit(game_id=game.pk, user=user, action=action, expected_seq=game.seq)
    game.refresh_from_db()


def to_bot_turn(game: Game) -> None:
    """Play the people's moves until a bot seat is to act."""
    for _ in range(20):
        game.refresh_from_db()
        if game.seats.filter(position__in=game.to_act, user__isnull=True).exists():
            return
        greedy_move(game)
    raise AssertionError("no bot turn came")


def lose_every_publish(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The relay claims rows but their messages vanish (a broker that lost them, a worker
    killed with them): returns the list of rows it tried."""
    lost: list[Any] = []
    monkeypatch.setattr(outbox, "_publish", lost.append)
    return lost


def overdue(game: Game | None = None) -> None:
    """Time passes: every pending row's lease (or delay) has run out."""
    pending = game_rows().filter(status=Status.PENDING)
    if game is not None:
        pending = pending.filter(game=game)
    pending.update(due_at=timezone.now() - timedelta(seconds=1))


# ---------------------------------------------------------------------------------------------
# Rows are written with the event


def test_an_append_writes_its_side_effects_in_its_own_transaction() -> None:
    people = make_users(3)
    game = started_game(people)
    assert rows(game) == [(Kind.TURN, 1, Status.PENDING)]
    greedy_move(game)
    assert rows(game) == [(Kind.TURN, 1, Status.PENDING), (Kind.TURN, 2, Status.PENDING)]
    # A refused move rolls back: it owes nothing.
    with pytest.raises(services.IllegalMove):
        services.action_submit(game_id=game.pk, user=user_to_act(game), action={"type": "nonsense"},
                               expected_seq=game.seq)
    assert len(rows(game)) == 2


def test_the_first_relay_publishes_each_due_row_once_and_its_task_marks_it_done() -> None:
    people = make_users(3)
    game = started_game(people)
    assert outbox.relay() == 1
    assert [m.to for m in mail.outbox] == [[user_to_act(game).email]]
    row = game_rows().get(game=game)
    assert (row.status, row.attempts) == (Status.DONE, 1) and row.done_at is not None
    assert outbox.relay() == 0
    assert len(mail.outbox) == 1


@pytest.fixture
def api_client_for(db: None) -> Callable[[User], APIClient]:
    def make(user: User) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        return client

    return make


def test_start_and_move_answer_success_with_the_broker_down_and_their_emails_wait(
    django_capture_on_commit_callbacks: OnCommit,
    api_client_for: Callable[[User], APIClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A committed move answered 500 when Redis was down and its emails were lost."""
    people = make_users(3)
    clients = {user.pk: api_client_for(user) for user in people}
    game_id = clients[people[0].pk].post("/api/games/", {"players": 3}, format="json").json()["id"]
    for user in people[1:]:
        assert clients[user.pk].post(f"/api/games/{game_id}/join/").status_code == 200
    nowhere = f"redis://127.0.0.1:{realservers.free_port()}/0"  # nothing listens there
    with caplog.at_level(logging.WARNING, "games.outbox"), realservers.celery_broker(nowhere):
        with django_capture_on_commit_callbacks(execute=True):
            started = clients[people[0].pk].post(f"/api/games/{game_id}/start/")
        assert started.status_code == 200, started.content
        game = Game.objects.get(pk=game_id)
        mover = clients[user_to_act(game).pk]
        legal = mover.get(f"/api/games/{game_id}/").json()["legal_actions"]
        with django_capture_on_commit_callbacks(execute=True):
            moved = mover.post(f"/api/games/{game_id}/actions/",
                               {"action": legal[0], "expected_seq": 1}, format="json")
        assert moved.status_code == 201, moved.content
    assert caplog.text.count("could not publish the outbox relay") == 2
    game.refresh_from_db()
    assert rows(game) == [(Kind.TURN, 1, Status.PENDING), (Kind.TURN, 2, Status.PENDING)]
    assert mail.outbox == []

    # The broker is back (eager here): one relay sends the email for the turn the game is at,
    # once; the turn that has passed sends nothing (its row is done without a task).
    assert outbox.relay() == 1
    assert [m.to for m in mail.outbox] == [[user_to_act(game).email]]
    assert rows(game) == [(Kind.TURN, 1, Status.DONE), (Kind.TURN, 2, Status.DONE)]
    assert outbox.relay() == 0 and len(mail.outbox) == 1


def test_the_relay_settles_turn_rows_the_game_has_moved_past_without_a_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A quick game leaves a turn row per move; only the position it is at can owe an email."""
    people = make_users(3)
    game = started_game(people)
    greedy_move(game)
    greedy_move(game)
    finished = started_game(make_users(3, prefix="other"))
    Game.objects.filter(pk=finished.pk).update(status=Game.Status.FINISHED)
    published = lose_every_publish(monkeypatch)
    assert outbox.relay() == 1
    assert [(row.game_id, row.kind, row.key) for row in published] == [(game.pk, Kind.TURN, game.seq)]
    assert rows(game) == [
        (Kind.TURN, 1, Status.DONE), (Kind.TURN, 2, Status.DONE), (Kind.TURN, 3, Status.PENDING)
    ]
    assert rows(finished) == [(Kind.TURN, 1, Status.DONE)]
    assert game_rows().get(game=game, key=1).done_at is not None


def test_the_relay_settles_turn_rows_of_people_who_want_no_turn_email_without_a_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A turn row can send something only to a person to act who gets an email per turn: one
    whose people chose none or the daily digest is done without a task; one with a person
    of the default preference (no profile row) or "each turn" is published."""
    quiet, digest, default, eager = (
        started_game(make_users(3, prefix=name)) for name in ("quiet", "digest", "default", "eager")
    )
    for game, notify in ((quiet, "none"), (digest, "daily_digest"), (eager, "each_turn")):
        for seat in game.seats.all():
            PlayerProfile.objects.update_or_create(user=seat.user, defaults={"notify": notify})
    published = lose_every_publish(monkeypatch)
    assert outbox.relay() == 2
    assert {row.game_id for row in published} == {default.pk, eager.pk}
    for game, status in ((quiet, Status.DONE), (digest, Status.DONE), (default, Status.PENDING),
                         (eager, Status.PENDING)):
        assert rows(game) == [(Kind.TURN, game.seq, status)], game
    # Only the people to act count: quiet's next player choosing "each turn" brings its row back.
    to_act = user_to_act(quiet)
    PlayerProfile.objects.filter(user=to_act).update(notify="each_turn")
    Outbox.objects.filter(game=quiet).update(status=Status.PENDING)
    assert outbox.relay() == 1 and published[-1].game_id == quiet.pk


def test_a_move_writes_no_turn_row_when_its_people_to_act_want_no_turn_email() -> None:
    """The same test as the relay's, made by the move itself: no row, no relay, no task. A
    person to act who chooses "each turn" meanwhile gets the row from the sweep's repair."""
    people = make_users(3, prefix="quiet")
    for user, notify in zip(people, ("none", "daily_digest", "none"), strict=True):
        PlayerProfile.objects.update_or_create(user=user, defaults={"notify": notify})
    game = started_game(people)
    for _ in range(3):
        greedy_move(game)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and rows(game) == []
    assert sweep_due(later()).repaired == 0  # nobody to act wants one: nothing is missing

    to_act = user_to_act(game)
    PlayerProfile.objects.filter(user=to_act).update(notify="each_turn")
    assert sweep_due(later()).repaired == 1
    assert rows(game) == [(Kind.TURN, game.seq, Status.PENDING)]
    outbox.relay()
    assert [m.to for m in mail.outbox] == [[to_act.email]]
    # Their next turn is a row of its own, written by the move that hands it to them.
    for _ in range(60):
        greedy_move(game)
        if user_to_act(game) != to_act:
            break
    for _ in range(60):
        if user_to_act(game) == to_act:
            break
        greedy_move(game)
    game.refresh_from_db()
    assert user_to_act(game) == to_act and game.status == Game.Status.ACTIVE
    assert rows(game)[-1] == (Kind.TURN, game.seq, Status.PENDING)


def test_a_bot_move_is_a_row_due_after_the_delay(settings: Settings) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 30
    before = timezone.now()
    game = started_game([make_user("anne")], bots=2)
    to_bot_turn(game)
    after = timezone.now()
    # When the seating put anne first, the turn emails of her turns are due already: they go
    # now, so that only the bot move is left waiting.
    outbox.relay()
    seq = game.seq
    row = game_rows().get(game=game, kind=Kind.BOT_MOVE, key=seq)
    # Due the delay after the start or move that handed the bot its turn (however long that took).
    assert before + timedelta(seconds=30) <= row.due_at <= after + timedelta(seconds=30)
    assert outbox.relay() == 0  # not due yet
    game.refresh_from_db()
    assert game.seq == seq
    # The delayed nudge carries the row's due time; a relay run then publishes it.
    assert outbox.relay(up_to=row.due_at) == 1
    game.refresh_from_db()
    assert game.seq > seq
    row.refresh_from_db()
    assert row.status == Status.DONE


# ---------------------------------------------------------------------------------------------
# Leases: a published row whose task never finished


def test_a_row_whose_task_never_finished_is_published_again_after_its_lease(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """Tasks held by a killed worker were parked for the broker's hour."""
    settings.OUTBOX_LEASE_SECONDS = 60
    game = started_game(make_users(3))
    lost = lose_every_publish(monkeypatch)
    assert outbox.relay() == 1 and len(lost) == 1
    row = game_rows().get(game=game)
    assert (row.status, row.attempts) == (Status.PENDING, 1)
    assert row.published_at is not None
    assert row.due_at - row.published_at == timedelta(seconds=60)
    assert outbox.relay() == 0  # within the lease
    monkeypatch.undo()

    overdue(game)
    assert outbox.relay() == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == (Status.DONE, 2)
    assert [m.to for m in mail.outbox] == [[user_to_act(game).email]]
    assert outbox.relay() == 0


def test_the_lease_doubles_with_each_publish_up_to_an_hour(settings: Settings) -> None:
    settings.OUTBOX_LEASE_SECONDS = 60
    leases = [outbox.lease(n).total_seconds() for n in range(1, 9)]
    assert leases == [60, 120, 240, 480, 960, 1920, 3600, 3600]


def test_a_row_published_too_often_is_given_up(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.OUTBOX_MAX_ATTEMPTS = 2
    game = started_game(make_users(3))
    lost = lose_every_publish(monkeypatch)
    for _ in range(3):
        outbox.relay()
        overdue(game)
    assert len(lost) == 2
    assert rows(game) == [(Kind.TURN, 1, Status.FAILED)]
    assert "gave up turn" in caplog.text


def test_a_broker_error_mid_relay_leaves_the_unpublished_rows_due_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    games = [started_game(make_users(3, prefix=f"g{n}-")) for n in range(3)]
    published: list[int] = []

    def flaky(row: Any) -> None:
        if published:
            raise kombu.exceptions.OperationalError("Connection refused")
        published.append(row.pk)

    monkeypatch.setattr(outbox, "_publish", flaky)
    with pytest.raises(kombu.exceptions.OperationalError):
        outbox.relay()
    now = timezone.now()
    first = game_rows().get(pk=published[0])
    assert first.attempts == 1 and first.due_at > now
    rest = game_rows().filter(game__in=games).exclude(pk=first.pk)
    assert [(r.attempts, r.published_at, r.due_at <= now) for r in rest] == [(0, None, True)] * 2


def test_the_relay_task_and_command_run_the_relay_once() -> None:
    started_game(make_users(3))
    started_game(make_users(3, prefix="other"))
    out = StringIO()
    call_command("outbox_relay", stdout=out)
    assert out.getvalue().strip() == "Published 2 outbox rows."
    assert tasks.relay.delay().get() == 0
    assert len(mail.outbox) == 2


# ---------------------------------------------------------------------------------------------
# Tasks retry what is transient


@pytest.fixture
def eager_retries() -> Iterator[None]:
    """Eager tasks that propagate errors raise Retry instead of running again: let them retry."""
    from pirates_site.celery import app

    previous = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = previous


@pytest.mark.usefixtures("eager_retries")
def test_a_bot_move_retries_a_database_error_then_marks_its_row_done(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """A PostgreSQL restart while bot moves were due stalled every bot game."""
    from django import db

    settings.BOT_MOVE_DELAY_SECONDS = 0
    game = started_game([make_user("anne")], bots=2)
    to_bot_turn(game)
    real_bot_play = services.bot_play
    calls: list[int] = []

    def restarting_database(**kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= 2:
            raise db.OperationalError("server closed the connection unexpectedly")
        return real_bot_play(**kwargs)

    monkeypatch.setattr(services, "bot_play", restarting_database)
    seq = game.seq
    outbox.relay()
    assert len(calls) == 3
    game.refresh_from_db()
    assert game.seq > seq
    assert game_rows().get(game=game, kind=Kind.BOT_MOVE, key=seq).status == Status.DONE


@pytest.mark.usefixtures("eager_retries")
def test_a_turn_email_retries_a_lost_database_connection_and_sends_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django import db

    from games import emails

    game = started_game(make_users(3))
    real_send = emails.send_turn_emails
    failures = [db.InterfaceError("connection already closed")]

    def send(**kwargs: Any) -> int:
        if failures:
            raise failures.pop()
        return real_send(**kwargs)

    monkeypatch.setattr(emails, "send_turn_emails", send)
    outbox.relay()
    assert [m.to for m in mail.outbox] == [[user_to_act(game).email]]
    assert rows(game) == [(Kind.TURN, 1, Status.DONE)]


@pytest.mark.usefixtures("eager_retries")
def test_the_relay_task_retries_a_broker_error(monkeypatch: pytest.MonkeyPatch) -> None:
    game = started_game(make_users(3))
    real_publish = outbox._publish
    failures = [kombu.exceptions.OperationalError("Error 111 connecting to 127.0.0.1:6379")]

    def publish(row: Any) -> None:
        if failures:
            raise failures.pop()
        real_publish(row)

    monkeypatch.setattr(outbox, "_publish", publish)
    assert tasks.relay.delay().get() == 1
    assert rows(game) == [(Kind.TURN, 1, Status.DONE)]


def test_a_retrying_task_keeps_its_row_from_being_published_meanwhile(settings: Settings) -> None:
    settings.OUTBOX_LEASE_SECONDS = 60
    game = started_game(make_users(3))
    row = game_rows().get(game=game)
    before = timezone.now()
    outbox.extend(row.pk, 600)
    after = timezone.now()
    row.refresh_from_db()
    # The retry's countdown (600 s) plus one lease (60 s) from the moment it was extended.
    assert before + timedelta(seconds=660) <= row.due_at <= after + timedelta(seconds=660)
    assert outbox.relay() == 0


@pytest.mark.usefixtures("eager_retries")
def test_an_email_out_of_retries_gives_its_row_up(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import smtplib

    from games import emails

    settings.EMAIL_MAX_RETRIES = 1
    game = started_game(make_users(3))

    def mail_server_down(**kwargs: Any) -> int:
        raise smtplib.SMTPServerDisconnected("connection unexpectedly closed")

    monkeypatch.setattr(emails, "send_turn_emails", mail_server_down)
    outbox.relay()
    assert rows(game) == [(Kind.TURN, 1, Status.FAILED)]
    overdue()
    assert outbox.relay() == 0


# ---------------------------------------------------------------------------------------------
# The repair sweep


def later(minutes: int = 2) -> Any:
    return timezone.now() + timedelta(minutes=minutes)


def test_the_sweep_requeues_a_lost_bot_move_once_it_is_overdue(settings: Settings) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    game = started_game([make_user("anne")], bots=2)
    to_bot_turn(game)
    seq = game.seq
    game_rows().filter(game=game).delete()  # a game from before the outbox, or rows lost

    assert sweep_due().repaired == 0  # the position is not a minute old yet
    assert sweep_due(later()).repaired == 1
    assert rows(game) == [(Kind.BOT_MOVE, seq, Status.PENDING)]
    assert sweep_due(later()).repaired == 0  # pending now: nothing more
    outbox.relay()
    game.refresh_from_db()
    assert game.seq > seq


def test_the_sweep_requeues_missing_turn_emails_once() -> None:
    game = started_game(make_users(3))
    greedy_move(game)
    game_rows().filter(game=game).delete()
    assert sweep_due(later()).repaired == 1
    assert rows(game) == [(Kind.TURN, game.seq, Status.PENDING)]
    outbox.relay()
    assert [m.to for m in mail.outbox] == [[user_to_act(game).email]]
    assert sweep_due(later()).repaired == 0


def test_a_given_up_bot_move_is_requeued_but_a_given_up_email_is_not() -> None:
    bot_game = started_game([make_user("anne")], bots=2)
    to_bot_turn(bot_game)
    people_game = started_game(make_users(3))
    game_rows().update(status=Status.FAILED, attempts=10)
    assert sweep_due(later()).repaired == 1
    assert rows(bot_game)[-1] == (Kind.BOT_MOVE, bot_game.seq, Status.PENDING)
    assert game_rows().get(game=bot_game, key=bot_game.seq, kind=Kind.BOT_MOVE).attempts == 0
    assert rows(people_game) == [(Kind.TURN, 1, Status.FAILED)]


def test_the_sweep_deletes_done_rows_after_two_weeks(settings: Settings) -> None:
    settings.OUTBOX_KEEP_DAYS = 14
    game = started_game(make_users(3))
    greedy_move(game)
    outbox.relay()
    first, second = game_rows().filter(game=game).order_by("key")
    game_rows().filter(pk=first.pk).update(done_at=timezone.now() - timedelta(days=15))
    game_rows().filter(pk=second.pk).update(status=Status.FAILED, done_at=None)
    sweep_due()
    assert rows(game) == [(Kind.TURN, 2, Status.FAILED)]


@pytest.mark.postgres
@pytest.mark.slow
def test_the_repair_queries_use_their_indexes() -> None:
    from django.db import connection

    from games.models import Seat

    owner = make_user("owner")
    total, running = 6000, 60
    games = Game.objects.bulk_create(
        Game(rules_id="pirates", rules_version=1, players=3, created_by=owner, seq=40,
             status=Game.Status.ACTIVE if n % (total // running) == 0 else Game.Status.FINISHED)
        for n in range(total)
    )
    Seat.objects.bulk_create(
        Seat(game=game, position=p, user=owner if p == 0 else None, bot="" if p == 0 else "greedy",
             must_act=game.status == Game.Status.ACTIVE and p == n % 3)
        for n, game in enumerate(games) for p in range(3)
    )
    now = timezone.now()
    Outbox.objects.bulk_create(
        Outbox(game=game, kind=Kind.TURN, key=k, status=Status.DONE, due_at=now, created_at=now)
        for game in games for k in range(1, 6)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game; ANALYZE games_seat; ANALYZE games_outbox")
    before = later()
    for query in (outbox.bot_moves_missing(before), outbox.turns_missing(before)):
        plan = query[:200].explain()
        assert "seat_to_act" in plan, plan
        assert "outbox_once" in plan, plan
        # The tables that grow with the games (the players' profiles are looked up per seat
        # to act, and a small table is read whole).
        for table in ("games_game", "games_seat", "games_outbox"):
            assert f"Seq Scan on {table}" not in plan, plan
    # Of the 60 running games, a third have their person to act, the rest a bot.
    assert (len(outbox.bot_moves_missing(before)), len(outbox.turns_missing(before))) == (40, 20)


# ---------------------------------------------------------------------------------------------
# The nudge gate: one plain relay nudge waiting at a time, for every process


def recorder(published: list[dict[str, Any]]) -> Callable[..., None]:
    def apply_async(**kwargs: Any) -> None:
        published.append(kwargs)

    return apply_async


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[outbox.NudgeGate, list[dict[str, Any]]]]:
    """This process's gate on the real Redis (a key of its own), tasks not eager, and the
    relay messages the broker took (what the broker does with them is not the point here)."""
    from pirates_site.celery import app

    gate = outbox.NudgeGate(realservers.redis_url(), f"gate-test-{random.randrange(10**9)}")
    published: list[dict[str, Any]] = []
    monkeypatch.setattr(outbox, "_gate", gate)
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setattr(outbox.task_named(outbox.RELAY_TASK), "apply_async", recorder(published))
    gate.open()
    try:
        yield gate, published
    finally:
        gate.client.delete(gate.key)


@pytest.mark.redis
def test_a_nudge_while_one_waits_publishes_nothing_until_the_relay_starts(
    gate: tuple[outbox.NudgeGate, list[dict[str, Any]]], settings: Settings
) -> None:
    the_gate, published = gate
    settings.OUTBOX_RELAY_SECONDS = 1
    assert outbox.publish_relay() and outbox.publish_relay() and outbox.publish_relay()
    assert len(published) == 1  # the other two moves' rows are the waiting relay's
    assert tasks.relay.run() == 0  # the relay starts: it opens the gate, then claims
    assert outbox.publish_relay()
    assert len(published) == 2
    # A nudge whose message was lost holds the gate only until the key expires.
    deadline = time.monotonic() + 30
    while the_gate.client.exists(the_gate.key) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert outbox.publish_relay()
    assert len(published) == 3
    # A delayed nudge (a bot move's) always publishes.
    outbox.publish_relay(up_to=timezone.now() + timedelta(seconds=5), countdown=5)
    assert len(published) == 4 and published[-1]["countdown"] == 5


@pytest.mark.redis
def test_a_failed_publish_opens_the_gate_again(
    gate: tuple[outbox.NudgeGate, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    the_gate, _published = gate

    def broker_down(**kwargs: Any) -> None:
        raise kombu.exceptions.OperationalError("broker down")

    monkeypatch.setattr(outbox.task_named(outbox.RELAY_TASK), "apply_async", broker_down)
    assert not outbox.publish_relay()
    assert not the_gate.client.exists(the_gate.key)  # the next move nudges again


def test_without_redis_for_the_gate_every_nudge_publishes(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, settings: Settings
) -> None:
    from pirates_site.celery import app

    settings.REDIS_URL = f"redis://127.0.0.1:{realservers.free_port()}/0"  # nothing listens there
    nowhere = outbox.NudgeGate(settings.REDIS_URL, "gate-test-down")
    published: list[dict[str, Any]] = []
    monkeypatch.setattr(outbox, "_gate", nowhere)
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setattr(outbox.task_named(outbox.RELAY_TASK), "apply_async", recorder(published))
    with caplog.at_level(logging.WARNING, "games.outbox"):
        assert outbox.publish_relay() and outbox.publish_relay()
    assert len(published) == 2
    assert caplog.text.count("nudge gate could not") == 1  # then it rests
