"""Reading one K-ACT action: strict parsing plus the legality checks of that single action.

``check`` never builds the list of legal actions, so validating a replayed log costs about as
much as applying it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.captain_lucky.cards import KIND_INDEX, KINDS, NAMES, PLURALS, count_of
from engine.captain_lucky.state import (
    MIDDLE,
    OVER,
    PLACE,
    ROLL,
    SET_SIZE,
    STEAL,
    LuckyState,
    TreasureSet,
    area_of,
    find_set,
    parse_set_id,
    seat_name,
)
from engine.errors import IllegalAction


class Place(NamedTuple):
    kind: int
    cards: int


class StealSet(NamedTuple):
    owner: int
    target: TreasureSet


class Reroll(NamedTuple):
    """Discard one matching card per blank die and throw those dice again (K-TURN-4)."""


class CaptainBonus(NamedTuple):
    """Throw the blank dice again for free, once per game (K-TURN-5)."""


class Stop(NamedTuple):
    """Give up the steal after a roll with a blank (K-TURN-4)."""


Move = Place | StealSet | Reroll | CaptainBonus | Stop

_KEYS: dict[str, frozenset[str]] = {
    "place": frozenset({"type", "kind", "count"}),
    "steal": frozenset({"type", "set"}),
    "reroll": frozenset({"type"}),
    "captain_bonus": frozenset({"type"}),
    "stop": frozenset({"type"}),
}

_PHASE_HINT = {
    PLACE: "First place cards from your hand in the middle",
    STEAL: "You have placed; now name a set to steal",
    ROLL: "Your steal is under way: reroll, captain_bonus or stop",
}


def check(state: LuckyState, seat: Any, action: Any) -> Move:
    """The validated move of ``seat``; raises ``IllegalAction`` saying what is wrong."""
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction(f"There is no seat {seat!r} in this game")
    if state.phase == OVER:
        raise IllegalAction("The game is over")
    if seat != state.active:
        raise IllegalAction(f"It is {seat_name(state.active)}'s turn, not {seat_name(seat)}'s")
    if not isinstance(action, dict):  # a FrozenAction from legal_actions is a dict too
        raise IllegalAction("An action must be a JSON object")
    kind = action.get("type")
    keys = _KEYS.get(kind) if type(kind) is str else None
    if keys is None:
        raise IllegalAction("type must be one of: " + ", ".join(_KEYS))
    if action.keys() != keys:
        extra = sorted(map(str, action.keys() - keys))
        if extra:
            raise IllegalAction(f"A {kind} action has no {', '.join(extra)}")
        raise IllegalAction(f"A {kind} action needs " + ", ".join(sorted(keys - action.keys())))
    if kind == "place":
        return _place(state, seat, action)
    if kind == "steal":
        return _steal(state, seat, action)
    if state.phase != ROLL:
        raise IllegalAction(_PHASE_HINT[state.phase])
    if kind == "reroll":
        return _reroll(state, seat)
    if kind == "captain_bonus":
        if state.captain_used[seat]:
            raise IllegalAction("You have used your captain bonus already: it is once per game")
        return CaptainBonus()
    return Stop()


def _place(state: LuckyState, seat: int, action: dict[str, Any]) -> Place:
    if state.phase != PLACE:
        raise IllegalAction(_PHASE_HINT[state.phase])
    name = action["kind"]
    kind = KIND_INDEX.get(name) if type(name) is str else None
    if kind is None:
        raise IllegalAction("kind must be one of: " + ", ".join(KINDS))
    count = action["count"]
    if type(count) is not int:
        raise IllegalAction("count must be a whole number from 1 to 5")
    if not 1 <= count <= SET_SIZE:
        raise IllegalAction("You place 1 to 5 cards of one kind")
    held = state.hands[seat][kind]
    if held < count:
        holding = f"no {PLURALS[kind]}" if held == 0 else count_of(held, kind)
        raise IllegalAction(f"You hold {holding}, not {count}")
    return Place(kind, count)


def _steal(state: LuckyState, seat: int, action: dict[str, Any]) -> StealSet:
    if state.phase != STEAL:
        raise IllegalAction(_PHASE_HINT[state.phase])
    name = action["set"]
    if type(name) is not str:
        raise IllegalAction('set must be a set id such as "m3" or "p2s1"')
    parsed = parse_set_id(name)
    if parsed is None:
        raise IllegalAction(f'There is no set {name!r}: sets are named like "m3" or "p2s1"')
    owner, num = parsed
    if owner >= state.players:
        raise IllegalAction(f"There is no seat {owner} in this game")
    target = find_set(area_of(state, owner), num)
    if target is None:
        # Ids are never reused (K-SET-3): a stale id is refused, not redirected.
        where = "in the middle" if owner == MIDDLE else f"in {seat_name(owner)}'s collection"
        raise IllegalAction(f"There is no set {name} {where} (any more)")
    if owner == seat:
        raise IllegalAction("You cannot steal from your own collection")
    if owner != MIDDLE and target.cards >= SET_SIZE:
        raise IllegalAction(f"{name} is a complete set of 5 and cannot be stolen")
    return StealSet(owner, target)


def _reroll(state: LuckyState, seat: int) -> Reroll:
    steal = state.steal
    assert steal is not None  # the ROLL phase always has one
    target = find_set(area_of(state, steal.owner), steal.num)
    assert target is not None
    blanks = steal.dice.count(False)
    held = state.hands[seat][target.kind]
    if held < blanks:
        word = NAMES[target.kind] if blanks == 1 else PLURALS[target.kind]
        raise IllegalAction(
            f"A re-roll of {blanks} {'die' if blanks == 1 else 'dice'} costs {blanks} {word}; you hold {held}"
        )
    return Reroll()
