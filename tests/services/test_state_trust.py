"""Verified caches: a cached state is used only if it was built for the
game's chain head, and a state in Redis only if it is signed with our key.

The fault-injection pass found two ways a wrong state got in: a database restored to an
earlier point and played on differently (the caches still held the lost history's state at
the same seq), and a state written under a game's Redis key by someone else. In both, GETs
showed the wrong table and a seat that was not to act had its move accepted. Here both faults
are played through the services and the API, and each time the move path and the GET answer
from the log's own state."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from rest_framework.test import APIClient

import engine
from games import services
from games.models import Game
from games.read import state
from games.read.state import SharedStates
from tests.services.support import make_users, seat_user, started_game

pytestmark = pytest.mark.django_db

OnCommit = Callable[..., Any]


def fixed_deal() -> dict[str, Any]:
    """A fixed deck and first seat: the same actions always give the same tables."""
    rules = engine.get_rules("pirates")
    dumped = rules.dump(rules.new_game(3, "trust"))
    return {"deck": sorted([*dumped["deck"], *dumped["display"]]), "first_seat": 0}


def play(game: Game, moves: int, choose: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> None:
    for _ in range(moves):
        game.refresh_from_db()
        position = game.to_act[0]
        legal = services.rules_for(game).legal_actions(services.load_state(game), position)
        services.action_submit(
            game_id=game.pk, user=seat_user(game, position), action=choose(legal), expected_seq=game.seq
        )
    game.refresh_from_db()


def first(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return legal[0]


def last(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return legal[-1]


def view_for(game: Game, value: Any, position: int) -> Any:
    return services.rules_for(game).view(value, position)


def api_get(user: User, game: Game) -> dict[str, Any]:
    client = APIClient()
    client.force_authenticate(user)
    response = client.get(f"/api/games/{game.pk}/")
    assert response.status_code == 200
    detail: dict[str, Any] = response.json()
    return detail


def refused_move(game: Game, wrong: Any) -> tuple[int, dict[str, Any]]:
    """A seat and an action that ``wrong`` allows and the game's true state refuses."""
    rules = services.rules_for(game)
    truth = services.replay_from_start(game)
    for position in rules.to_act(wrong):
        for action in rules.legal_actions(wrong, position):
            if position not in rules.to_act(truth) or action not in rules.legal_actions(truth, position):
                return position, action
    raise AssertionError("the wrong state allows nothing that the true state refuses")


def assert_the_log_decides(game: Game, wrong: Any) -> None:
    """A GET shows the true table, a move only the wrong state allows is refused, and a move
    the true state allows goes through."""
    game.refresh_from_db()
    truth = services.replay_from_start(game)
    position = game.to_act[0]
    user = seat_user(game, position)
    detail = api_get(user, game)
    assert detail["view"] == json.loads(json.dumps(view_for(game, truth, position)))
    assert detail["view"] != json.loads(json.dumps(view_for(game, wrong, position)))

    seat, action = refused_move(game, wrong)
    with pytest.raises(services.IllegalMove):
        services.action_submit(
            game_id=game.pk, user=seat_user(game, seat), action=action, expected_seq=game.seq
        )
    game.refresh_from_db()
    assert services.rules_for(game).dump(services.load_state(game)) == services.rules_for(game).dump(truth)

    good = services.rules_for(game).legal_actions(truth, position)[0]
    services.action_submit(game_id=game.pk, user=user, action=good, expected_seq=game.seq)
    assert "every hash chain holds" in replay_check_output()


def replay_check_output() -> str:
    out = StringIO()
    call_command("replay_check", "--no-progress", stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def own_shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedStates]:
    """The shared cache on the test Redis (REDIS_URL), in place of the process's own."""
    store = SharedStates(settings.REDIS_URL, timeout_seconds=60)
    monkeypatch.setattr(state, "_shared", store)
    yield store
    store.client.close()


@pytest.fixture(params=["process cache", pytest.param("redis", marks=pytest.mark.redis)])
def cache(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which cache holds the lost history's state: this process's, or (for a process that
    never saw it) only Redis."""
    state.cache_clear()
    if request.param == "redis":
        store = SharedStates(settings.REDIS_URL, timeout_seconds=60)
        monkeypatch.setattr(state, "_shared", store)
        yield request.param
        store.client.close()
    else:
        monkeypatch.setattr(state, "_shared", None)
        monkeypatch.setattr(settings, "REDIS_URL", "")
        yield request.param


def test_after_a_database_restore_the_lost_historys_cached_state_is_not_used(
    cache: str, django_capture_on_commit_callbacks: OnCommit
) -> None:
    """Dump at seq 11, play to 21, restore the dump, play on to 21 differently: the caches
    hold a state for seq 21 of the lost history, and neither the GET nor the move uses it."""
    game = started_game(make_users(3), options=fixed_deal())
    with django_capture_on_commit_callbacks(execute=True):
        play(game, 10, random.Random(3).choice)
    assert game.seq == 11
    dump_taken = transaction.savepoint()  # the database dump
    with django_capture_on_commit_callbacks(execute=True):
        play(game, 10, first)  # caches warm: every state of this history is cached on commit
    assert game.seq == 21
    lost_head = game.head
    lost = services.load_state(game)

    transaction.savepoint_rollback(dump_taken)  # the restore: the database is back at seq 11
    game.refresh_from_db()
    assert game.seq == 11
    # Played on in other processes: their states never reach this one's caches.
    play(game, 10, last)
    assert game.seq == 21 and game.head != lost_head
    if cache == "redis":
        state.cache_clear()  # a process that never saw the lost history: only Redis has it
        shared = state.shared_states()
        assert shared is not None
        raw = shared.client.get(shared.key(game))
        assert isinstance(raw, bytes)
        entry = json.loads(raw[SharedStates.SIGNATURE_LENGTH :])
        assert (entry["seq"], entry["head"]) == (21, lost_head)  # the lost history's state, signed by us
    else:
        assert state._local_get((game.pk, lost_head, 21)) is lost  # the lost history's state
    assert_the_log_decides(game, lost)


def test_a_changed_head_on_the_game_row_makes_every_cached_state_a_miss(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    """The head is the key: a game row whose head moved (as after a restore) finds nothing
    cached under the old one, and rebuilds from the log."""
    game = started_game(make_users(3), options=fixed_deal())
    with django_capture_on_commit_callbacks(execute=True):
        play(game, 4, first)
    cached = state._local_get(state.cache_key(game, game.seq))
    assert cached is not None
    game.head = "0" * 64
    assert state._local_get(state.cache_key(game, game.seq)) is None


def forge(forgery: str, shared: SharedStates, a: Game, b: Game, older: bytes) -> None:
    """Write a wrong state under A's key in Redis, the way ``forgery`` says."""
    b_state = services.load_state(b)
    if forgery == "unsigned":
        entry = {"game": a.pk, "version": a.rules_version, "seq": a.seq, "head": a.head,
                 "state": services.rules_for(b).dump(b_state)}
        shared.client.set(shared.key(a), json.dumps(entry).encode())
    elif forgery == "signed with another key":
        someone = SharedStates(settings.REDIS_URL, timeout_seconds=60, secret="someone else's key")
        someone.put(a, a.seq, a.head, b_state)
        someone.client.close()
    elif forgery == "another game's entry copied over":
        raw = shared.client.get(shared.key(b))
        assert isinstance(raw, bytes)
        shared.client.set(shared.key(a), raw)
    else:  # "an older entry of this game": signed by us, under the right key, for an older head
        shared.client.set(shared.key(a), older)


@pytest.mark.redis
@pytest.mark.parametrize(
    "forgery",
    [
        "unsigned",
        "signed with another key",
        "another game's entry copied over",
        "an older entry of this game",
    ],
)
def test_a_wrong_state_under_a_games_redis_key_is_not_used(
    forgery: str,
    own_shared: SharedStates,
    django_capture_on_commit_callbacks: OnCommit,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        a = started_game(make_users(3, "anne"), options=fixed_deal())
        play(a, 2, first)
    older = own_shared.client.get(own_shared.key(a))
    assert isinstance(older, bytes)
    older_state = services.load_state(a)
    with django_capture_on_commit_callbacks(execute=True):
        play(a, 1, first)
        b = started_game(make_users(3, "bart"), options=fixed_deal())
        play(b, 4, last)
    wrong = older_state if forgery == "an older entry of this game" else services.load_state(b)
    rules = services.rules_for(a)
    assert rules.to_act(wrong) != rules.to_act(services.replay_from_start(a))

    forge(forgery, own_shared, a, b, older)
    state.cache_clear()  # another process: only Redis could answer
    caplog.set_level(logging.WARNING, logger="games.read.state")
    assert_the_log_decides(a, wrong)
    signed_by_us = forgery == "an older entry of this game"
    warned = any("has a bad signature: ignored" in r.getMessage() for r in caplog.records)
    assert warned is not signed_by_us


@pytest.mark.redis
def test_a_state_signed_by_us_for_the_games_head_is_used(
    own_shared: SharedStates, django_capture_on_commit_callbacks: OnCommit
) -> None:
    """The checks above let the right entry through: another process skips the rebuild."""
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(make_users(3), options=fixed_deal())
        play(game, 3, first)
    state.cache_clear()
    found = own_shared.get(game)
    assert found is not None
    rules = services.rules_for(game)
    assert rules.dump(found) == rules.dump(services.replay_from_start(game))
