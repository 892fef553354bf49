"""The naive replay every rule set's ``apply`` is measured against (``python -m engine bench``).

The textbook event-sourced replay, generic over the ``Rules`` contract and naming no rule set:

1. the action is validated by membership: it must equal one of ``legal_actions(state, seat)``
   (the whole list is built for every action);
2. the state is copied in full with ``copy.deepcopy`` (nothing is shared with the state before);
3. the action is performed with ``step`` on that copy, every audience's sentence composed,
   and the new state kept.

It is correct by construction (validation by the rule set's own list, no shared parts), and
it pays for everything the engine's ``apply`` is allowed to skip: building the legal list,
copying unchanged parts, composing sentences nobody reads. ``apply`` must give the same state
on every action (tests/engine/test_engine_reference.py); the bench reports how much faster it
is (the target: at least 5x for every rule set).

Only a rule set's state value is copied, never its generator's internal C state: a state that
holds ``random.Random.getstate()`` (a tuple of 625 ints) has it copied element by element,
as ``copy.deepcopy`` does for any tuple.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.base import Action, Rules
from engine.errors import IllegalAction


def reference_apply(rules: Rules[Any], state: Any, seat: int, action: Action) -> Any:
    """The state after ``action``, the naive way; ``IllegalAction`` for an action not listed."""
    if action not in rules.legal_actions(state, seat):
        raise IllegalAction(f"{action!r} is not a legal action of seat {seat!r} now")
    return rules.step(copy.deepcopy(state), seat, action).state


def reference_replay(
    rules: Rules[Any], players: int, seed: int | str, actions: list[tuple[int, Action]],
    options: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    """The final state of a game replayed the naive way from its start."""
    state = rules.new_game(players, seed, options)
    for seat, action in actions:
        state = reference_apply(rules, state, seat, action)
    return state
