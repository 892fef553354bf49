"""Listing every legal action of the active seat, and the one the service makes for it.

Order: places by kind (K-COMP-1 order), then by count from 1; steals middle first, then the
other seats in seat order, each in set-number order; after a roll, reroll, captain_bonus,
stop. Actions are shared read-only objects (engine.base.FrozenAction), built once.
"""

from __future__ import annotations

from typing import Any

from engine.base import FrozenAction
from engine.captain_lucky.cards import KINDS
from engine.captain_lucky.state import (
    OVER,
    PLACE,
    ROLL,
    SET_SIZE,
    LuckyState,
    area_of,
    find_set,
    set_id,
    targets,
)

_PLACES: tuple[tuple[FrozenAction, ...], ...] = tuple(
    tuple(FrozenAction(type="place", kind=kind, count=count) for count in range(SET_SIZE + 1))
    for kind in KINDS
)
REROLL = FrozenAction(type="reroll")
CAPTAIN_BONUS = FrozenAction(type="captain_bonus")
STOP = FrozenAction(type="stop")
_STEALS: dict[tuple[int, int], FrozenAction] = {}
_MEMO_LIMIT = 10_000


def _steal(owner: int, num: int) -> FrozenAction:
    action = _STEALS.get((owner, num))
    if action is None:
        if len(_STEALS) >= _MEMO_LIMIT:
            _STEALS.clear()
        action = _STEALS[(owner, num)] = FrozenAction(type="steal", set=set_id(owner, num))
    return action


def _blanks_and_kind(state: LuckyState) -> tuple[int, int]:
    steal = state.steal
    assert steal is not None
    target = find_set(area_of(state, steal.owner), steal.num)
    assert target is not None
    return steal.dice.count(False), target.kind


def legal_actions(state: LuckyState, seat: int) -> list[dict[str, Any]]:
    if state.phase == OVER or seat != state.active:
        return []
    if state.phase == PLACE:
        hand = state.hands[seat]
        return [_PLACES[kind][count] for kind in range(len(KINDS)) for count in range(1, hand[kind] + 1)]
    if state.phase == ROLL:
        blanks, kind = _blanks_and_kind(state)
        out: list[dict[str, Any]] = []
        if state.hands[seat][kind] >= blanks:
            out.append(REROLL)
        if not state.captain_used[seat]:
            out.append(CAPTAIN_BONUS)
        out.append(STOP)
        return out
    return [_steal(owner, target.num) for owner, target in targets(state, seat)]


def forced_action(state: LuckyState, seat: int) -> dict[str, Any] | None:
    """``stop`` when everyone can see it is the only choice: the captain bonus is spent and
    the hand holds fewer cards than there are blanks. When only the hand's kinds rule out a
    re-roll, the player still stops by hand: stopping at once would tell the table what the
    hidden hand holds (K-END-4)."""
    if state.phase != ROLL or seat != state.active or not state.captain_used[seat]:
        return None
    blanks, _ = _blanks_and_kind(state)
    return STOP if sum(state.hands[seat]) < blanks else None
