"""The caches in front of state rebuilds (games/read/state.py).

A state enters a cache only when the append that produced it commits; the shared cache in
Redis lets another process skip the rebuild; a failing Redis costs speed, never a move. Each
check compares with ``replay_from_start``, which ignores every cache and snapshot."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoAssertNumQueries

from games import services
from games.models import Game
from games.read import state
from games.read.state import SharedStates
from games.services import play
from tests.services.support import legal_for, make_users, seat_user, started_game

pytestmark = pytest.mark.django_db


def dump(game: Game, value: Any) -> Any:
    return services.rules_for(game).dump(value)


def truth(game: Game) -> Any:
    game.refresh_from_db()
    return dump(game, services.replay_from_start(game))


def submit(game: Game, choice: int = 0) -> services.Submitted:
    game.refresh_from_db()
    position = game.to_act[0]
    action = legal_for(game, position)[choice]
    return services.action_submit(
        game_id=game.pk, user=seat_user(game, position), action=action, expected_seq=game.seq
    )


@pytest.fixture
def game() -> Game:
    return started_game(make_users(3))


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedStates]:
    """The shared cache on the test Redis (REDIS_URL), in place of the process's own."""
    store = SharedStates(settings.REDIS_URL, timeout_seconds=60)
    monkeypatch.setattr(state, "_shared", store)
    yield store
    store.client.close()


def test_a_committed_move_is_cached_for_the_process(
    game: Game, django_capture_on_commit_callbacks: Any, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        submit(game)
    game.refresh_from_db()
    with django_assert_num_queries(0):
        cached = services.load_state(game)
    assert dump(game, cached) == truth(game)


def test_a_rolled_back_move_leaves_no_state_behind(
    game: Game, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = game.seq
    state.cache_clear()  # states of earlier tests' games (ids are reused) are not this one's

    def lost_connection(*_args: object) -> None:
        raise RuntimeError("the database went away")

    # The last statement of a move, after its event is inserted.
    monkeypatch.setattr(play.rows, "settle_position", lost_connection)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        submit(game, choice=0)
    game.refresh_from_db()
    assert game.seq == before
    assert not [key for key in state._cache if key[0] == game.pk and key[2] == before + 1]

    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        submit(game, choice=-1)  # another move takes that seq
    game.refresh_from_db()
    assert game.seq == before + 1
    assert dump(game, services.load_state(game)) == truth(game)


def test_without_redis_there_is_no_shared_cache(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "_shared", None)
    settings.REDIS_URL = ""
    assert state.shared_states() is None


def test_a_redis_that_is_down_costs_a_rebuild_and_is_then_left_alone(
    game: Game,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    down = SharedStates("redis://127.0.0.1:1/0", timeout_seconds=60)  # nothing listens on port 1
    monkeypatch.setattr(state, "_shared", down)
    caplog.set_level(logging.WARNING, logger="games.read.state")
    with django_capture_on_commit_callbacks(execute=True):
        submit(game)  # the move goes through although its reads and writes of Redis fail
    state.cache_clear()
    game.refresh_from_db()
    assert dump(game, services.load_state(game)) == truth(game)
    warnings = [r.getMessage() for r in caplog.records if "shared state cache" in r.getMessage()]
    # One warning: after the first failure the cache rests instead of failing on every call.
    assert len(warnings) == 1 and "failed for game" in warnings[0] and "not used for 30 s" in warnings[0]
    assert down.get(game) is None  # resting: no new attempt, no new warning
    assert len([r for r in caplog.records if "shared state cache" in r.getMessage()]) == 1


@pytest.mark.redis
def test_another_process_finds_the_latest_state_in_redis(
    game: Game,
    shared: SharedStates,
    django_capture_on_commit_callbacks: Any,
    django_assert_num_queries: DjangoAssertNumQueries,
) -> None:
    for _ in range(4):
        with django_capture_on_commit_callbacks(execute=True):
            submit(game)
    game.refresh_from_db()
    state.cache_clear()  # as in another process: only Redis has it
    with django_assert_num_queries(0):
        found = services.load_state(game)
    assert dump(game, found) == truth(game)


@pytest.mark.redis
def test_a_shared_entry_for_another_seq_is_not_used(
    game: Game, shared: SharedStates, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        submit(game)
    game.refresh_from_db()
    older = game.seq
    assert shared.get(game) is not None
    submit(game)  # commits nothing here: its state reaches no cache, Redis keeps seq `older`
    game.refresh_from_db()
    assert game.seq == older + 1
    state.cache_clear()
    assert shared.get(game) is None
    assert dump(game, services.load_state(game)) == truth(game)


@pytest.mark.redis
def test_an_unreadable_shared_entry_is_a_miss(
    game: Game, shared: SharedStates, caplog: pytest.LogCaptureFixture
) -> None:
    shared.client.set(shared.key(game), b"\x80 not a state")
    state.cache_clear()
    caplog.set_level(logging.WARNING, logger="games.read.state")
    assert dump(game, services.load_state(game)) == truth(game)
    assert any("has a bad signature: ignored" in r.getMessage() for r in caplog.records)

    body = b'{"game": "not json'  # signed with our key, yet unreadable: still a miss
    shared.client.set(shared.key(game), shared.sign(shared.key(game), body) + body)
    assert shared.get(game) is None
    assert any("cannot be read" in r.getMessage() for r in caplog.records)


def libertalia_game() -> Game:
    users = make_users(3, prefix="lib")
    game = services.game_create(creator=users[0], rules_id="libertalia", players=3, is_public=True)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    assert len(game.to_act) == 3  # the first Sunrise: every seat picks at once
    return game


@pytest.mark.redis
def test_a_pick_sent_at_the_seq_before_another_seats_is_checked_from_the_recent_shared_state(
    shared: SharedStates, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = libertalia_game()
    read, head_read = game.seq, game.head
    first, second, third = sorted(game.to_act)
    picks = {seat: legal_for(game, seat)[0] for seat in (first, second, third)}
    with django_capture_on_commit_callbacks(execute=True):
        services.action_submit(
            game_id=game.pk, user=seat_user(game, first), action=picks[first], expected_seq=read
        )
    game.refresh_from_db()
    # The state the other seats read is still in Redis under its seq, for its chain hash only.
    found = shared.get_recent(game, read, head_read)
    assert found is not None and dump(game, found) == dump(game, services.replay_from_start(game, read))
    assert shared.get_recent(game, read, game.head) is None  # another history's state at that seq

    # Another process (nothing cached locally) takes the second pick, sent at ``read``: the
    # check starts from the recent state, not from a snapshot and the events after it.
    state.cache_clear()
    with CaptureQueriesContext(connection) as queries, django_capture_on_commit_callbacks(execute=True):
        services.action_submit(
            game_id=game.pk, user=seat_user(game, second), action=picks[second], expected_seq=read
        )
    assert not [q for q in queries.captured_queries if "games_snapshot" in q["sql"]]

    # Without the recent entry the same check rebuilds the state, and still accepts the pick.
    shared.client.delete(shared.recent_key(game, read))
    state.cache_clear()
    with CaptureQueriesContext(connection) as queries:
        services.action_submit(
            game_id=game.pk, user=seat_user(game, third), action=picks[third], expected_seq=read
        )
    assert [q for q in queries.captured_queries if "games_snapshot" in q["sql"]]
    game.refresh_from_db()
    assert game.seq >= read + 3
    assert dump(game, services.load_state(game)) == truth(game)


@pytest.mark.redis
def test_a_rule_set_without_simultaneous_decisions_keeps_no_recent_states(
    game: Game, shared: SharedStates, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        submit(game)
    game.refresh_from_db()
    assert shared.get(game) is not None  # the latest state, as ever
    assert not shared.client.exists(shared.recent_key(game, game.seq))  # only decisions read it
