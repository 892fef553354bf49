"""Determinized Monte Carlo search for any rule set: the ``strong`` bot.

The bot sees only what its seat may see. Each iteration draws a full state the seat cannot
tell from the truth (``Rules.determinize``: the deck, the other hands, others' pending secret
picks and the generator drawn again), picks one of the seat's legal actions by UCB1 over the
statistics of every iteration so far (visits and rewards are summed per action across
determinizations: one information set, one set of statistics), plays it in that
determinization and finishes the game with a rollout policy, cut at a depth where the rule
set's public ``score_now`` judges it. The most visited action is played.

Budget: at most ``iterations`` iterations and, when a ``clock`` is given, at most
``think_seconds`` of it (the engine reads no clock itself: the caller passes one). All
randomness comes from the generator given, so a search is reproducible for a given budget
in iterations.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.base import Action, Rules
from engine.errors import IllegalAction


@dataclass(frozen=True)
class Budget:
    """How hard the strong bot thinks. ``rollout_greedy``: the share of rollout moves chosen
    by the one-ply greedy policy (the rest at random); ``depth``: rollout moves before the
    position is judged by ``score_now``."""

    iterations: int = 200
    think_seconds: float = 1.0
    depth: int = 20
    rollout_greedy: float = 0.5
    exploration: float = 0.7


DEFAULT_BUDGET = Budget()


def _key(action: Action) -> str:
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def _reward(rules: Rules[Any], state: Any, seat: int) -> float:
    """1 for a sole win, 1/k for a win shared by k, 0 for a loss; before the end, a value in
    (0, 1) from the lead over the best other seat in ``score_now``."""
    result = rules.result(state)
    if result is not None:
        winners = result["winners"]
        return 1.0 / len(winners) if seat in winners else 0.0
    scores = rules.score_now(state)
    mine = scores[seat]
    best_other = max(s for i, s in enumerate(scores) if i != seat)
    scale = max(1.0, sum(abs(s) for s in scores) / len(scores))
    return 0.5 + 0.5 * math.tanh(2.0 * (mine - best_other) / scale)


def _greedy(rules: Rules[Any], state: Any, seat: int, actions: list[Action], rng: random.Random) -> Action:
    best: list[Action] = []
    best_value = float("-inf")
    for action in actions:
        value = rules.evaluate(rules.apply(state, seat, action), seat)
        if value is None:
            return rng.choice(actions)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return rng.choice(best)


def rollout(rules: Rules[Any], state: Any, seat: int, rng: random.Random, budget: Budget) -> float:
    """Play ``state`` on for at most ``budget.depth`` moves; the reward for ``seat``."""
    for _ in range(budget.depth):
        to_act = rules.to_act(state)
        if not to_act:
            break
        mover = to_act[0] if len(to_act) == 1 else rng.choice(to_act)
        forced = rules.forced_action(state, mover)
        if forced is not None:
            action = forced
        else:
            actions = rules.legal_actions(state, mover)
            if len(actions) > 1 and budget.rollout_greedy and rng.random() < budget.rollout_greedy:
                action = _greedy(rules, state, mover, actions, rng)
            else:
                action = rng.choice(actions)
        state = rules.apply(state, mover, action)
    return _reward(rules, state, seat)


@dataclass
class SearchReport:
    """What a search did: the action chosen, iterations run and each action's visits."""

    action: Action
    iterations: int
    visits: dict[str, int]


def search(
    rules: Rules[Any],
    state: Any,
    seat: int,
    rng: random.Random,
    budget: Budget = DEFAULT_BUDGET,
    clock: Callable[[], float] | None = None,
) -> SearchReport:
    """The strong bot's choice for ``seat`` (which must be to act). Reads ``state`` only
    through ``legal_actions(state, seat)`` and ``determinize(state, seat, ...)``."""
    actions = rules.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has nothing to do now")
    if len(actions) == 1:
        return SearchReport(actions[0], 0, {_key(actions[0]): 0})
    keys = [_key(a) for a in actions]
    visits = [0] * len(actions)
    totals = [0.0] * len(actions)
    started = clock() if clock is not None else 0.0
    done = 0
    while done < budget.iterations:
        if clock is not None and done and clock() - started >= budget.think_seconds:
            break
        world = rules.determinize(state, seat, rng)
        unvisited = [j for j in range(len(actions)) if not visits[j]]
        if unvisited:
            i = unvisited[0]  # every action once first
        else:
            log_n = math.log(sum(visits))
            i = max(
                range(len(actions)),
                key=lambda j: totals[j] / visits[j] + budget.exploration * math.sqrt(log_n / visits[j]),
            )
        done += 1
        try:
            reward = rollout(rules, rules.apply(world, seat, actions[i]), seat, rng, budget)
        except (AssertionError, IllegalAction):
            # A drawn world the rules cannot play on (it broke an invariant the real game
            # keeps, e.g. Libertalia's L-CAMP-5): it counts as spent, teaches nothing.
            continue
        totals[i] += reward
        visits[i] += 1
    best = max(range(len(actions)), key=lambda j: (visits[j], totals[j]))
    return SearchReport(actions[best], done, dict(zip(keys, visits, strict=True)))
