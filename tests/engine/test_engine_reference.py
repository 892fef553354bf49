"""The naive reference replay (engine/reference.py) that the bench measures ``apply`` against:
it agrees with ``apply`` on every action, refuses what is not listed, and shares nothing with
the state it starts from."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

import engine
from engine.base import Rules
from engine.errors import IllegalAction
from engine.reference import copy_state, listed_step, reference_apply, reference_replay
from tests.engine import conformance
from tests.engine.toy_rules import DoubloonsRules

RULE_SETS: list[Rules[Any]] = [engine.get_rules(rules_id) for rules_id, _ in engine.available_rules()]
RULE_SETS.append(DoubloonsRules())
IDS = [rules.id for rules in RULE_SETS]


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_the_reference_agrees_with_apply_on_every_action(rules: Rules[Any]) -> None:
    checked = 0
    for players in rules.player_counts:
        seed = f"reference:{players}"
        state = rules.new_game(players, seed)
        actions = conformance.random_actions(rules, players, seed, 1500)
        for seat, action in actions:
            before = conformance.as_json(rules.dump(state))
            naive = reference_apply(rules, state, seat, action)
            uncopied = listed_step(rules, state, seat, action)
            assert conformance.as_json(rules.dump(state)) == before, "the reference changes nothing"
            state = rules.apply(state, seat, action)
            assert conformance.as_json(rules.dump(naive)) == conformance.as_json(rules.dump(state))
            assert conformance.as_json(rules.dump(uncopied)) == conformance.as_json(rules.dump(state))
            checked += 1
        final = reference_replay(rules, players, seed, actions)
        assert rules.dump(final) == rules.dump(state)
    assert checked > 20


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_the_reference_refuses_an_action_not_listed(rules: Rules[Any]) -> None:
    state = rules.new_game(rules.min_players, "reference-refuses")
    seat = rules.to_act(state)[0]
    dumped = rules.dump(state)
    for action in ({"type": "no-such-action"}, {}, "pass"):
        with pytest.raises(IllegalAction):
            reference_apply(rules, state, seat, action)  # type: ignore[arg-type]
        with pytest.raises(IllegalAction):
            listed_step(rules, state, seat, action)  # type: ignore[arg-type]
    idle = next((s for s in range(rules.min_players) if s not in rules.to_act(state)), None)
    if idle is not None:
        with pytest.raises(IllegalAction):
            reference_apply(rules, state, idle, rules.legal_actions(state, seat)[0])
    assert rules.dump(state) == dumped


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_the_copy_shares_nothing_and_draws_alike(rules: Rules[Any]) -> None:
    """The copy is equal, no mutable part is shared, and its generator state (copied as one
    value, as deepcopy copies a random.Random) is a new tuple with the same draws ahead."""
    state = rules.new_game(rules.max_players, "reference-copy")
    copied = copy_state(state)
    assert rules.dump(copied) == rules.dump(state)
    generators = [
        (a, b) for a, b in zip(state, copied, strict=True) if isinstance(a, tuple) and len(str(a)) > 2000
    ]
    assert generators, "every rule set here keeps a generator in its state"
    for original, duplicate in generators:
        assert duplicate[1] is not original[1]
        one, two = random.Random(), random.Random()
        one.setstate(original)
        two.setstate(duplicate)
        assert [one.random() for _ in range(5)] == [two.random() for _ in range(5)]
    # Without the generator, what remains is copy.deepcopy's copy.
    assert rules.dump(copy.deepcopy(state)) == rules.dump(copied)
