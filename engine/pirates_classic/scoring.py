"""Final scoring (C-END-1, C-END-2).

``score_sheet`` works on any state, finished or not, so bots can ask "what if the game ended
now"; the rules only report it once the game is over.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.pirates_classic.cards import KINDS
from engine.pirates_classic.state import ClassicState


class SeatScore(NamedTuple):
    treasury: int  # before final scoring
    booty: tuple[int, ...]  # ducats per kind: a share of the bonus, or 1 per piece
    total: int

    def as_json(self) -> dict[str, object]:
        return {
            "treasury": self.treasury,
            "booty": dict(zip(KINDS, self.booty, strict=True)),
            "total": self.total,
        }


def booty_ducats(counts: list[int], bonus: int) -> list[int]:
    """C-END-1 for one kind: the players with the most pieces (at least one) share the bonus
    equally, rounded down; every other player gets 1 ducat per piece."""
    top = max(counts)
    if top < 1:
        return [0] * len(counts)
    leaders = counts.count(top)
    return [bonus // leaders if count == top else count for count in counts]


def score_sheet(state: ClassicState) -> list[SeatScore]:
    seats = range(state.players)
    per_kind = [
        booty_ducats([state.booty[s][k] for s in seats], bonus)
        for k, bonus in enumerate(state.card_set.majority_bonus)
    ]
    return [
        SeatScore(
            state.treasury[s],
            tuple(kind[s] for kind in per_kind),
            state.treasury[s] + sum(kind[s] for kind in per_kind),
        )
        for s in seats
    ]


def totals(state: ClassicState) -> list[int]:
    return [score.total for score in score_sheet(state)]


def final_result(state: ClassicState) -> dict[str, list[int]]:
    """C-END-2: most ducats wins; tied players share the win."""
    scores = totals(state)
    best = max(scores)
    return {"scores": scores, "winners": [s for s, total in enumerate(scores) if total == best]}


def evaluate(state: ClassicState, seat: int) -> float:
    """For the greedy bot: ducats if the game ended now (majorities included), less the best
    opponent's."""
    scores = totals(state)
    return float(scores[seat] - max(total for s, total in enumerate(scores) if s != seat))
