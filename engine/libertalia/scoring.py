"""Scores (L-END-4) and the winners (L-WIN-1: ties share the win)."""

from __future__ import annotations

from typing import Any

from engine.libertalia.campaign import fortune
from engine.libertalia.state import LibertaliaState, scores


def final_result(state: LibertaliaState) -> dict[str, list[int]]:
    totals = scores(state)
    best = max(totals)
    return {"scores": totals, "winners": [s for s, total in enumerate(totals) if total == best]}


def score_sheet(state: LibertaliaState) -> list[dict[str, Any]]:
    """Per seat: the fortune of each finished campaign, the total, and the scored position of
    the last campaign (it stays on the table after the game, L-END-5)."""
    totals = scores(state)
    return [
        {
            "seat": seat,
            "fortunes": [f[seat] for f in state.fortunes],
            "score": totals[seat],
            "last_campaign": fortune(state.chars, state.doubloons[seat], state.booty[seat]),
        }
        for seat in range(state.players)
    ]
