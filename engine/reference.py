"""The naive replay every rule set's ``apply`` is measured against (``python -m engine bench``).

The textbook event-sourced replay, generic over the ``Rules`` contract and naming no rule set.
For every action:

1. it is validated by membership: it must equal one of ``legal_actions(state, seat)``, the
   whole list built for every action;
2. the state is copied with ``copy.deepcopy``, so the new state shares nothing with the old;
3. the action is performed with ``step`` on that copy, every audience's sentence composed,
   and the new state kept.

Two exceptions to step 2, so that the figure measures the game and not how the engine
stores what is no game state:

- a part of the state shaped like ``random.Random.getstate()`` (a tuple of 625 ints inside) is
  copied as one value, in C, as ``copy.deepcopy`` copies a ``random.Random`` object that a
  naive implementation would keep. Walked int by int it cost about 150 us an action on its
  own, whatever the game (ten times and more the engine's own ``apply``);
- a part that is a frozen dataclass (a card set: the rule set's fixed data that a game names,
  never changed by play) is shared, as a naive implementation's module constants would be.
  Deep-copied, Pirates' card set alone took over 100 ms an action.

The reference is correct by construction (validation by the rule set's own list, no shared
parts, the one code path ``step``) and pays for everything ``apply`` may skip: building the
legal list, copying unchanged parts, composing sentences nobody reads. ``apply`` gives the same
state on every action (tests/engine/test_engine_reference.py); the bench prints how much faster
it is, the target being at least 5x for every rule set.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any

from engine.base import Action, Rules
from engine.errors import IllegalAction

_MT_WORDS = 625  # the Mersenne Twister's 624 words and its position: random.getstate()[1]


def _is_fixed_data(part: Any) -> bool:
    params = getattr(type(part), "__dataclass_params__", None)
    return dataclasses.is_dataclass(part) and params is not None and bool(params.frozen)


def _is_generator_state(part: Any) -> bool:
    return (
        type(part) is tuple
        and len(part) == 3
        and type(part[1]) is tuple
        and len(part[1]) == _MT_WORDS
    )


def copy_state(state: Any) -> Any:
    """``copy.deepcopy(state)``, except at the top level: a generator's state is copied as one
    value and fixed data (a frozen dataclass) shared."""
    memo: dict[int, Any] = {}
    if isinstance(state, tuple):
        for part in state:
            if _is_generator_state(part):
                # What deepcopy does with a random.Random: its state out and into a new one.
                generator = random.Random()
                generator.setstate(part)
                memo[id(part)] = generator.getstate()
            elif _is_fixed_data(part):
                memo[id(part)] = part
    return copy.deepcopy(state, memo)


def reference_apply(rules: Rules[Any], state: Any, seat: int, action: Action) -> Any:
    """The state after ``action``, the naive way; ``IllegalAction`` for an action not listed."""
    if action not in rules.legal_actions(state, seat):
        raise IllegalAction(f"{action!r} is not a legal action of seat {seat!r} now")
    return rules.step(copy_state(state), seat, action).state


def listed_step(rules: Rules[Any], state: Any, seat: int, action: Action) -> Any:
    """Steps 1 and 3 without the copy: the stricter yardstick, for immutable states that need
    none (the bench prints both)."""
    if action not in rules.legal_actions(state, seat):
        raise IllegalAction(f"{action!r} is not a legal action of seat {seat!r} now")
    return rules.step(state, seat, action).state


def reference_replay(
    rules: Rules[Any], players: int, seed: int | str, actions: list[tuple[int, Action]],
    options: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    """The final state of a game replayed the naive way from its start."""
    state = rules.new_game(players, seed, options)
    for seat, action in actions:
        state = reference_apply(rules, state, seat, action)
    return state
