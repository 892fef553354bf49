"""The database work of the hottest requests, counted: a move (POST .../actions/) and a look at
the game (GET /api/games/<id>/), for every rule set, with the game's state in the cache as it
is in steady play. A count, not a time: a change that adds a query to every move fails here
and has to say why (the API benchmark, benchmarks/api_bench.py, shows what each one costs)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

import engine
from games import outbox, services
from games.models import Game, PlayerProfile, Seat
from tests.api.conftest import ClientFor

# Real transactions (the state cache is filled when a move commits, as in production).
pytestmark = pytest.mark.django_db(transaction=True)

# Statements per request, the game's state in this process's cache. A move: the token with
# its user; the game row locked with its creator and its seats with their players and time
# away; the event insert; the game's read columns, the seats' must_act and whether the game
# has a live webhook (one statement on PostgreSQL, three on SQLite: games/rows.py,
# settle_position); the outbox rows; all in one transaction. A GET: the token with its user,
# the game with its creator and seats.
MOVE_QUERIES = 5 if connection.vendor == "postgresql" else 7
GET_QUERIES = 2


def started(rules_id: str, users: list[User]) -> Game:
    game = services.game_create(creator=users[0], rules_id=rules_id, players=len(users), title="counted")
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    return game


def statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements run, less transaction control (PostgreSQL's backend logs BEGIN and
    COMMIT, SQLite's only BEGIN)."""
    sqls = [query["sql"][:120] for query in queries.captured_queries]
    return [sql for sql in sqls if sql.split()[0].upper() not in ("BEGIN", "COMMIT")]


@pytest.mark.parametrize("rules_id", [rules_id for rules_id, _title in engine.available_rules()])
def test_a_move_and_a_look_cost_the_same_few_queries_in_every_rule_set(
    rules_id: str, users: list[User], client_for: ClientFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The relay's nudge after each commit is a broker publish in production; the tests' eager
    # Celery would run the relay and the emails right here, inside the request counted.
    nudges: list[dict[str, Any]] = []

    def publish_relay(**kwargs: Any) -> bool:
        nudges.append(kwargs)
        return True

    monkeypatch.setattr(outbox, "publish_relay", publish_relay)
    PlayerProfile.objects.bulk_create([PlayerProfile(user=user) for user in users])
    game = started(rules_id, users)
    clients = {seat.position: client_for(seat.user) for seat in Seat.objects.filter(game=game) if seat.user}
    rng = random.Random(7)
    counted = 0
    for _ in range(14):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        client = clients[game.to_act[0]]
        detail = client.get(f"/api/games/{game.pk}/").json()
        with CaptureQueriesContext(connection) as looked:
            again = client.get(f"/api/games/{game.pk}/")
        assert again.status_code == 200
        assert len(statements(looked)) == GET_QUERIES, statements(looked)
        body = {"action": rng.choice(detail["legal_actions"]), "expected_seq": detail["seq"]}
        nudges.clear()  # the lobby's (seats filled) and those of earlier moves
        with CaptureQueriesContext(connection) as moved:
            answer = client.post(f"/api/games/{game.pk}/actions/", body, format="json")
        assert answer.status_code == 201, answer.content
        # A forced pass after the move inserts its event too (P-TURN-1), and every
        # SNAPSHOT_EVERY events a snapshot is written: those are the only extra statements.
        events = answer.json()["game"]["seq"] - detail["seq"]
        snapshots = sum(1 for sql in statements(moved) if 'INSERT INTO "games_snapshot"' in sql)
        assert len(statements(moved)) == MOVE_QUERIES + (events - 1) + snapshots, statements(moved)
        assert nudges == [{}]  # one nudge after the commit: the turn row is due at once (grace 0)
        counted += 1
    assert counted >= 5
