"""Determinized rollout search for any rule set: the ``strong`` bot.

The bot sees only what its seat may see: it reads the real state through
``legal_actions(state, seat)`` and ``determinize(state, seat, rng)`` alone, never ``apply`` or
``evaluate`` on it. Every world it plans in is a full state the seat cannot tell from the
truth (the deck, the other hands, others' pending secret picks and the generator drawn
again).

It improves on the one-ply greedy policy (the rule set's ``evaluate`` after each action) by
playing it out, the classical rollout algorithm:

1. Candidates. In one drawn world, each legal action is applied and judged by ``evaluate``;
   the best ``candidates`` of them are kept, the greedy choice first (the anchor). A rule set
   without ``evaluate`` keeps every action and has no anchor.
2. Rollouts. Each round draws a world and a rollout seed and plays every remaining candidate
   in it, then continues the game with the greedy policy for every seat (the opponents it
   meets are greedy; ``rollout_greedy`` is the share of greedy moves, the rest random) for at
   most ``depth`` moves. A finished game is judged by its result (a win shared by k counts
   1/k) and its final margin; a cut-off position by ``evaluate`` (``score_now``'s lead without
   one), squashed to (0, 1) on the rule set's scale of points. All candidates of a round share
   the world and the seed (common random numbers), so their differences are measured, not
   drowned in the luck of the draw.
3. Racing. After a few rounds, a candidate whose paired difference to the round leader is
   clearly negative is dropped; the search stops when one is left or the budget is spent.
4. Choice. The best mean is played only when it beats the anchor's by a margin that its
   noise cannot explain; otherwise the greedy choice is kept, so thin evidence never makes
   the bot worse than greedy.

Budget: at most ``iterations`` rollouts and, when a ``clock`` is given, about
``think_seconds`` of it (the engine reads no clock itself: the caller passes one); the search
stops before a round that the time of the rollouts so far says would overrun the cap. All
randomness comes from the generator given, so a search is reproducible for a given budget in
iterations. ``depth`` and ``candidates`` of ``None`` take the rule set's ``search_tuning``.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.base import Action, Rules
from engine.errors import IllegalAction


@dataclass(frozen=True)
class Tuning:
    """A rule set's search settings: ``depth`` rollout moves before a position is judged,
    ``candidates`` kept from the greedy ranking, ``scale`` points of lead worth a clear edge."""

    depth: int = 20
    candidates: int = 4
    scale: float = 10.0


DEFAULT_TUNING = Tuning()

# Share of a finished rollout's reward that is the win itself; the rest is the final margin.
WIN_WEIGHT = 0.5
# Rounds before any candidate may be dropped, and how many standard errors below the leader
# its paired mean must lie to be dropped.
MIN_ROUNDS = 4
DROP_Z = 2.0
# How many standard errors a candidate's paired mean must beat the greedy choice by.
PLAY_Z = 1.0


@dataclass(frozen=True)
class Budget:
    """How hard the strong bot thinks: ``iterations`` rollouts at most, ``think_seconds`` of
    the caller's clock; ``depth`` rollout moves before the position is judged and
    ``candidates`` actions searched (``None``: the rule set's ``search_tuning``);
    ``rollout_greedy`` the share of rollout moves chosen greedily (the rest at random)."""

    iterations: int = 2000
    think_seconds: float = 1.0
    depth: int | None = None
    rollout_greedy: float = 1.0
    candidates: int | None = None


DEFAULT_BUDGET = Budget()


def tuning_for(rules: Rules[Any]) -> Tuning:
    """The rule set's ``search_tuning`` over the defaults."""
    hints = rules.search_tuning
    return Tuning(
        depth=int(hints.get("depth", DEFAULT_TUNING.depth)),
        candidates=int(hints.get("candidates", DEFAULT_TUNING.candidates)),
        scale=float(hints.get("scale", DEFAULT_TUNING.scale)),
    )


def _key(action: Action) -> str:
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def _squash(lead: float, scale: float) -> float:
    return 0.5 + 0.5 * math.tanh(lead / scale)


def _lead(scores: Sequence[float], seat: int) -> float:
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def _reward(rules: Rules[Any], state: Any, seat: int, scale: float) -> float:
    """In (0, 1): a finished game's win (1 alone, 1/k shared by k) blended with its final
    margin; before the end, the lead ``evaluate`` (else ``score_now``) gives."""
    result = rules.result(state)
    if result is not None:
        winners = result["winners"]
        won = 1.0 / len(winners) if seat in winners else 0.0
        return WIN_WEIGHT * won + (1 - WIN_WEIGHT) * _squash(_lead(result["scores"], seat), scale)
    value = rules.evaluate(state, seat)
    if value is None:
        value = _lead(rules.score_now(state), seat)
    return _squash(value, scale)


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


def rollout(
    rules: Rules[Any], state: Any, seat: int, rng: random.Random, budget: Budget, tuning: Tuning | None = None
) -> float:
    """Play ``state`` on for at most ``depth`` moves; the reward for ``seat``. Several seats
    to act move in seat order, as the engine's bot games do."""
    tuning = tuning or tuning_for(rules)
    depth = tuning.depth if budget.depth is None else budget.depth
    greedy = budget.rollout_greedy
    for _ in range(depth):
        to_act = rules.to_act(state)
        if not to_act:
            break
        mover = to_act[0]
        forced = rules.forced_action(state, mover)
        if forced is not None:
            action = forced
        else:
            actions = rules.legal_actions(state, mover)
            if len(actions) == 1:
                action = actions[0]
            elif greedy >= 1.0 or (greedy > 0.0 and rng.random() < greedy):
                action = _greedy(rules, state, mover, actions, rng)
            else:
                action = rng.choice(actions)
        state = rules.apply(state, mover, action)
    return _reward(rules, state, seat, tuning.scale)


@dataclass
class SearchReport:
    """What a search did: the action chosen, rollouts run and each action's rollouts."""

    action: Action
    iterations: int
    visits: dict[str, int]


def _ranked(rules: Rules[Any], world: Any, seat: int, actions: list[Action]) -> list[int] | None:
    """Indices of ``actions`` from the best to the worst by one-ply ``evaluate`` in ``world``
    (ties keep the listed order); ``None`` when the rule set has no evaluation."""
    values: list[float] = []
    for action in actions:
        try:
            value = rules.evaluate(rules.apply(world, seat, action), seat)
        except (AssertionError, IllegalAction):
            value = float("-inf")
        if value is None:
            return None
        values.append(value)
    return sorted(range(len(actions)), key=lambda i: -values[i])


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over the rounds both have."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0, float("inf")
    diffs = [a[i] - b[i] for i in range(n)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, float("inf")
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


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
    keys = [_key(a) for a in actions]
    if len(actions) == 1:
        return SearchReport(actions[0], 0, {keys[0]: 0})
    started = clock() if clock is not None else 0.0
    tuning = tuning_for(rules)
    width = tuning.candidates if budget.candidates is None else budget.candidates
    # The greedy ranking in a drawn world, never in the real one: the real state's hidden
    # parts (the deck's next card, another seat's pick) must not steer the choice.
    ranked = _ranked(rules, rules.determinize(state, seat, rng), seat, actions)
    anchor = None if ranked is None else ranked[0]
    alive = list(range(len(actions))) if ranked is None else ranked[: max(1, width)]
    rewards: dict[int, list[float]] = {i: [] for i in alive}
    visits = [0] * len(actions)
    done = 0
    last_check = started
    slowest_round = 0.0
    while len(alive) > 1 and done + len(alive) <= budget.iterations:
        if clock is not None and done:
            now = clock()
            slowest_round = max(slowest_round, now - last_check)
            last_check = now
            if now - started + slowest_round > budget.think_seconds:
                break
        world = rules.determinize(state, seat, rng)
        seed = rng.getrandbits(64)
        got: dict[int, float] = {}
        for i in alive:
            done += 1
            visits[i] += 1
            try:
                after = rules.apply(world, seat, actions[i])
                got[i] = rollout(rules, after, seat, random.Random(seed), budget, tuning)
            except (AssertionError, IllegalAction):
                # A drawn world the rules cannot play on (it broke an invariant the real game
                # keeps, e.g. Libertalia's L-CAMP-5): the round is spent and teaches nothing.
                got = {}
                break
        for i, reward in got.items():
            rewards[i].append(reward)
        rounds = len(rewards[alive[0]])
        if got and rounds >= MIN_ROUNDS:
            leader = max(alive, key=lambda i: (sum(rewards[i]), i == anchor))
            kept = []
            for i in alive:
                mean, error = _paired(rewards[i], rewards[leader])
                # Exactly level in every round so far: the same move in effect, one is enough.
                if i == leader or (mean + DROP_Z * error >= 0.0 and not (error == 0.0 and mean <= 0.0)):
                    kept.append(i)
            alive = kept
    best = max(alive, key=lambda i: (sum(rewards[i]) / max(1, len(rewards[i])), i == anchor))
    if anchor is not None and best != anchor:
        mean, error = _paired(rewards[best], rewards[anchor])
        if anchor in alive and mean <= PLAY_Z * error:
            best = anchor
    return SearchReport(actions[best], done, dict(zip(keys, visits, strict=True)))
