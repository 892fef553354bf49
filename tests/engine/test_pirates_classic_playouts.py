"""Pirates (classic): seeded random playouts against the contract's invariants (in the manner
of OpenSpiel's random_sim_test), dump/load, determinism, refused mutations and the secrecy
of the deck."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAction, InvalidSnapshot
from engine.pirates.state import PIRATE_IDS
from engine.pirates_classic.state import ClassicState
from tests.engine.pirates_classic_support import (
    ALL_SHIPS,
    RULES,
    check_invariants,
    playout,
    situation,
)

GAMES = {3: 40, 4: 40, 5: 40}
NAMES = {"Red", "Blue", "Green", "Yellow", "Black"}


def check_view_secrecy(state: ClassicState) -> None:
    hidden = [state.card_set.ids[s] for s in state.deck]
    for seat in [None, *range(state.players)]:
        view = RULES.view(state, seat)
        text = json.dumps(view)
        assert json.loads(text) == view
        for key in ("seed", "deck", "rng", "rng_state", "internal"):
            assert f'"{key}"' not in text
        assert not [ship for ship in hidden if f'"{ship}"' in text], "a deck ship shows in the view"
        assert view["deck_count"] == len(hidden)


@pytest.mark.parametrize("players", sorted(GAMES))
def test_p_party_2_random_playouts_keep_every_invariant(players: int) -> None:
    """P-PARTY-2, P-PARTY-3, C-SET-3, C-BOARD-3, C-MUT-2, C-TURN-1: random games end, every
    action was listed, and no state breaks a rule."""
    for seed in range(GAMES[players]):
        final, steps = playout(players, f"{players}:{seed}")
        for state, seat, action in steps:
            check_invariants(state)
            assert seat in RULES.to_act(state)
            legal = RULES.legal_actions(state, seat)
            assert action in legal
            forced = RULES.forced_action(state, seat)
            assert (forced is not None) == (legal == [{"type": "skip"}])
            step = RULES.step(state, seat, action)
            assert step.text.endswith(".") and step.text.split()[0].rstrip(",") in NAMES
            assert step.public_action is None and not step.private
        check_invariants(final)
        assert RULES.is_finished(final) and RULES.to_act(final) == []
        result = RULES.result(final)
        assert result is not None and len(result["scores"]) == players and result["winners"]
        assert all(RULES.legal_actions(final, s) == [] for s in range(players))


def test_c_turn_2_random_games_end_long_before_the_action_limit() -> None:
    """C-TURN-2 / C-BOARD-5: random games end by boarding the 15th ship or a round of skips."""
    ends = set()
    for seed in range(30):
        final, steps = playout(3 + seed % 3, f"end:{seed}")
        assert len(steps) < 400
        ends.add(final.end)
    assert ends <= {"all_ships_boarded", "full_round_of_skips"} and "all_ships_boarded" in ends


def test_greedy_bots_play_legal_games() -> None:
    """Greedy play (rules.evaluate) reaches other corners of the rules than random play."""
    for players in (3, 4, 5):
        final, steps = playout(players, f"greedy:{players}", ["greedy"] * players)
        for state, _, _ in steps[::5]:
            check_invariants(state)
        assert RULES.is_finished(final)


def test_apply_and_step_never_change_their_input() -> None:
    """States are values: an action makes a new one."""
    state = situation(parties=[["0.2", "1.2", "1.3", "1.4"]], display=["C01", "C02", "C03"], active=1)
    before = RULES.dump(state)
    for seat in RULES.to_act(state):
        for action in RULES.legal_actions(state, seat):
            RULES.step(state, seat, action)
    assert RULES.dump(state) == before


@pytest.mark.parametrize("players", [3, 4, 5])
def test_c_set_2_the_view_never_shows_the_deck(players: int) -> None:
    """C-SET-2: the deck is face down: the view gives its size, never its order or the seed."""
    for seed in range(4):
        final, steps = playout(players, f"view:{seed}")
        for state, _, _ in steps[::4]:
            check_view_secrecy(state)
        check_view_secrecy(final)


def test_c_set_2_games_differing_only_in_the_deck_look_the_same_until_it_is_turned() -> None:
    """C-SET-2: two games whose decks differ below the display give every viewer the same views
    and sentences until a refill turns the differing ships up."""
    order = ALL_SHIPS[:]
    swapped = order[:3] + order[3:][::-1]
    one = RULES.new_game(4, "twin", {"deck": order, "first_seat": 0})
    two = RULES.new_game(4, "twin", {"deck": swapped, "first_seat": 0})
    rng = random.Random(7)
    compared = 0
    for _ in range(400):
        if RULES.is_finished(one):
            break
        for seat in (None, 0, 1, 2, 3):
            assert RULES.view(one, seat) == RULES.view(two, seat)
        seat = rng.choice(RULES.to_act(one))
        legal = RULES.legal_actions(one, seat)
        assert RULES.legal_actions(two, seat) == legal
        action = rng.choice(legal)
        first, second = RULES.step(one, seat, action), RULES.step(two, seat, action)
        if len(first.state.boarded) >= 3:
            assert first.text != second.text, "the refill names the new ships"
            break
        assert first.text == second.text
        one, two = first.state, second.state
        compared += 1
    assert compared > 10


def mutations(action: dict[str, Any], players: int, rng: random.Random) -> list[dict[str, Any]]:
    """Variants of an action: each key changed to other values of its kind, plus junk."""
    variants = [{**action, "extra": 1}]
    variants += [{k: v for k, v in action.items() if k != key} for key in action]
    pirates = list(PIRATE_IDS[: players * 5])
    for key in action:
        if key == "type":
            options: list[Any] = ["move", "board", "challenge", "decline", "skip", "Move", "assemble"]
        elif key in ("party", "onto"):
            options = [*rng.sample(pirates, 6), "9.9", None, 1, True]
        elif key == "ship":
            options = [*rng.sample(ALL_SHIPS, 5), "c01", None, 1]
        else:
            options = ["chest", "rum", "candlestick", "dagger", None, "saber", 0, ["rum"]]
        variants += [{**action, key: option} for option in options]
    return variants


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers() | st.text(max_size=8))
def test_c_act_mutated_actions_are_refused_unless_listed(players: int, seed: int | str) -> None:
    """C-ACT: an action applies exactly when legal_actions lists it for that seat; other seats,
    changed ids, extra or missing keys and wrong types are refused with IllegalAction."""
    _, steps = playout(players, seed)
    rng = random.Random(str(seed))
    for state, seat, action in steps[:: max(1, len(steps) // 12)]:
        for other in range(-1, players + 1):
            if other not in RULES.to_act(state) or action not in RULES.legal_actions(state, other):
                with pytest.raises(IllegalAction):
                    RULES.apply(state, other, action)
        legal = RULES.legal_actions(state, seat)
        for variant in mutations(action, players, rng):
            listed = any(variant == a and all(type(variant[k]) is type(a[k]) for k in a) for a in legal)
            if listed:
                RULES.apply(state, seat, variant)
            else:
                with pytest.raises(IllegalAction):
                    RULES.apply(state, seat, variant)


def test_load_refuses_broken_snapshots() -> None:
    """dump/load: a snapshot that breaks the rules fails loudly."""
    state = situation(parties=[["1.2", "0.2", "0.3", "0.4"]], display=["C08", "C01", None], active=1)
    dumped = RULES.dump(state)
    assert dumped["asked"] == ["1.2", None, None, None] and dumped["answers"] == [None] * 4
    broken: list[Any] = [
        [],
        {},
        {**dumped, "extra": 1},
        {**dumped, "rules": "pirates"},
        {**dumped, "version": 2},
        {**dumped, "players": 6},
        {**dumped, "parties": dumped["parties"][1:]},
        {**dumped, "parties": [["0.2", "0.3", "0.4", "0.5", "0.Q", "1.2", "1.3", "1.4", "1.5", "1.Q"]]},
        {**dumped, "parties": [[1], *dumped["parties"][1:]]},
        {**dumped, "treasury": [-1, 10, 10, 10]},
        {**dumped, "booty": [[7, 0, 0, 0], *dumped["booty"][1:]]},
        {**dumped, "booty": [[3, 0, 0, 0]] * 4},
        {**dumped, "deck": dumped["deck"][1:]},
        {**dumped, "display": ["C99", None, None]},
        {**dumped, "display": [None, None, None], "boarded": ["C08", "C01"]},
        {**dumped, "active": 4},
        {**dumped, "asked": [None] * 4},
        {**dumped, "asked": [[], None, None, None]},
        {**dumped, "answers": ["maybe", None, None, None]},
        {**dumped, "answers": [None, "decline", None, None]},
        {**dumped, "answers": [[], None, None, None]},
        {**dumped, "skips": 5},
        {**dumped, "actions": 1001},
        {**dumped, "end": "bored"},
        {**dumped, "end": "all_ships_boarded"},
        {**dumped, "card_set": "nope"},
        {**dumped, "rng": {"version": 3, "internal": [1, 2], "gauss_next": None}},
    ]
    for data in broken:
        with pytest.raises(InvalidSnapshot):
            RULES.load(data)
    answered = {**dumped, "answers": ["challenge", None, None, None]}
    assert RULES.load(answered).answers == (1, 0, 0, 0)
