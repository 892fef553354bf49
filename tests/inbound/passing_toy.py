"""The platform tests' toy rule set, with passing allowed: a seat may pass instead of picking
(it then picks the lowest number). No shipped rule set offers a pass beside other moves (a
forced pass is made by the service itself), so this one shows "pass" played by reply."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from engine import registry
from engine.base import Action, Step
from tests.platform.toy import NUMBERS, ToyRules, ToyState

PASS: Action = {"type": "pass"}


class PassingToyRules(ToyRules):
    id = "toy-pass"
    title = "Toy picks with passing"

    def legal_actions(self, state: ToyState, seat: int) -> list[Action]:
        picks = super().legal_actions(state, seat)
        return [*picks, dict(PASS)] if picks else []

    def step(self, state: ToyState, seat: int, action: Action) -> Step[ToyState]:
        if action == PASS:
            return super().step(state, seat, {"type": "pick", "number": NUMBERS[0]})
        return super().step(state, seat, action)


@contextmanager
def passing_toy_registered() -> Iterator[PassingToyRules]:
    rules = PassingToyRules()
    registry.register(rules)
    try:
        yield rules
    finally:
        registry.unregister(rules.id)
