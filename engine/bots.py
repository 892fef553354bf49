"""Computer players: ``random`` (uniform over the legal actions), ``greedy`` (one-ply
look-ahead with the rule set's own ``evaluate``; uniform like ``random`` when the rule set has
none) and ``strong`` (determinized Monte Carlo search, ``engine/search.py``). Bots move through
the same contract as people and take their randomness from the caller's generator, so a bot
game is reproducible (the strong bot's for a given budget in iterations)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.base import Action, Rules
from engine.search import DEFAULT_BUDGET, Budget, search

# The kinds the web service offers.
BOT_KINDS = ("random", "greedy", "strong")
# Every kind the engine plays (the command line, matches): today the same as the service's.
ENGINE_BOT_KINDS = BOT_KINDS


def choose_action(
    rules: Rules[Any],
    state: Any,
    seat: int,
    kind: str,
    rng: random.Random,
    *,
    budget: Budget = DEFAULT_BUDGET,
    clock: Callable[[], float] | None = None,
) -> Action:
    """The action bot ``kind`` plays for ``seat``; ``ValueError`` if the seat is not to act.
    ``budget`` and ``clock`` (for its time cap) are the strong bot's."""
    if kind not in ENGINE_BOT_KINDS:
        raise ValueError(f"unknown bot {kind!r}; bots: {', '.join(ENGINE_BOT_KINDS)}")
    actions = rules.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has nothing to do now")
    if kind == "strong":
        return search(rules, state, seat, rng, budget, clock).action
    if kind == "random" or len(actions) == 1:
        return rng.choice(actions)
    best: list[Action] = []
    best_value = float("-inf")
    for action in actions:
        value = rules.evaluate(rules.apply(state, seat, action), seat)
        if value is None:  # the rule set has no evaluation: play like the random bot
            return rng.choice(actions)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return rng.choice(best)


def next_move(
    rules: Rules[Any],
    state: Any,
    bots: list[str],
    rng: random.Random,
    *,
    budget: Budget = DEFAULT_BUDGET,
    clock: Callable[[], float] | None = None,
) -> tuple[int, Action]:
    """The next (seat, action) when bots hold every seat. When several seats may act at once,
    they act one at a time in seat order, each on the state as it then is: an action may
    change what the others may still do (a challenge closes the window for the rest)."""
    seats = rules.to_act(state)
    if not seats:
        raise ValueError("the game is over")
    seat = seats[0]
    return seat, choose_action(rules, state, seat, bots[seat], rng, budget=budget, clock=clock)
