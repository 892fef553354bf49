"""Computer players (engine/bots.py)."""

from __future__ import annotations

import random

import pytest

from engine.bots import choose_action, next_move
from tests.engine.pirates_support import RULES, check_invariants, game, playout
from tests.engine.toy_rules import DoubloonsRules


def test_bots_choose_legal_actions_reproducibly() -> None:
    state = game()
    for kind in ("random", "greedy"):
        first = choose_action(RULES, state, 0, kind, random.Random(1))
        assert first in RULES.legal_actions(state, 0)
        assert choose_action(RULES, state, 0, kind, random.Random(1)) == first


def test_bots_refuse_unknown_kinds_and_seats_not_to_act() -> None:
    with pytest.raises(ValueError, match="unknown bot 'clever'"):
        choose_action(RULES, game(), 0, "clever", random.Random(1))
    with pytest.raises(ValueError, match="nothing to do"):
        choose_action(RULES, game(), 1, "greedy", random.Random(1))


def test_greedy_games_keep_every_invariant() -> None:
    """Greedy play reaches other corners of the rules than random play; it breaks none."""
    for seed in range(6):
        final, steps = playout(4, f"greedy:{seed}", ["greedy"] * 4)
        for state, _, _ in steps:
            check_invariants(state)
        assert RULES.is_finished(final)


def test_greedy_beats_random() -> None:
    """One greedy bot against three random bots wins far more than its fair 25%."""
    games = 24
    wins = 0
    for seed in range(games):
        bots = ["random"] * 4
        bots[seed % 4] = "greedy"
        final, _ = playout(4, f"match:{seed}", bots)
        result = RULES.result(final)
        assert result is not None
        wins += (seed % 4) in result["winners"]
    assert wins / games > 0.6


def test_greedy_uses_the_rule_sets_own_evaluation() -> None:
    """The greedy bot plays an action whose resulting position rules.evaluate rates best."""
    state = game()
    action = choose_action(RULES, state, 0, "greedy", random.Random(3))
    best = max(RULES.evaluate(RULES.apply(state, 0, a), 0) for a in RULES.legal_actions(state, 0))
    assert RULES.evaluate(RULES.apply(state, 0, action), 0) == best


def test_greedy_plays_like_random_for_a_rule_set_without_evaluation() -> None:
    rules = DoubloonsRules()
    state = rules.new_game(3, "bots", {"purse": 3})
    assert rules.evaluate(state, 0) is None
    for seed in range(10):
        greedy = choose_action(rules, state, 1, "greedy", random.Random(seed))
        assert greedy == choose_action(rules, state, 1, "random", random.Random(seed))


def test_next_move_lets_seats_acting_at_once_move_in_seat_order() -> None:
    rules = DoubloonsRules()
    state = rules.new_game(3, "order")
    rng = random.Random(1)
    seats = []
    for _ in range(3):
        seat, action = next_move(rules, state, ["random"] * 3, rng)
        seats.append(seat)
        state = rules.apply(state, seat, action)
    assert seats == [0, 1, 2] and state.round == 1
