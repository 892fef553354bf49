"""The strong bot (engine/search.py): determinized Monte Carlo search over the Rules contract.
Tiny budgets keep these fast; nothing here measures time."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.bots import BOT_KINDS, ENGINE_BOT_KINDS, choose_action
from engine.search import Budget, _ranked, search
from tests.engine import conformance
from tests.engine.toy_rules import DoubloonsRules, ReadingDoubloons, TellingDoubloons

TINY = Budget(iterations=12, depth=8, rollout_greedy=0.5)
RULE_IDS = [rules_id for rules_id, _ in engine.available_rules()]


def positions(rules: Any, players: int, seed: str, count: int) -> list[Any]:
    """States of a seeded random game where some seat has a real choice."""
    rng = random.Random(seed)
    state = rules.new_game(players, seed)
    found: list[Any] = []
    while not rules.is_finished(state) and len(found) < count:
        seat = rules.to_act(state)[0]
        actions = rules.legal_actions(state, seat)
        if len(actions) > 1 and rng.random() < 0.3:
            found.append(state)
        state = rules.apply(state, seat, rng.choice(actions))
    return found


@pytest.mark.parametrize("rules_id", RULE_IDS)
def test_the_strong_bot_plays_a_legal_action_reproducibly(rules_id: str) -> None:
    rules = engine.get_rules(rules_id)
    for state in positions(rules, 3 if 3 in rules.player_counts else rules.player_counts[0], rules_id, 4):
        seat = rules.to_act(state)[0]
        before = rules.dump(state)
        report = search(rules, state, seat, random.Random(5), TINY)
        assert report.action in rules.legal_actions(state, seat)
        assert search(rules, state, seat, random.Random(5), TINY).action == report.action
        assert rules.dump(state) == before, "the search never changes the real state"
        assert 1 <= report.iterations <= TINY.iterations
        assert sum(report.visits.values()) == report.iterations


def toy_or_registered(rules_id: str) -> Any:
    toys = {"doubloons": DoubloonsRules, "reading-doubloons": ReadingDoubloons}
    return toys[rules_id]() if rules_id in toys else engine.get_rules(rules_id)


# No rollouts: the choice is the greedy ranking's best, so a ranking made on the real state
# would show at once.
PRIOR_ONLY = Budget(iterations=0)


@pytest.mark.parametrize("budget", [TINY, PRIOR_ONLY], ids=["tiny", "prior-only"])
@pytest.mark.parametrize("rules_id", [*RULE_IDS, "doubloons", "reading-doubloons"])
def test_the_strong_bot_chooses_alike_in_states_differing_only_in_a_secret(
    rules_id: str, budget: Budget
) -> None:
    """It reads the real state only through determinize and the seat's legal actions (its
    greedy ranking too is made in a drawn world), so a secret of another seat's (a deck
    order, a hand, a pending pick, the generator) cannot change its choice."""
    rules = toy_or_registered(rules_id)
    players = 3 if 3 in rules.player_counts else rules.player_counts[0]
    found = positions(rules, players, rules_id, 10)
    if rules_id.endswith("doubloons"):  # a toy game is short: a few of them
        found += [s for game in range(3) for s in positions(rules, players, f"{rules_id}:{game}", 10)]
    compared = 0
    for state in found:
        seat = rules.to_act(state)[0]
        mine = search(rules, state, seat, random.Random(9), budget).action
        for other in conformance.secret_variants(rules, state, seat):
            assert search(rules, other, seat, random.Random(9), budget).action == mine
            compared += 1
    assert compared >= 3


def test_a_greedy_ranking_of_the_real_state_would_see_a_secret() -> None:
    """The property above is no formality for the ranking: where ``evaluate`` reads a pending
    bid, ranking the moves on the real state (as the one-ply greedy bot does) differs between
    states that differ only in that bid, so a search anchored on it would fail the test."""
    rules = ReadingDoubloons()
    differ = 0
    for state in [s for game in range(4) for s in positions(rules, 3, f"reading-doubloons:{game}", 10)]:
        seat = rules.to_act(state)[0]
        actions = rules.legal_actions(state, seat)
        real = _ranked(rules, state, seat, actions)
        assert real is not None
        for other in conformance.secret_variants(rules, state, seat):
            peeked = _ranked(rules, other, seat, actions)
            assert peeked is not None
            differ += peeked[0] != real[0]
    assert differ > 0


def test_a_leaking_determinize_would_let_the_bot_see_a_secret() -> None:
    """The same property fails for the toy whose determinize is the truth: the other seat's
    pending bid decides its choice, so the property above is no formality."""
    rules = TellingDoubloons()
    differ = 0
    for game in range(12):
        state = rules.new_game(2, f"leak:{game}")
        state = rules.apply(state, 1, {"type": "bid", "coins": 0})
        high = state._replace(pending=(None, 3))
        budget = Budget(iterations=60, depth=20)
        low_choice = search(rules, state, 0, random.Random(game), budget).action
        high_choice = search(rules, high, 0, random.Random(game), budget).action
        differ += low_choice != high_choice
    assert differ > 0


def test_the_time_cap_stops_the_search_by_the_clock_given() -> None:
    """A fake clock that advances a second a reading, so a round of rollouts seems to take a
    second: after 2 s the next round would end past the cap of 2.5 s, so 2 rounds are run."""
    rules = engine.get_rules("pirates")
    state = positions(rules, 4, "cap", 1)[0]
    readings = iter(range(1000))
    report = search(
        rules,
        state,
        rules.to_act(state)[0],
        random.Random(1),
        Budget(iterations=500, think_seconds=2.5, candidates=3),
        clock=lambda: float(next(readings)),
    )
    assert report.iterations == 2 * 3


def test_strong_is_an_engine_bot_the_service_offers() -> None:
    assert "strong" in ENGINE_BOT_KINDS and "strong" in BOT_KINDS
    rules = engine.get_rules("captain-lucky")
    state = rules.new_game(2, "kinds")
    action = choose_action(rules, state, rules.to_act(state)[0], "strong", random.Random(1), budget=TINY)
    assert action in rules.legal_actions(state, rules.to_act(state)[0])
