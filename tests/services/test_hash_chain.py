"""A tamper-evident log: every event carries a hash over the previous
event's hash and its own content (engine/chain.py), whatever code path appended it, and the
game row carries the last one (the head) in the same UPDATE as its other read columns.
``replay_check`` recomputes every hash and names the game and seq of a changed event, even a
change the replay alone cannot see; old games are chained by the migration and verify too."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings
from rest_framework.test import APIClient

from engine.chain import GENESIS, event_hash, verify
from games import services
from games.models import Event, Game, Seat
from games.read.state import cache_clear
from tests.services.support import make_users, play_one, play_to_end, started_game, user_to_act

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def recomputed(events: list[Event]) -> list[str]:
    """Each event's hash from its stored content and the recomputed hash before it."""
    hashes, prev = [], GENESIS
    for event in events:
        prev = event_hash(
            prev, seq=event.seq, kind=event.kind, seat=event.seat, payload=event.payload, actor=event.actor
        )
        hashes.append(prev)
    return hashes


def replay_check() -> str:
    out = StringIO()
    call_command("replay_check", "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


def failing_replay_check(summary: str) -> str:
    """What replay_check prints when it fails (exit status 1) with ``summary``."""
    out = StringIO()
    with pytest.raises(CommandError, match=summary) as raised:
        call_command("replay_check", "--no-progress", stdout=out, stderr=StringIO())
    assert raised.value.returncode == 1
    return out.getvalue()


def tamper(sql: str, params: list[Any]) -> None:
    """Change a stored event behind the application's back. On PostgreSQL the append-only
    trigger refuses that, so (as the table's owner could) switch it off for this statement."""
    postgres = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        if postgres:
            # The test's own inserts leave deferred foreign-key checks pending, which ALTER
            # TABLE refuses to run over: check them now.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("ALTER TABLE games_event DISABLE TRIGGER games_event_append_only")
        cursor.execute(sql, params)
        if postgres:
            cursor.execute("ALTER TABLE games_event ENABLE TRIGGER games_event_append_only")
    cache_clear()


@pytest.fixture
def game(settings: Settings) -> Game:
    """A game whose log holds every kind of event: game_started, players' actions, a bot
    seat's moves, timeouts, and a seat handed to a bot after repeated timeouts."""
    settings.TIMEOUTS_BEFORE_BOT = 2
    started = started_game(make_users(3), bots=1)
    rng = random.Random(11)
    for _ in range(200):
        started.refresh_from_db()
        assert started.status == Game.Status.ACTIVE, "the game ended before its log held every kind"
        if Event.objects.filter(game=started, kind=Event.Kind.SEAT_TO_BOT).exists():
            break
        bots = Seat.objects.filter(game=started, position__in=started.to_act, user__isnull=True)
        if bots.exists() or Seat.objects.filter(game=started, replaced_by_bot=True).exists():
            services.bot_play(game_id=started.pk, expected_seq=started.seq)  # its task, run here
        elif started.seq < 8:
            play_one(started, rng)
        else:  # from here on people only run out of time, and are handed to bots in turn
            assert started.deadline is not None
            services.timeout_apply(
                game_id=started.pk, expected_seq=started.seq, now=started.deadline + timedelta(minutes=1)
            )
    started.refresh_from_db()
    return started


def test_every_appended_event_carries_the_hash_of_its_content_and_the_one_before(game: Game) -> None:
    events = list(Event.objects.filter(game=game).order_by("seq"))
    kinds = {event.kind for event in events}
    assert {"game_started", "action", "bot", "timeout", "seat_to_bot"} <= kinds
    assert [event.hash for event in events] == recomputed(events)
    assert game.head == events[-1].hash and game.seq == events[-1].seq
    rows = [{"seq": e.seq, "kind": e.kind, "seat": e.seat, "payload": e.payload, "actor": e.actor,
             "hash": e.hash} for e in events]
    assert verify(rows) == game.head
    assert "every hash chain holds" in replay_check()


def test_a_move_writes_the_head_in_the_update_it_already_makes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The chain costs the move path no query: the hash is computed from what is inserted,
    and the head rides in the one UPDATE of the game row."""
    game = started_game(make_users(3))
    user = user_to_act(game)
    with django_capture_on_commit_callbacks(execute=True):
        state = services.load_state(game)  # warm, as after the previous move
    action = services.rules_for(game).legal_actions(state, game.to_act[0])[0]
    with CaptureQueriesContext(connection) as queries:
        submitted = services.action_submit(game_id=game.pk, user=user, action=action, expected_seq=game.seq)
    statements = [
        q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]
    # Lock the game row with its seats, insert the event, update the game, mark the seats to
    # act, ask whether the game has a live webhook (an indexed EXISTS; on PostgreSQL these
    # three are one statement), and write the side effects this position owes (the outbox row)
    # in the same transaction.
    assert len(statements) == (4 if connection.vendor == "postgresql" else 6)
    game_updates = [q["sql"] for q in queries.captured_queries if 'UPDATE "games_game" SET' in q["sql"]]
    assert len(game_updates) == 1 and '"head" = ' in game_updates[0] and '"seq" = ' in game_updates[0]
    game.refresh_from_db()
    assert game.head == submitted.event.hash == Event.objects.get(game=game, seq=game.seq).hash


def test_a_changed_payload_fails_replay_check_naming_the_game_and_seq(game: Game) -> None:
    """Only the sentence of an event changes: the replay alone would not notice."""
    event = Event.objects.filter(game=game, kind=Event.Kind.ACTION).order_by("seq")[2]
    payload = dict(event.payload, text="Red captures every ship on the sea, the rulebook be damned.")
    stored = Event._meta.get_field("payload").get_db_prep_value(payload, connection)
    tamper("UPDATE games_event SET payload = %s WHERE id = %s", [stored, event.pk])
    assert Event.objects.get(pk=event.pk).payload["text"].startswith("Red captures every ship")
    text = failing_replay_check(r"1 difference\(s\) in 1 of 1 game\(s\)")
    assert f"DIFFERENCE game {game.pk} seq {event.seq}: the hash chain is broken" in text
    assert text.count("DIFFERENCE") == 1  # the events after it still link to its stored hash


def test_a_changed_hash_or_head_fails_replay_check(game: Game) -> None:
    event = Event.objects.get(game=game, seq=5)
    tamper("UPDATE games_event SET hash = %s WHERE id = %s", ["f" * 64, event.pk])
    text = failing_replay_check(r"2 difference\(s\) in 1 of 1 game\(s\)")
    # Event 5's stored hash is not its content's, and event 6 no longer links to it.
    assert f"DIFFERENCE game {game.pk} seq 5: the hash chain is broken: stored hash {'f' * 64}" in text
    assert f"DIFFERENCE game {game.pk} seq 6: the hash chain is broken" in text

    tamper("UPDATE games_event SET hash = %s WHERE id = %s", [event.hash, event.pk])  # put back
    Game.objects.filter(pk=game.pk).update(head="e" * 64)
    text = failing_replay_check(r"1 difference\(s\) in 1 of 1 game\(s\)")
    assert f"DIFFERENCE game {game.pk}: column head is {'e' * 64}, the last event (seq {game.seq})" in text


@pytest.mark.django_db(transaction=True)
def test_the_migration_chains_games_played_before_it() -> None:
    """Games played before 0003 get their hashes and head in seq order, and verify."""
    game = started_game(make_users(3))
    rng = random.Random(5)
    for _ in range(6):
        play_one(game, rng)
    game.refresh_from_db()
    expected = list(Event.objects.filter(game=game).order_by("seq").values_list("hash", flat=True))

    executor = MigrationExecutor(connection)
    try:
        executor.migrate([("games", "0002_event_append_only_trigger")])
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM games_event WHERE game_id = %s", [game.pk])
            assert cursor.fetchone() == (7,)  # the events, without their hashes
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes("games"))

    game.refresh_from_db()
    assert list(Event.objects.filter(game=game).order_by("seq").values_list("hash", flat=True)) == expected
    assert game.head == expected[-1]
    cache_clear()
    assert "every hash chain holds" in replay_check()
    play_one(game, rng)  # new moves continue the migrated chain
    assert "every hash chain holds" in replay_check()


def run_engine_replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_the_export_carries_the_hashes_and_engine_replay_checks_them(tmp_path: Path) -> None:
    """An outside verifier needs only the export and `python -m engine replay`."""
    users = make_users(3)
    game = play_to_end(started_game(users), seed=2)
    client = APIClient()
    client.force_authenticate(users[1])
    response = client.get(f"/api/games/{game.pk}/export/")
    assert response.status_code == 200
    lines = response.content.decode("utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    stored = dict(Event.objects.filter(game=game).values_list("seq", "hash"))
    assert {event["seq"]: event["hash"] for event in events[:-1]} == stored
    assert events[-2]["hash"] == game.head

    path = tmp_path / f"game-{game.pk}.jsonl"
    path.write_bytes(response.content)
    accepted = run_engine_replay(path)
    assert accepted.returncode == 0, accepted.stderr
    assert f"the chain's head is {game.head}" in accepted.stdout
    assert "The recorded result matches the replay." in accepted.stdout

    for change in ("action", "hash"):
        altered = [dict(event) for event in events]
        target = next(e for e in altered[3:] if e["payload"].get("action") not in (None, {"type": "pass"}))
        if change == "action":
            target["payload"] = dict(target["payload"], action={"type": "pass"})
        else:
            target["hash"] = "0" * 64
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in altered), "utf-8")
        refused = run_engine_replay(path)
        assert refused.returncode == 1, change
        seq = target["seq"]
        assert refused.stderr.startswith(f"error: seq {seq} (line {seq}): the hash chain breaks here"), change
        assert len(refused.stderr.splitlines()) == 1
