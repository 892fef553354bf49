"""Seeded random playouts at every player count against the contract's invariants (in the
manner of OpenSpiel's random_sim_test), dump/load, replay determinism, arrival-order
independence, the greedy bot, and the view's keys."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import InvalidSnapshot
from engine.base import Action
from engine.libertalia.state import LibertaliaState
from tests.engine.libertalia_support import RULES, check_invariants, game, json_round_trip, playout, situation

GAMES = {2: 12, 3: 12, 4: 12, 5: 8, 6: 8}
NAMES = {"Yellow", "Red", "Blue", "Green", "Black", "Grey"}


@pytest.mark.parametrize("players", sorted(GAMES))
def test_random_playouts_keep_every_invariant(players: int) -> None:
    """L-COMP-3, L-COMP-4, L-ORD-2, L-DEC-5, L-WIN-1: random games end after 3 campaigns and
    never break an invariant; every sentence starts with a seat's name and ends a sentence."""
    for seed in range(GAMES[players]):
        final, steps = playout(players, f"{players}:{seed}")
        for state, seat, action in steps:
            check_invariants(state)
            assert action in RULES.legal_actions(state, seat)
            step = RULES.step(state, seat, action)
            assert step.text.split()[0].removesuffix("'s") in NAMES and step.text.endswith(".")
        check_invariants(final)
        assert RULES.is_finished(final) and RULES.to_act(final) == []
        result = RULES.result(final)
        assert result is not None and len(result["scores"]) == players and result["winners"]
        assert result["scores"] == [sum(f[s] for f in final.fortunes) for s in range(players)]
        assert all(RULES.legal_actions(final, s) == [] for s in range(players))


def _per_seat_policy(seed: int) -> Any:
    """Each seat's choice depends only on what that seat knows and how many choices it made:
    the same decisions whatever order simultaneous answers arrive in."""
    made: dict[int, int] = {}

    def choose(state: LibertaliaState, seat: int) -> Action:
        made[seat] = made.get(seat, 0) + 1
        actions = RULES.legal_actions(state, seat)
        return random.Random(f"{seed}:{seat}:{made[seat]}").choice(actions)

    return choose


@pytest.mark.parametrize("seed", range(4))
def test_l_dec_2_arrival_order_never_changes_the_game(seed: int) -> None:
    """L-DEC-2, L-SUN-1, L-NIGHT-3: Sunrise choices and Waitress answers arriving lowest seat
    first or highest seat first give the same game."""
    finals = []
    for pick in (min, max):
        policy = _per_seat_policy(seed)
        state = RULES.new_game(4, f"order:{seed}")
        for _ in range(2000):
            if RULES.is_finished(state):
                break
            seat = pick(RULES.to_act(state))
            state = RULES.apply(state, seat, policy(state, seat))
        finals.append(json.dumps(RULES.dump(state), sort_keys=True))
    assert finals[0] == finals[1]


def test_greedy_bot_plays_whole_games_and_beats_random_play() -> None:
    """The rule set's evaluate lets a one-ply greedy bot play every decision."""
    wins = 0
    games = 12
    for seed in range(games):
        seat = seed % 3
        bots = ["random"] * 3
        bots[seat] = "greedy"
        final, _ = playout(3, f"greedy:{seed}", bots)
        result = RULES.result(final)
        assert result is not None
        wins += seat in result["winners"]
    assert wins >= games // 2, f"greedy won only {wins} of {games}"


def test_evaluate_prefers_more_for_me_and_less_for_others() -> None:
    state = situation(booty={0: {"chest": 1}})
    richer = situation(booty={0: {"chest": 2}})
    assert RULES.evaluate(richer, 0) > RULES.evaluate(state, 0)
    assert RULES.evaluate(richer, 1) < RULES.evaluate(state, 1)


def test_load_refuses_broken_snapshots() -> None:
    state = game(4)
    dumped = RULES.dump(state)
    assert dumped["rng"]["version"] == 3 and len(dumped["rng"]["internal"]) == 625
    broken: list[dict[str, Any]] = [
        {},
        {**dumped, "extra": 1},
        {**dumped, "rules": "pirates"},
        {**dumped, "version": 2},
        {**dumped, "players": 7},
        {**dumped, "colours": ["yellow", "yellow", "blue", "green"]},
        {**dumped, "campaign": 4},
        {**dumped, "phase": "lunch"},
        {**dumped, "hands": [[1, 2, 3]] * 4},
        {**dumped, "hands": [list(reversed(h)) for h in dumped["hands"]]},
        {**dumped, "bag": [0] * 7},
        {**dumped, "doubloons": [-1, 10, 10, 10]},
        {**dumped, "decision": "gunner"},
        {**dumped, "night": [True, False, False, False]},
        {**dumped, "fortunes": [[1, 2, 3, 4]]},
        {**dumped, "picks": [0, 0, 0, 0], "hands": [[], [], [], []]},
        {**dumped, "character_set": "nope"},
        {**dumped, "fixed_draws": ["gold"]},
        {**dumped, "rng": {"version": 3, "internal": [1, 2], "gauss_next": None}},
    ]
    for data in broken:
        with pytest.raises(InvalidSnapshot):
            RULES.load(data)


VIEW_KEYS = {
    "rules", "version", "title", "viewer", "players", "colours", "status", "to_act", "result",
    "action_count", "character_set", "booty_names", "campaign", "day", "phase", "dealt", "ship",
    "spaces", "bag_count", "pending", "seats", "hand", "graveyard", "removed", "pick", "prompt",
    "characters", "scoring",
}  # fmt: skip
SEAT_KEYS = {
    "seat", "colour", "name", "doubloons", "booty", "den", "hand_count", "graveyard_count",
    "removed_count", "chosen", "fortunes", "score",
}  # fmt: skip


def test_view_keys() -> None:
    """The view carries the documented keys (engine/libertalia/README.md)."""
    state = game(4)
    view = RULES.view(state, 1)
    assert set(view) == VIEW_KEYS
    assert set(view["seats"][0]) == SEAT_KEYS
    assert (view["rules"], view["version"], view["title"], view["viewer"]) == (
        "libertalia",
        1,
        "Libertalia",
        1,
    )
    assert view["status"] == "running" and view["to_act"] == [0, 1, 2, 3] and view["phase"] == "sunrise"
    assert view["prompt"]["decision"] == "play" and len(view["prompt"]["actions"]) == 9
    assert len(view["characters"]) == 30 and view["characters"][0]["name"] == "Parrot"
    assert view["characters"][13]["influence"] == [6, 1, 2, 3]
    assert json_round_trip(view) == view
    final, _ = playout(2, "keys")
    finished = RULES.view(final, None)
    assert set(finished) == VIEW_KEYS and finished["status"] == "finished"
    assert set(finished["scoring"][0]) == {"seat", "fortunes", "score", "last_campaign"}
