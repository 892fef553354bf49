"""How good a position is for one seat, for the greedy bot.

The score a seat would have if the game ended now already prices booty majorities, kept
cards and the black spot; a small bonus for controlling large parties stands in for the
captures they threaten next.
"""

from __future__ import annotations

from engine.pirates.scoring import totals as score_totals
from engine.pirates.state import PIRATES_PER_SEAT, PiratesState

PARTY_WEIGHT = 0.5


def evaluate(state: PiratesState, seat: int) -> float:
    totals = score_totals(state)
    mine = totals[seat]
    best_other = max(total for s, total in enumerate(totals) if s != seat)
    reach = max(
        (len(party) for party in state.parties if party[0] // PIRATES_PER_SEAT == seat),
        default=0,
    )
    return mine - best_other + PARTY_WEIGHT * reach
