"""Computer players: ``random`` (uniform over the legal actions) and ``greedy`` (one-ply
look-ahead with a per-game evaluation). Bots move through the same contract as people and
take their randomness from the caller's generator, so a bot game is reproducible."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.base import Action, Rules
from engine.pirates.strategy import evaluate as pirates_evaluate

BOT_KINDS = ("random", "greedy")

Evaluation = Callable[[Any, int], float]

_EVALUATIONS: dict[str, Evaluation] = {"pirates": pirates_evaluate}


def choose_action(rules: Rules[Any], state: Any, seat: int, kind: str, rng: random.Random) -> Action:
    """The action bot ``kind`` plays for ``seat``; ``ValueError`` if the seat is not to act."""
    actions = rules.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has nothing to do now")
    if kind == "random" or len(actions) == 1:
        if kind not in BOT_KINDS:
            raise ValueError(f"unknown bot {kind!r}; bots: {', '.join(BOT_KINDS)}")
        return rng.choice(actions)
    if kind != "greedy":
        raise ValueError(f"unknown bot {kind!r}; bots: {', '.join(BOT_KINDS)}")
    evaluation = _EVALUATIONS.get(rules.id)
    if evaluation is None:
        raise ValueError(f"no greedy bot for {rules.id!r}")
    best: list[Action] = []
    best_value = float("-inf")
    for action in actions:
        value = evaluation(rules.apply(state, seat, action), seat)
        if value > best_value:
            best, best_value = [action], value
        elif value == best_value:
            best.append(action)
    return rng.choice(best)
