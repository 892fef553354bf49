"""Captain Lucky: seeded random playouts against the contract's invariants (in the manner of
OpenSpiel's random_sim_test), dump/load, determinism, refused inputs, the greedy evaluation and
the greedy bot."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAction, InvalidSnapshot
from engine.captain_lucky.cards import KINDS
from engine.captain_lucky.state import LuckyState
from engine.captain_lucky.strategy import win_chance
from tests.engine.captain_lucky_support import (
    NAMES,
    RULES,
    check_invariants,
    json_round_trip,
    playout,
    situation,
)

GAMES = {2: 40, 3: 30, 4: 30, 5: 20, 6: 20}


@pytest.mark.parametrize("players", sorted(GAMES))
def test_k_act_random_playouts_keep_every_invariant(players: int) -> None:
    """K-ACT, K-SET-3, K-END-1: random games end, every state keeps every card once and
    sets within 5, every sentence names its seat, and a finished game has a result."""
    lengths = []
    for seed in range(GAMES[players]):
        final, steps = playout(players, f"{players}:{seed}")
        lengths.append(len(steps))
        for state, seat, action in steps:
            check_invariants(state)
            assert action in RULES.legal_actions(state, seat)
            text = RULES.step(state, seat, action).text
            assert text.endswith(".") and text.split()[0] in NAMES[:players]
        check_invariants(final)
        assert RULES.is_finished(final) and RULES.to_act(final) == [] and final.pile == ()
        result = RULES.result(final)
        assert result is not None and len(result["scores"]) == players and result["winners"]
        assert all(RULES.legal_actions(final, s) == [] for s in range(players))
    assert max(lengths) < 1000


def test_k_end_1_every_seat_has_as_many_turns() -> None:
    """K-END-1: counting turns (a place, or a steal without a place) per seat, every finished
    game gives each seat the same number."""
    for players in (2, 4, 6):
        for seed in range(6):
            _, steps = playout(players, f"turns:{players}:{seed}")
            turns = [0] * players
            previous = None
            for _, seat, _ in steps:
                if seat != previous:
                    turns[seat] += 1
                previous = seat
            last = RULES.step(steps[-1][0], steps[-1][1], steps[-1][2]).text
            skipped = last.count("has no cards and nothing to steal.")
            assert steps[-1][1] == players - 1 or skipped
            assert max(turns) - min(turns) <= (1 if skipped else 0)


def check_round_trip(state: LuckyState) -> None:
    dumped = RULES.dump(state)
    again = json_round_trip(dumped)
    assert again == dumped
    loaded = RULES.load(again)
    assert loaded == state
    assert RULES.dump(loaded) == dumped


def test_load_refuses_broken_snapshots() -> None:
    state = RULES.apply(
        situation(4, hands={0: {"ruby": 5}}, middle=[(1, "ruby", 2)], phase="steal", dice=[False, True]),
        0,
        {"type": "steal", "set": "m1"},
    )
    dumped = RULES.dump(state)
    assert dumped["phase"] == "roll" and dumped["steal"] == {"set": "m1", "dice": ["blank", "head"]}
    check_round_trip(state)
    hands = dumped["hands"]
    broken: list[Any] = [
        {},
        [],
        {**dumped, "extra": 1},
        {**dumped, "rules": "pirates"},
        {**dumped, "version": 2},
        {**dumped, "players": 7},
        {**dumped, "pile": dumped["pile"][1:]},
        {**dumped, "pile": ["diamond", *dumped["pile"][1:]]},
        {**dumped, "hands": [{**hands[0], "ruby": 6}, *hands[1:]]},
        {**dumped, "hands": [{"ruby": 1}, *hands[1:]]},
        {**dumped, "middle": [{"id": "m1", "kind": "ruby", "cards": 6}]},
        {**dumped, "middle": [{"id": "m9", "kind": "ruby", "cards": 2}]},
        {**dumped, "middle": [{"id": "p1s1", "kind": "ruby", "cards": 2}]},
        {**dumped, "collections": [[], [], []]},
        {**dumped, "next_set": [1, 1, 1, 0]},
        {**dumped, "captain_used": [0, 0, 0, 0]},
        {**dumped, "active": 4},
        {**dumped, "phase": "sleeping"},
        {**dumped, "phase": "over"},
        {**dumped, "steal": None},
        {**dumped, "steal": {"set": "m1", "dice": ["head", "head"]}},
        {**dumped, "steal": {"set": "m1", "dice": ["blank"]}},
        {**dumped, "steal": {"set": "m2", "dice": ["blank", "head"]}},
        {**dumped, "last_roll": {**dumped["last_roll"], "rolled": [1, 0]}},
        {**dumped, "last_roll": {**dumped["last_roll"], "by": "magic"}},
        {**dumped, "last_roll": {**dumped["last_roll"], "dice": ["head"]}},
        {**dumped, "actions": -1},
        {**dumped, "rng": {"version": 3, "internal": [1, 2], "gauss_next": None}},
    ]
    for data in broken:
        with pytest.raises(InvalidSnapshot):
            RULES.load(data)


def mutations(action: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Variants of an action: every key changed to other values of its kind, plus junk."""
    variants = [{**action, "extra": 1}]
    variants += [{k: v for k, v in action.items() if k != key} for key in action]
    for key, value in action.items():
        if key == "type":
            options: list[Any] = ["place", "steal", "reroll", "captain_bonus", "stop", "Stop", "pass"]
        elif key == "kind":
            options = [*KINDS, "Ruby", None, 0]
        elif key == "set":
            somebody = f"p{rng.randrange(6)}s{rng.randrange(1, 4)}"
            options = ["m1", "m2", "m3", "m7", somebody, "p1s1", "m", None, 3]
        else:
            options = [value + 1, value - 1, float(value), True, False, str(value), None, 0, 6]
        variants += [{**action, key: o} for o in options if o != value or type(o) is not type(value)]
    return variants


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(min_value=2, max_value=6), seed=st.integers() | st.text(max_size=8))
def test_k_act_mutated_actions_are_refused_unless_legal(players: int, seed: int | str) -> None:
    """K-ACT: an action applies exactly when legal_actions lists it; wrong seats, changed ids,
    extra or missing keys and float/bool/str numbers are refused with IllegalAction."""
    _, steps = playout(players, seed)
    rng = random.Random(str(seed))
    for state, seat, action in steps[:: max(1, len(steps) // 10)]:
        legal = RULES.legal_actions(state, seat)
        for other in range(players):
            if other != seat:
                with pytest.raises(IllegalAction):
                    RULES.apply(state, other, action)
        for variant in mutations(dict(action), rng):
            listed = any(variant == a and all(type(variant[k]) is type(a[k]) for k in a) for a in legal)
            if listed:
                RULES.apply(state, seat, variant)
            else:
                with pytest.raises(IllegalAction):
                    RULES.apply(state, seat, variant)


def test_k_turn_5_win_chance_counts_the_free_reroll() -> None:
    """K-TURN-5, K-COMP-2: n dice win with 1/2**n; a captain bonus left adds a free re-roll."""
    assert win_chance(1, False) == 0.5 and win_chance(3, False) == 0.125
    assert win_chance(1, True) == 0.75
    assert win_chance(2, True) == pytest.approx(0.25 + 2 * 0.25 * 0.5 + 0.25 * 0.25)


def test_k_turn_7_the_greedy_evaluation_never_sees_the_dice_before_choosing() -> None:
    """K-TURN-7: the greedy bot scores each action on the state after it, where the dice are
    already thrown; the evaluation counts that roll at its odds, so the same choice scores the
    same whatever the generator would throw."""
    checked = 0
    for seed in range(12):
        _, steps = playout(4, f"greedy:{seed}")
        for state, seat, _ in steps:
            if state.phase not in ("steal", "roll"):
                continue
            other = state._replace(rng_state=random.Random(f"other:{seed}:{checked}").getstate())
            for action in RULES.legal_actions(state, seat):
                one = RULES.evaluate(RULES.apply(state, seat, action), seat)
                two = RULES.evaluate(RULES.apply(other, seat, action), seat)
                assert one == pytest.approx(two), (action, one, two)
                checked += 1
    assert checked > 400


def test_k_end_2_greedy_beats_random_players() -> None:
    """K-END-2: the greedy bot (score if the game ended now, minus the best opponent's) wins
    more often than a random player would."""
    wins = 0.0
    games = 40
    for seed in range(games):
        seat = seed % 4
        bots = ["random"] * 4
        bots[seat] = "greedy"
        final, _ = playout(4, f"match:{seed}", bots)
        result = RULES.result(final)
        assert result is not None
        if seat in result["winners"]:
            wins += 1 / len(result["winners"])
    assert wins / games > 0.4
