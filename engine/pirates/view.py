"""What a seat (or a spectator) sees: everything on the table, never the deck order, the seed
or the random state. The format is documented in engine/README.md."""

from __future__ import annotations

from typing import Any

from engine.base import seat_colour, view_header
from engine.pirates.cards import KINDS, MAJORITY_KINDS
from engine.pirates.scoring import final_result, score_sheet
from engine.pirates.state import (
    ACTION_LIMIT,
    PIRATE_IDS,
    PIRATE_VALUE,
    PIRATES_PER_SEAT,
    PiratesState,
    boarded,
)

_ROLES = ("captain", "mate")


def _pirate(pirate: int, position: int) -> dict[str, Any]:
    value = PIRATE_VALUE[pirate]
    return {
        "id": PIRATE_IDS[pirate],
        "seat": pirate // PIRATES_PER_SEAT,
        "value": "?" if value is None else value,
        "role": _ROLES[position] if position < 2 else "crew",
    }


def view(state: PiratesState, seat: int | None, *, rules_id: str, version: int, title: str) -> dict[str, Any]:
    card_set = state.card_set
    finished = bool(state.end)
    parties = [
        {
            "id": PIRATE_IDS[party[0]],
            "controller": party[0] // PIRATES_PER_SEAT,
            "size": len(party),
            "pirates": [_pirate(p, i) for i, p in enumerate(party)],
        }
        for party in state.parties
    ]
    seats = [
        {
            "seat": s,
            "colour": seat_colour(s),
            "treasury": state.treasury[s],
            "booty": dict(zip(KINDS, state.booty[s], strict=True)),
            "kept": [card_set.card_json(c) for c in state.kept[s]],
            "black_spot": state.black_spot == s,
            "parties": [p["id"] for p in parties if p["controller"] == s],
        }
        for s in range(state.players)
    ]
    result = final_result(state) if finished else None
    return {
        **view_header(rules_id, version, title, seat),
        "players": state.players,
        "colours": [seat_colour(s) for s in range(state.players)],
        "status": "finished" if finished else "running",
        "end_reason": state.end or None,
        "active": None if finished else state.active,
        "to_act": [] if finished else [state.active],
        "action_count": state.actions,
        "action_limit": ACTION_LIMIT,
        "passes_in_a_row": state.passes,
        "card_set": {
            "id": card_set.id,
            "note": card_set.data.get("note", ""),
            "majority_bonus": dict(zip(MAJORITY_KINDS, card_set.majority_bonus, strict=True)),
            "wheel_rate": list(card_set.wheel_rate[state.players]),
        },
        "display": [None if c < 0 else card_set.card_json(c) for c in state.display],
        "deck_count": len(state.deck),
        "boarded_count": boarded(state),
        "card_count": len(card_set),
        "discarded": [card_set.card_json(c) for c in state.discarded],
        "supply": dict(zip(KINDS, state.supply, strict=True)),
        "black_spot": None if state.black_spot < 0 else state.black_spot,
        "seats": seats,
        "parties": parties,
        "result": result,
        "scoring": [score.as_json() for score in score_sheet(state)] if finished else None,
    }
