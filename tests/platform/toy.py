"""A toy rule set for platform tests, with no table of its own: each round every seat picks a
number in secret at the same time; once all have picked, the picks are revealed and the
highest number picked by one seat only scores a point. Three rounds.

It exercises what the platform must handle for any rule set: simultaneous turns, a secret
action, the generic table, and per-viewer log sentences."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from engine import registry
from engine.base import JSON, Action, Rules, Step
from engine.errors import IllegalAction, InvalidOptions, InvalidSnapshot

ROUNDS = 3
NUMBERS = (1, 2, 3)


@dataclass(frozen=True)
class ToyState:
    players: int
    round: int
    picks: tuple[int | None, ...]
    scores: tuple[int, ...]
    actions: int


class ToyRules(Rules[ToyState]):
    id = "toy-picks"
    version = 1
    title = "Toy picks"
    min_players = 2
    max_players = 4
    simultaneous = True

    def new_game(self, players: int, seed: int | str, options: dict[str, Any] | None = None) -> ToyState:
        if type(players) is not int or not 2 <= players <= 4:
            raise InvalidOptions("Toy picks is for 2 to 4 players")
        if options:
            raise InvalidOptions("Toy picks takes no options")
        return ToyState(players, 1, (None,) * players, (0,) * players, 0)

    def to_act(self, state: ToyState) -> list[int]:
        if state.round > ROUNDS:
            return []
        return [seat for seat, pick in enumerate(state.picks) if pick is None]

    def legal_actions(self, state: ToyState, seat: int) -> list[Action]:
        return [{"type": "pick", "number": n} for n in NUMBERS] if seat in self.to_act(state) else []

    def step(self, state: ToyState, seat: int, action: Action) -> Step[ToyState]:
        if seat not in self.to_act(state):
            raise IllegalAction("It is not your turn to pick.")
        number = action.get("number")
        if set(action) != {"type", "number"} or action.get("type") != "pick" or type(number) is not int \
                or number not in NUMBERS:
            raise IllegalAction("Pick a number: 1, 2 or 3.")
        name = self.seat_name(seat)
        picks = (*state.picks[:seat], number, *state.picks[seat + 1:])
        if any(p is None for p in picks):
            return Step(replace(state, picks=picks, actions=state.actions + 1), f"{name} has picked.",
                        private={seat: f"You picked {number}."}, public_action={"type": "pick"},
                        full_text=f"{name} picked {number}.")
        counts = {n: sum(1 for p in picks if p == n) for n in NUMBERS}
        unique = [n for n in NUMBERS if counts[n] == 1]
        scores = list(state.scores)
        reveal = ", ".join(f"{self.seat_name(s)} {p}" for s, p in enumerate(picks))
        if unique:
            winner = picks.index(max(unique))
            scores[winner] += 1
            reveal += f": {self.seat_name(winner)} scores"
        else:
            reveal += ": nobody scores"
        fresh = (None,) * state.players
        new = ToyState(state.players, state.round + 1, fresh, tuple(scores), state.actions + 1)
        return Step(new, f"{name} has picked. Revealed: {reveal}.")

    def view(self, state: ToyState, seat: int | None) -> dict[str, JSON]:
        finished = state.round > ROUNDS
        return {
            "rules": self.id, "version": self.version, "title": self.title, "viewer": seat,
            "players": state.players, "colours": self.seat_colours(state.players),
            "status": "finished" if finished else "running", "to_act": self.to_act(state),
            "round": min(state.round, ROUNDS),
            "seats": [{"seat": s, "score": state.scores[s], "picked": state.picks[s] is not None,
                       **({"your_pick": state.picks[s]} if s == seat else {})} for s in range(state.players)],
            "result": self.result(state),
        }

    def score_now(self, state: ToyState) -> list[int | float]:
        return list(state.scores)

    def result(self, state: ToyState) -> dict[str, list[int]] | None:
        if state.round <= ROUNDS:
            return None
        best = max(state.scores)
        return {"scores": list(state.scores), "winners": [s for s, v in enumerate(state.scores) if v == best]}

    def dump(self, state: ToyState) -> dict[str, JSON]:
        return {"players": state.players, "round": state.round, "picks": list(state.picks),
                "scores": list(state.scores), "actions": state.actions}

    def load(self, data: dict[str, JSON]) -> ToyState:
        try:
            return ToyState(data["players"], data["round"], tuple(data["picks"]), tuple(data["scores"]),
                            data["actions"])
        except (KeyError, TypeError) as exc:
            raise InvalidSnapshot(str(exc)) from exc

    def action_count(self, state: ToyState) -> int:
        return state.actions


@contextmanager
def toy_registered() -> Iterator[ToyRules]:
    """The toy rule set, registered for the duration."""
    rules = ToyRules()
    registry.register(rules)
    try:
        yield rules
    finally:
        registry.unregister(rules.id)
