"""A small rule set for testing the generic engine code (bots, command line, registry, the
conformance suite) where Pirates cannot: several seats act at once, picks are secret until
all are in, and chance enters during play.

"Doubloons": each of 3 rounds, every seat secretly bids 0 to 3 doubloons from its purse of
3; when the last bid is in, all are revealed, every bid is paid, and the highest bid takes a
point (a tie is settled by a roll of the game's own generator). The most points wins. A seat
with an empty purse bids 0 without being asked (``forced_action``).

It is not registered in the engine; tests register it where they need the registry.
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from engine.base import (
    JSON,
    Action,
    OptionInfo,
    RngState,
    Rules,
    Step,
    check_new_game,
    fresh_rng_state,
    rng_from_state,
    rng_state_from_json,
    rng_state_to_json,
    view_header,
)
from engine.errors import IllegalAction, InvalidOptions, InvalidSnapshot

ROUNDS = 3
PURSE = 3
MAX_BID = 3


class DoubloonsState(NamedTuple):
    players: int
    round: int
    purses: tuple[int, ...]
    points: tuple[int, ...]
    pending: tuple[int | None, ...]  # this round's secret bids, None: not yet
    last_bids: tuple[int, ...]  # the bids revealed at the end of the last round
    actions: int
    rng_state: RngState


def _plural(coins: int) -> str:
    return "1 doubloon" if coins == 1 else f"{coins} doubloons"


class DoubloonsRules(Rules[DoubloonsState]):
    id = "doubloons"
    version = 1
    title = "Doubloons (test game)"
    min_players = 2
    max_players = 4
    options = (OptionInfo("purse", "Doubloons each seat starts with.", example=4),)
    simultaneous = True
    chance_in_play = True
    colours = ("red", "blue", "green", "yellow")
    secret_parts = ("pending", "rng")

    def new_game(
        self, players: int, seed: int | str, options: dict[str, Any] | None = None
    ) -> DoubloonsState:
        options = check_new_game(
            "Doubloons", players, seed, options, low=self.min_players, high=self.max_players, known=["purse"]
        )
        purse = options.get("purse", PURSE)
        if type(purse) is not int or not 0 <= purse <= 20:
            raise InvalidOptions("purse must be a whole number from 0 to 20")
        return DoubloonsState(
            players,
            0,
            (purse,) * players,
            (0,) * players,
            (None,) * players,
            (),
            0,
            random.Random(seed).getstate(),
        )

    def to_act(self, state: DoubloonsState) -> list[int]:
        if state.round >= ROUNDS:
            return []
        return [seat for seat, bid in enumerate(state.pending) if bid is None]

    def legal_actions(self, state: DoubloonsState, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        return [{"type": "bid", "coins": c} for c in range(min(MAX_BID, state.purses[seat]) + 1)]

    def forced_action(self, state: DoubloonsState, seat: int) -> Action | None:
        if seat in self.to_act(state) and state.purses[seat] == 0:
            return {"type": "bid", "coins": 0}
        return None

    def _check(self, state: DoubloonsState, seat: Any, action: Any) -> int:
        if type(seat) is not int or not 0 <= seat < state.players:
            raise IllegalAction(f"There is no seat {seat!r} in this game")
        if seat not in self.to_act(state):
            raise IllegalAction("The game is over" if state.round >= ROUNDS else "You have already bid")
        if not isinstance(action, dict) or action.keys() != {"type", "coins"} or action["type"] != "bid":
            raise IllegalAction('An action is {"type": "bid", "coins": N}')
        coins = action["coins"]
        if type(coins) is not int or not 0 <= coins <= min(MAX_BID, state.purses[seat]):
            raise IllegalAction(f"Bid a whole number from 0 to {min(MAX_BID, state.purses[seat])}")
        return int(coins)

    def step(self, state: DoubloonsState, seat: int, action: Action) -> Step[DoubloonsState]:
        coins = self._check(state, seat, action)
        who = self.seat_name(seat)
        pending = (*state.pending[:seat], coins, *state.pending[seat + 1 :])
        if None in pending:
            after = state._replace(pending=pending, actions=state.actions + 1)
            return Step(
                after,
                f"{who} has chosen a bid.",
                private={seat: f"You bid {_plural(coins)}."},
                public_action={"type": "bid"},
                full_text=f"{who} bids {_plural(coins)}.",
            )
        bids = tuple(0 if b is None else b for b in pending)
        top = max(bids)
        tied = [s for s, b in enumerate(bids) if b == top]
        rng = rng_from_state(state.rng_state)
        winner = tied[rng.randrange(len(tied))] if len(tied) > 1 else tied[0]
        points = tuple(p + (s == winner) for s, p in enumerate(state.points))
        after = DoubloonsState(
            state.players,
            state.round + 1,
            tuple(p - b for p, b in zip(state.purses, bids, strict=True)),
            points,
            (None,) * state.players,
            bids,
            state.actions + 1,
            rng.getstate(),
        )
        shown = ", ".join(f"{self.seat_name(s)} {b}" for s, b in enumerate(bids))
        text = f"{who} bids {_plural(coins)}; the bids are {shown}; {self.seat_name(winner)} takes the round."
        return Step(after, text)

    def reveals(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        """Every bid is final: it is revealed with the others, and the last one may roll."""
        self._check(state, seat, action)
        return "your bid is revealed with the others"

    def preview(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        """What the bid costs and what it may win, from the seat's own purse and the public
        points: never the others' bids (secret until all are in) or the tie-break roll."""
        coins = self._check(state, seat, action)
        purse = state.purses[seat]
        return (f"You pay {_plural(coins)} when the bids are revealed (purse {purse} → {purse - coins}); "
                "the highest bid takes the round, a tie is rolled for.")

    def score_now(self, state: DoubloonsState) -> list[int | float]:
        """The points of the rounds played so far, all public."""
        return list(state.points)

    def view(self, state: DoubloonsState, seat: int | None) -> dict[str, JSON]:
        return {
            **view_header(self.id, self.version, self.title, seat),
            "round": state.round,
            "purses": list(state.purses),
            "points": list(state.points),
            "chosen": [bid is not None for bid in state.pending],
            "my_bid": None if seat is None else state.pending[seat],
            "last_bids": list(state.last_bids),
            "to_act": self.to_act(state),
            "result": self.result(state),
        }

    def result(self, state: DoubloonsState) -> dict[str, list[int]] | None:
        if state.round < ROUNDS:
            return None
        best = max(state.points)
        return {"scores": list(state.points), "winners": [s for s, p in enumerate(state.points) if p == best]}

    def dump(self, state: DoubloonsState) -> dict[str, JSON]:
        return {
            "rules": self.id,
            "players": state.players,
            "round": state.round,
            "purses": list(state.purses),
            "points": list(state.points),
            "pending": list(state.pending),
            "last_bids": list(state.last_bids),
            "actions": state.actions,
            "rng": rng_state_to_json(state.rng_state),
        }

    def load(self, data: dict[str, JSON]) -> DoubloonsState:
        try:
            return DoubloonsState(
                int(data["players"]),
                int(data["round"]),
                tuple(data["purses"]),
                tuple(data["points"]),
                tuple(data["pending"]),
                tuple(data["last_bids"]),
                int(data["actions"]),
                rng_state_from_json(data["rng"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidSnapshot(f"not a Doubloons snapshot: {exc}") from None

    def action_count(self, state: DoubloonsState) -> int:
        return state.actions

    def determinize(self, state: DoubloonsState, seat: int, rng: random.Random) -> DoubloonsState:
        """Others' pending bids are secret: each is drawn again among the bids its seat could
        have made; the generator (tie rolls) is drawn again too."""
        pending = tuple(
            bid if bid is None or s == seat else rng.randint(0, min(MAX_BID, state.purses[s]))
            for s, bid in enumerate(state.pending)
        )
        return state._replace(pending=pending, rng_state=fresh_rng_state(rng))


class TellingDoubloons(DoubloonsRules):
    """Faulty: its determinization is the truth itself, so a search bot would see the others'
    pending bids and the future rolls."""

    def determinize(self, state: DoubloonsState, seat: int, rng: random.Random) -> DoubloonsState:
        return state


class ReadingDoubloons(DoubloonsRules):
    """A position evaluation that reads the others' pending bids, which the seat cannot see
    (legal for ``evaluate``, which the rules document as the greedy bot's, and a trap for a
    search that ranks its moves by it on the real state rather than a drawn one)."""

    id = "reading-doubloons"

    def evaluate(self, state: DoubloonsState, seat: int) -> float:
        mine = state.pending[seat]
        others = [bid for s, bid in enumerate(state.pending) if s != seat and bid is not None]
        edge = 0.0
        if mine is not None and others:
            # Winning the round is worth a point; paying more than the winning bid wastes coins.
            edge = 1.0 if mine > max(others) else -0.1 * mine
        lead = state.points[seat] - max(p for s, p in enumerate(state.points) if s != seat)
        return lead + edge + 0.01 * state.purses[seat]


class LeakyDoubloons(DoubloonsRules):
    """Shows every pending bid to everyone: the conformance suite must catch it."""

    id = "leaky-doubloons"

    def view(self, state: DoubloonsState, seat: int | None) -> dict[str, JSON]:
        return {**super().view(state, seat), "bids_so_far": list(state.pending)}


class ChattyDoubloons(DoubloonsRules):
    """Tells everyone how much a secret bid was: the conformance suite must catch it."""

    id = "chatty-doubloons"

    def step(self, state: DoubloonsState, seat: int, action: Action) -> Step[DoubloonsState]:
        done = super().step(state, seat, action)
        return done._replace(text=done.full_text) if done.full_text else done


class PeekingDoubloons(DoubloonsRules):
    """Words its final moves by the next tie-break roll, which the generator already knows:
    the conformance suite must catch it reading a secret."""

    id = "peeking-doubloons"

    def reveals(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        self._check(state, seat, action)
        if rng_from_state(state.rng_state).random() < 0.5:
            return "your bid is revealed with the others"
        return "your bid is revealed with the others, and a roll may follow"


class CarelessDoubloons(DoubloonsRules):
    """Lets every bid be taken back, though a bid is secret and the last one may roll: the
    conformance suite must catch it."""

    id = "careless-doubloons"

    def reveals(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        self._check(state, seat, action)
        return None


class MutatingDoubloons(DoubloonsRules):
    """Records a bid in the pending list in place, so the caller's state changes too: the
    conformance suite must catch it."""

    id = "mutating-doubloons"

    def new_game(
        self, players: int, seed: int | str, options: dict[str, Any] | None = None
    ) -> DoubloonsState:
        pending: Any = [None] * players
        return super().new_game(players, seed, options)._replace(pending=pending)

    def step(self, state: DoubloonsState, seat: int, action: Action) -> Step[DoubloonsState]:
        done = super().step(state, seat, action)
        if done.state.round != state.round:  # the round ended: a fresh list
            fresh: Any = [None] * state.players
            return done._replace(state=done.state._replace(pending=fresh))
        shared: Any = state.pending
        shared[seat] = done.state.pending[seat]  # the bug: the caller's list changes
        return done._replace(state=done.state._replace(pending=shared))


class PryingPreviewDoubloons(DoubloonsRules):
    """Previews a bid by naming the bids already made: the conformance suite must catch it
    reading a secret."""

    id = "prying-preview-doubloons"

    def preview(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        said = super().preview(state, seat, action)
        made = ", ".join(f"{self.seat_name(s)} {b}" for s, b in enumerate(state.pending) if b is not None)
        return f"{said} Bids so far: {made}." if made else said


class ForetellingPreviewDoubloons(DoubloonsRules):
    """Previews the last bid by stepping the game, so a tie's roll shows before the move: the
    conformance suite must catch it reading the generator."""

    id = "foretelling-preview-doubloons"

    def preview(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        return self.step(state, seat, action).text_for(seat)


class DicePreviewDoubloons(DoubloonsRules):
    """Words its previews by a draw of the global generator: the conformance suite must catch
    a preview that draws."""

    id = "dice-preview-doubloons"

    def preview(self, state: DoubloonsState, seat: int, action: Action) -> str | None:
        said = super().preview(state, seat, action)
        return said if random.random() < 0.5 else f"{said} Good luck!"


class WrongScoreDoubloons(DoubloonsRules):
    """Plots the doubloons left, not the points, in the replay chart: the conformance suite
    must catch a score_now that disagrees with the result at the end."""

    id = "wrong-score-doubloons"

    def score_now(self, state: DoubloonsState) -> list[int | float]:
        return list(state.purses)


class HastyDoubloons(DoubloonsRules):
    """Replays fast by settling a tie without its roll (the first tied seat wins, the
    generator stays): its apply and its step part ways on a tie, and the conformance suite
    must catch it."""

    id = "hasty-doubloons"

    def apply(self, state: DoubloonsState, seat: int, action: Action) -> DoubloonsState:
        after = self.step(state, seat, action).state
        if after.round == state.round:
            return after
        bids = after.last_bids
        first = bids.index(max(bids))
        points = tuple(p + (s == first) for s, p in enumerate(state.points))
        return after._replace(points=points, rng_state=state.rng_state)
