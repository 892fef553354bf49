"""What a seat (or a spectator) sees: everything on the table, never the deck order, the seed
or the random state. Every viewer sees the same table (treasuries, booty, every pirate in
every stack, the challenge questions and answers are public). The format is documented in
engine/pirates_classic/README.md."""

from __future__ import annotations

from typing import Any

from engine.base import seat_colour, view_header
from engine.pirates.state import PIRATE_IDS, PIRATE_VALUE, PIRATES_PER_SEAT, Party
from engine.pirates_classic.cards import KINDS, PIECES_PER_KIND
from engine.pirates_classic.scoring import final_result, score_sheet
from engine.pirates_classic.state import (
    ACTION_LIMIT,
    ANSWER_NAMES,
    ClassicState,
    challenged,
    waiting,
)

_ROLES = ("captain", "mate")


def _stack(party: Party) -> dict[str, Any]:
    return {
        "id": PIRATE_IDS[party[0]],
        "controller": party[0] // PIRATES_PER_SEAT,
        "size": len(party),
        "pirates": [
            {
                "id": PIRATE_IDS[pirate],
                "seat": pirate // PIRATES_PER_SEAT,
                "value": "?" if PIRATE_VALUE[pirate] is None else PIRATE_VALUE[pirate],
                "role": _ROLES[position] if position < 2 else "crew",
            }
            for position, pirate in enumerate(party)
        ],
    }


def _challenge(state: ClassicState) -> dict[str, Any] | None:
    """The challenge window of the turn (C-MUT-2, C-MUT-3); None when nobody was asked."""
    asked = [(s, captain) for s, captain in enumerate(state.asked) if captain >= 0]
    if not asked:
        return None
    return {
        "captain": state.active,
        "open": bool(waiting(state)),
        "questions": [
            {
                "seat": s,
                "stack": PIRATE_IDS[captain],
                "answer": ANSWER_NAMES.get(state.answers[s]),
            }
            for s, captain in asked
        ],
        "challenged": [PIRATE_IDS[c] for c in challenged(state)],
    }


def view(state: ClassicState, seat: int | None, *, rules_id: str, version: int, title: str) -> dict[str, Any]:
    ship_set = state.card_set
    finished = bool(state.end)
    stacks = [_stack(party) for party in state.parties]
    seats = [
        {
            "seat": s,
            "colour": seat_colour(s),
            "treasury": state.treasury[s],
            "booty": dict(zip(KINDS, state.booty[s], strict=True)),
            "stacks": [stack["id"] for stack in stacks if stack["controller"] == s],
        }
        for s in range(state.players)
    ]
    held = [sum(hoard[k] for hoard in state.booty) for k in range(len(KINDS))]
    pending = waiting(state)
    return {
        **view_header(rules_id, version, title, seat),
        "players": state.players,
        "colours": [seat_colour(s) for s in range(state.players)],
        "status": "finished" if finished else "running",
        "end_reason": state.end or None,
        "active": None if finished else state.active,
        "to_act": [] if finished else pending or [state.active],
        "action_count": state.actions,
        "action_limit": ACTION_LIMIT,
        "skips_in_a_row": state.skips,
        "card_set": {
            "id": ship_set.id,
            "note": ship_set.data.get("note", ""),
            "majority_bonus": dict(zip(KINDS, ship_set.majority_bonus, strict=True)),
        },
        "display": [None if ship < 0 else ship_set.ship_json(ship) for ship in state.display],
        "deck_count": len(state.deck),
        "boarded": [ship_set.ship_json(ship) for ship in state.boarded],
        "ship_count": len(ship_set),
        "supply": {kind: PIECES_PER_KIND - held[k] for k, kind in enumerate(KINDS)},
        "seats": seats,
        "stacks": stacks,
        "challenge": None if finished else _challenge(state),
        "result": final_result(state) if finished else None,
        "scoring": [score.as_json() for score in score_sheet(state)] if finished else None,
    }
