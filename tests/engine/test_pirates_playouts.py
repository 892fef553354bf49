"""Seeded random playouts against the contract's invariants (in the manner of OpenSpiel's
random_sim_test): P-PARTY-2, P-PARTY-3, P-COMP-3, P-COMP-4, P-TURN-2 and P-ACT, plus
dump/load, determinism and the secrecy of the deck."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import IllegalAction
from engine.pirates.state import PIRATE_IDS, PiratesState
from tests.engine.pirates_support import RULES, check_invariants, playout

GAMES = {3: 100, 4: 100, 5: 100}
NAMES = {"Red", "Blue", "Green", "Yellow", "Black"}
CARD_IDS = list(RULES.new_game(4, 1).card_set.ids)


def check_view_secrecy(state: PiratesState) -> None:
    for seat in [None, *range(state.players)]:
        view = RULES.view(state, seat)
        text = json.dumps(view)
        assert json.loads(text) == view
        for key in ("seed", "deck", "rng", "rng_state"):
            assert f'"{key}"' not in text
        hidden = [state.card_set.ids[c] for c in state.deck]
        for card in hidden:
            assert f'"{card}"' not in text, "a deck card shows in the view"
        assert view["deck_count"] == len(hidden)


@pytest.mark.parametrize("players", sorted(GAMES))
def test_p_party_2_random_playouts_keep_every_invariant(players: int) -> None:
    """P-PARTY-2, P-PARTY-3, P-COMP-3, P-COMP-4, P-TURN-2: random games end and never break a rule."""
    for seed in range(GAMES[players]):
        final, steps = playout(players, f"{players}:{seed}")
        assert steps, "a game has at least one action"
        for state, seat, action in steps:
            check_invariants(state)
            assert action in RULES.legal_actions(state, seat)
            sentence = RULES.step(state, seat, action).text
            assert sentence.endswith(".") and sentence.split()[0] in NAMES
        check_invariants(final)
        assert RULES.is_finished(final) and RULES.to_act(final) == []
        result = RULES.result(final)
        assert result is not None and len(result["scores"]) == players and result["winners"]
        assert all(RULES.legal_actions(final, s) == [] for s in range(players))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_view_never_shows_the_deck(players: int) -> None:
    """P-SET-2: the view shows the number of cards left, never their order or the seed."""
    for seed in range(6):
        final, steps = playout(players, f"view:{seed}")
        for state, _, _ in steps[::3]:
            check_view_secrecy(state)
        check_view_secrecy(final)


def mutations(action: dict[str, Any], players: int, rng: random.Random) -> list[dict[str, Any]]:
    """Variants of an action: every key changed to other values of its kind, plus junk."""
    variants = [{**action, "extra": 1}]
    variants += [{k: v for k, v in action.items() if k != key} for key in action]
    pirates = list(PIRATE_IDS[: players * 5])
    for key, value in action.items():
        if key == "type":
            options: list[Any] = ["assemble", "capture", "mutiny", "ransom", "pass", "Capture"]
        elif key in ("party", "onto", "pirate"):
            options = [*rng.sample(pirates, 6), "9.9", None, 1]
        elif key == "card":
            options = [*rng.sample(CARD_IDS, 6), "s01", None]
        elif key == "booty":
            options = ["saber", "rum", "relics", "chest", "wheel", "anchor", None, "gold", 0]
        else:
            options = [value + 1, value - 1, float(value), True, False, str(value), None]
        variants += [
            {**action, key: option}
            for option in options
            if option != value or type(option) is not type(value)
        ]
    return variants


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers() | st.text(max_size=8))
def test_p_act_mutated_actions_are_refused_unless_legal(players: int, seed: int | str) -> None:
    """P-ACT: an action applies exactly when legal_actions lists it; wrong seats, changed ids,
    extra or missing keys and float/bool numbers are refused with IllegalAction."""
    _, steps = playout(players, seed)
    rng = random.Random(str(seed))
    for state, seat, action in steps[:: max(1, len(steps) // 12)]:
        legal = RULES.legal_actions(state, seat)
        for other in range(players):
            if other != seat:
                with pytest.raises(IllegalAction):
                    RULES.apply(state, other, action)
        for variant in mutations(action, players, rng):
            listed = any(variant == a and all(type(variant[k]) is type(a[k]) for k in a) for a in legal)
            if listed:
                RULES.apply(state, seat, variant)
            else:
                with pytest.raises(IllegalAction):
                    RULES.apply(state, seat, variant)


@settings(max_examples=30, deadline=None)
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers(min_value=0, max_value=10**9))
def test_p_turn_2_every_random_game_ends_well_within_the_limit(players: int, seed: int) -> None:
    """P-TURN-2 / P-CAP-9: random games end by boarding the last card, long before 1,000 actions."""
    final, steps = playout(players, seed)
    assert len(steps) < 1000
    assert RULES.view(final, None)["end_reason"] in ("all_cards_boarded", "full_round_of_passes")
    check_invariants(final)
