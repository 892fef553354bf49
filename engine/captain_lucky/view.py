"""What a seat (or a spectator) sees (K-END-4): the middle, collections, captains, the discard
pile, hand sizes, the pile's size and every die; a seat's own hand in its own view only, also
after the end. Never the pile's order, other hands or the generator. The format is in README.md.
"""

from __future__ import annotations

from typing import Any

from engine.base import view_header
from engine.captain_lucky.cards import KINDS, composition, kinds_json
from engine.captain_lucky.scoring import final_result, points, score_sheet
from engine.captain_lucky.state import (
    COLOURS,
    MIDDLE,
    OVER,
    SET_SIZE,
    Area,
    LuckyState,
    area_of,
    find_set,
    set_id,
)


def _dice(dice: tuple[bool, ...]) -> list[str]:
    return ["head" if head else "blank" for head in dice]


def _sets(owner: int, area: Area) -> list[dict[str, Any]]:
    return [
        {"id": set_id(owner, s.num), "kind": KINDS[s.kind], "cards": s.cards, "complete": s.cards == SET_SIZE}
        for s in area
    ]


def _owner(owner: int) -> int | None:
    return None if owner == MIDDLE else owner


def _steal(state: LuckyState) -> dict[str, Any] | None:
    steal = state.steal
    if steal is None:
        return None
    target = find_set(area_of(state, steal.owner), steal.num)
    assert target is not None
    return {
        "seat": state.active,
        "set": set_id(steal.owner, steal.num),
        "owner": _owner(steal.owner),
        "kind": KINDS[target.kind],
        "cards": target.cards,
        "dice": _dice(steal.dice),
        "blanks": steal.dice.count(False),
    }


def _last_roll(state: LuckyState) -> dict[str, Any] | None:
    roll = state.last_roll
    if roll is None:
        return None
    return {
        "seat": roll.seat,
        "set": set_id(roll.owner, roll.num),
        "owner": _owner(roll.owner),
        "kind": KINDS[roll.kind],
        "cards": roll.cards,
        "dice": _dice(roll.dice),
        "rolled": list(roll.rolled),
        "by": roll.by,
        "won": False not in roll.dice,
        "action": roll.action,
    }


def view(state: LuckyState, seat: int | None, *, rules_id: str, version: int, title: str) -> dict[str, Any]:
    finished = state.phase == OVER
    seats = [
        {
            "seat": s,
            "colour": COLOURS[s],
            "captain_heart": s == 0,
            "captain_bonus_used": state.captain_used[s],
            "hand_count": sum(state.hands[s]),
            # K-END-4: a hand is its holder's alone, for ever.
            "hand": dict(zip(KINDS, state.hands[s], strict=True)) if s == seat else None,
            "collection": _sets(s, state.collections[s]),
            "points": points(state, s),
        }
        for s in range(state.players)
    ]
    return {
        **view_header(rules_id, version, title, seat),
        "players": state.players,
        "colours": list(COLOURS[: state.players]),
        "status": "finished" if finished else "running",
        "active": None if finished else state.active,
        "to_act": [] if finished else [state.active],
        "phase": None if finished else state.phase,
        "action_count": state.actions,
        "kinds": kinds_json(),
        "card_count": sum(composition(state.players)),
        "pile_count": len(state.pile),
        "last_round": not state.pile,
        # K-SET-3: the numbers the next new sets take (public: they follow from the log), for
        # previews that name the set a move starts.
        "next_middle": state.next_middle,
        "next_set": list(state.next_set),
        "middle": _sets(MIDDLE, state.middle),
        "discard": [KINDS[k] for k in state.discard],
        "seats": seats,
        "steal": _steal(state),
        "last_roll": _last_roll(state),
        "result": final_result(state) if finished else None,
        "scoring": [score_sheet(state, s) for s in range(state.players)] if finished else None,
    }
