"""Notifications with the real servers: a Celery worker on Redis sharing the PostgreSQL
test database, sending through a real SMTP server this test starts.

Locally these skip without Redis/PostgreSQL; CI (REQUIRE_REAL_SERVERS=1) fails if they skip.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from engine.bots import choose_action
from games import tasks
from games.models import Event, Game, Notification, Seat
from games.services import action_submit, game_create, game_start, load_state, rules_for, seat_join
from games.services.timeouts import due_deadlines, due_reminders
from tests import realservers
from tests.conftest import CeleryWorker
from tests.notifications.smtp_sink import Sink, smtp_server, text_of, wait_until

SITE = "http://pirates.test"
WAIT = 60

@pytest.fixture
def smtp_port() -> int:
    return realservers.free_port()


@pytest.fixture
def celery_worker_env(smtp_port: int) -> dict[str, str]:
    """The worker sends through this test's SMTP server, retries fast and plays bots at once."""
    return {
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_TIMEOUT": "5",
        "EMAIL_RETRY_BASE_SECONDS": "1",
        "EMAIL_RETRY_MAX_SECONDS": "2",
        "BOT_MOVE_DELAY_SECONDS": "0",
        "SITE_URL": SITE,
    }


@pytest.fixture
def sink(smtp_port: int) -> Iterator[Sink]:
    with smtp_server(smtp_port) as server:
        yield server


def people(*names: str) -> list[User]:
    return [User.objects.create_user(name, f"{name}@example.test", "a-long-password-1") for name in names]


def started(players: list[User], bots: int = 0, title: str = "Skull Bay") -> Game:
    game = game_create(creator=players[0], rules_id="pirates", players=len(players) + bots, bot_seats=bots,
                       title=title)
    for person in players[1:]:
        seat_join(game_id=game.pk, user=person)
    return game_start(game_id=game.pk, by=players[0])


def to_act(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.select_related("user").get(game=game, position=game.to_act[0])


def play_greedy(game: Game, seat: Seat) -> None:
    """``seat``'s person moves through the service; the commit queues the side effects."""
    game.refresh_from_db()
    assert seat.user is not None
    rng = random.Random(game.seq)
    action = choose_action(rules_for(game), load_state(game), seat.position, "greedy", rng)
    action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)


def turn_emails(sink: Sink, user: User | None) -> list[str]:
    assert user is not None
    mine = sink.matching(lambda m: m["To"] == user.email and m["Subject"] == "Your turn in Skull Bay")
    return [text_of(m) for m in mine]


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_move_sends_next_players_turn_email_through_smtp(
    celery_worker: CeleryWorker, sink: Sink, client: Client
) -> None:
    anne, bart, cleo = people("anne", "bart", "cleo")
    game = started([anne, bart, cleo])
    first = to_act(game)
    assert first.user is not None
    wait_until(lambda: turn_emails(sink, first.user), WAIT, "the first player's turn email")

    play_greedy(game, first)
    nxt = to_act(game)
    assert nxt.user is not None and nxt.pk != first.pk
    text = wait_until(lambda: turn_emails(sink, nxt.user), WAIT, "the next player's turn email")[0]
    moved = Event.objects.get(game=game, seq=game.seq)
    assert moved.payload["text"] in text
    message = sink.matching(lambda m: m["To"] == nxt.user.email)[0]  # type: ignore[union-attr]
    # A long header is folded; unfolded it is the bracketed URL.
    assert message["List-Unsubscribe"].strip().startswith(f"<{SITE}/unsubscribe/")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    login = next(word for word in text.split() if word.startswith(f"{SITE}/l/"))
    response = client.get(login.removeprefix(SITE))
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert client.session["_auth_user_id"] == str(nxt.user.pk)
    assert client.get(response["Location"]).status_code == 200
    celery_worker.wait_idle(WAIT)
    assert len(sink.received()) == 2  # one email per turn, nothing else


def sweep() -> object:
    """The sweep, run by the worker. disable_sync_subtasks: the test runs in no task, whatever
    an earlier eager test left behind in Celery's record of the current task (tests/api does,
    when it runs first)."""
    return tasks.sweep.delay().get(timeout=WAIT, disable_sync_subtasks=False)


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_sweep_through_the_worker_times_out_a_late_turn_once(celery_worker: CeleryWorker, sink: Sink) -> None:
    players = people("anne", "bart", "cleo")
    game = started(players)
    late = to_act(game)
    wait_until(lambda: sink.received(), WAIT, "the first turn email")
    before = game.seq
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    assert sweep() == {"timeouts": 1, "reminders": 0}
    game.refresh_from_db()
    timeout = Event.objects.get(game=game, seq=before + 1)
    assert (timeout.kind, timeout.seat, timeout.actor) == ("timeout", late.position, "system:timeout")
    assert game.seq >= before + 1 and game.deadline is not None and game.deadline > timezone.now()
    nxt = to_act(game)
    assert nxt.user is not None and nxt.position != late.position

    wait_until(lambda: len(sink.matching(lambda m: m["Subject"].startswith("Timeout in Skull Bay"))) == 3,
               WAIT, "three timeout emails")
    wait_until(lambda: turn_emails(sink, nxt.user), WAIT, "the next player's turn email")

    state = (game.seq, game.deadline, Event.objects.count(), len(sink.received()))
    assert sweep() == {"timeouts": 0, "reminders": 0}
    celery_worker.wait_idle(WAIT)
    game.refresh_from_db()
    assert (game.seq, game.deadline, Event.objects.count(), len(sink.received())) == state
    assert len(sink.received()) == 1 + 3 + 1


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_mail_server_down_then_up_delivers_exactly_once(celery_worker: CeleryWorker, smtp_port: int) -> None:
    anne, bart, cleo = people("anne", "bart", "cleo")
    game = started([anne, bart, cleo])  # the turn email fails: nothing listens on the port yet
    first = to_act(game)
    assert first.user is not None
    wait_until(lambda: "Retry in" in celery_worker.text(), WAIT, "a retry in the worker's log")
    note = Notification.objects.get(game=game, kind=Notification.Kind.TURN)
    assert note.sent_at is None and note.attempts >= 1

    with smtp_server(smtp_port) as sink:
        wait_until(lambda: sink.received(), WAIT, "the email after the server came up")
        # Every retry the outage scheduled has run: a duplicate would have arrived.
        celery_worker.wait_idle(WAIT)
        messages = sink.received()
    assert [(m["To"], m["Subject"]) for m in messages] == [(first.user.email, "Your turn in Skull Bay")]
    note.refresh_from_db()
    assert note.sent_at is not None and note.attempts >= 2


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_three_bots_play_on_by_themselves_between_the_persons_moves(
    celery_worker: CeleryWorker, sink: Sink
) -> None:
    (anne,) = people("anne")
    game = started([anne], bots=3)
    mine = Seat.objects.get(game=game, user=anne)

    def my_turn() -> bool:
        game.refresh_from_db()
        return game.to_act == [mine.position]

    for round_number in range(3):
        wait_until(my_turn, WAIT, f"anne's turn (round {round_number})")
        # Her "your turn" email for this position arrives before she moves.
        def emailed(count: int = round_number + 1) -> bool:
            return len(turn_emails(sink, anne)) == count

        wait_until(emailed, WAIT, "anne's turn email")
        before = game.seq
        play_greedy(game, mine)
        def bots_moved(before: int = before) -> bool:
            return my_turn() and game.seq > before + 1

        wait_until(bots_moved, WAIT, "the bots' moves")
        between = list(Event.objects.filter(game=game, seq__gt=before + 1).order_by("seq"))
        assert len(between) >= 3
        assert {e.kind for e in between} <= {Event.Kind.BOT, Event.Kind.AUTO_PASS}
        bot_seats = {e.seat for e in between if e.kind == Event.Kind.BOT}
        assert bot_seats == {p for p in range(4) if p != mine.position}
    wait_until(lambda: len(turn_emails(sink, anne)) == 4, WAIT, "anne's fourth turn email")
    texts = turn_emails(sink, anne)
    assert all("Since your last move" in text for text in texts[1:]), "\n=====\n".join(texts)


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db
def test_sweep_queries_use_their_partial_indexes() -> None:
    from django.db import connection

    owner = User.objects.create_user("owner", "owner@example.test", "a-long-password-1")
    now = timezone.now()
    total = 100_000
    # 1,000 running games among 100,000; finished games have no deadline (settle clears it).
    # Game n is running when n % 100 == 0. Game 0 is made through the ORM, the others are
    # copies of its row made by PostgreSQL (100,000 model instances cost a minute of CPU).
    Game.objects.create(
        rules_id="pirates", rules_version=1, players=3, created_by=owner, status=Game.Status.ACTIVE,
        deadline=now - timedelta(minutes=3500), reminder_at=now - timedelta(minutes=2500),
    )
    running = "CASE WHEN mod(n, 100) = 0 THEN"
    varying = {
        "status": f"{running} %(active)s ELSE %(finished)s END",
        "deadline": f"{running} %(now)s + make_interval(mins => mod(n, 7001) - 3500) END",
        "reminder_at": f"{running} %(now)s + make_interval(mins => mod(n, 5003) - 2500) END",
        "finished_at": f"{running} NULL ELSE %(now)s - make_interval(days => mod(n, 400)) END",
    }
    columns = [str(field.column) for field in Game._meta.concrete_fields if not field.primary_key]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO games_game ({', '.join(columns)}) "
            f"SELECT {', '.join(varying.get(c, 'template.' + c) for c in columns)} "
            "FROM games_game AS template, generate_series(1, %(last)s) AS n",
            {"active": Game.Status.ACTIVE.value, "finished": Game.Status.FINISHED.value, "now": now,
             "last": total - 1},
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE games_game")
    assert Game.objects.count() == total

    # Exactly the querysets the sweep runs (games.services.timeouts.sweep_due).
    deadline_plan = due_deadlines(now).values_list("pk", "seq").explain()
    reminder_plan = due_reminders(now).values_list("pk", "seq").explain()
    assert "game_deadline_due" in deadline_plan, deadline_plan
    assert "game_reminder_due" in reminder_plan, reminder_plan
    for plan in (deadline_plan, reminder_plan):
        assert "Index Scan" in plan or "Bitmap Index Scan" in plan, plan
        assert "Seq Scan on games_game" not in plan, plan
    due = list(due_deadlines(now))
    assert due and all(g.status == Game.Status.ACTIVE and g.deadline and g.deadline <= now for g in due)
