"""Computer players (engine/bots.py)."""

from __future__ import annotations

import random

import pytest

from engine.bots import choose_action
from tests.engine.pirates_support import RULES, check_invariants, game, playout


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
