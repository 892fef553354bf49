"""The state of a game of Captain Lucky and the names of its pieces.

Cards are kind indices (cards.KINDS). A hand is a count per kind, since cards of one kind
are alike; the pile and the discard pile keep their order. Sets carry their fixed number
(K-SET-3): ``m<n>`` in the middle, ``p<seat>s<n>`` in a seat's collection.
"""

from __future__ import annotations

import re
from typing import NamedTuple, TypeVar

from engine.captain_lucky.cards import count_of
from engine.captain_lucky.dice import GeneratorState

T = TypeVar("T")

HAND_SIZE = 5  # K-SET-2, K-TURN-1, K-TURN-6
SET_SIZE = 5  # K-SET-3
MIDDLE_START = 3  # K-SET-2
HEAD_FACES = 3  # K-COMP-2, K-TURN-7: faces 0-2 of six (dice.DIE_FACES) are pirate heads

MIDDLE = -1  # the owner of a middle set

# Seat colours in seat order; six seats need one more than engine.base.SEAT_COLOURS has.
COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "black", "purple")

PLACE = "place"  # the active seat places cards (K-TURN-1)
STEAL = "steal"  # it names a set to steal (K-TURN-2)
ROLL = "roll"  # its last roll showed a blank: reroll, captain_bonus or stop (K-TURN-4, K-TURN-5)
OVER = "over"  # the game has ended (K-END-1)
PHASES = (PLACE, STEAL, ROLL, OVER)

# How a roll was made, as the view and the snapshot name it.
BY_STEAL, BY_REROLL, BY_CAPTAIN = "steal", "reroll", "captain_bonus"

_MIDDLE_ID = re.compile(r"m([1-9][0-9]*)")
_SEAT_ID = re.compile(r"p([0-9])s([1-9][0-9]*)")


class TreasureSet(NamedTuple):
    """Face-up cards of one kind, at most five (K-SET-3)."""

    num: int
    kind: int
    cards: int


Area = tuple[TreasureSet, ...]  # the middle or one collection, in set-number order


class Steal(NamedTuple):
    """A steal under way whose last roll showed a blank."""

    owner: int  # MIDDLE or the seat whose collection holds the target
    num: int
    dice: tuple[bool, ...]  # True for a pirate head, in die order


class Roll(NamedTuple):
    """The latest roll of the game, public for ever (K-END-4)."""

    seat: int
    owner: int
    num: int
    kind: int
    cards: int
    dice: tuple[bool, ...]  # every die after the roll, True for a head
    rolled: tuple[int, ...]  # the dice this roll threw, in die order
    by: str  # BY_STEAL, BY_REROLL or BY_CAPTAIN
    action: int  # the action that made it, counted from 1 (its action_count)


class LuckyState(NamedTuple):
    """One moment of a game. A NamedTuple: cheap to build on every action, immutable, and
    equal when its parts are."""

    players: int
    hands: tuple[tuple[int, ...], ...]  # [seat][kind] -> cards held
    pile: tuple[int, ...]  # kinds, top first
    middle: Area
    collections: tuple[Area, ...]  # [seat]
    next_middle: int  # the number the next middle set takes
    next_set: tuple[int, ...]  # [seat] the number its next collected set takes
    discard: tuple[int, ...]  # kinds, in the order discarded (K-TURN-4)
    captain_used: tuple[bool, ...]  # [seat] captain card turned over (K-TURN-5)
    active: int
    phase: str
    steal: Steal | None  # set while phase is ROLL
    last_roll: Roll | None
    actions: int
    rng_state: GeneratorState  # getstate() or a DiceTrail standing for it (dice.py)


def replace_at(row: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``row`` with ``row[index]`` replaced: how per-seat tuples change."""
    return (*row[:index], value, *row[index + 1 :])


def seat_name(seat: int) -> str:
    """A seat as players read it ("Red")."""
    return COLOURS[seat].capitalize()


def set_id(owner: int, num: int) -> str:
    return f"m{num}" if owner == MIDDLE else f"p{owner}s{num}"


def parse_set_id(text: str) -> tuple[int, int] | None:
    """(owner, number) of a set id in its one spelling (K-ACT), ``None`` for anything else."""
    match = _MIDDLE_ID.fullmatch(text)
    if match:
        return MIDDLE, int(match[1])
    match = _SEAT_ID.fullmatch(text)
    if match:
        return int(match[1]), int(match[2])
    return None


def area_of(state: LuckyState, owner: int) -> Area:
    return state.middle if owner == MIDDLE else state.collections[owner]


def find_set(area: Area, num: int) -> TreasureSet | None:
    for found in area:
        if found.num == num:
            return found
    return None


def add_cards(area: Area, next_num: int, kind: int, count: int) -> tuple[Area, int, list[TreasureSet]]:
    """K-SET-3: fill the incomplete set of ``kind`` first, then start new sets of up to five.

    Returns the new area, the next free number and the sets that changed or appeared. Every
    area holds at most one incomplete set of a kind, because adding always fills it first.
    """
    sets = list(area)
    touched: list[TreasureSet] = []
    for i, existing in enumerate(sets):
        if existing.kind == kind and existing.cards < SET_SIZE:
            put = min(SET_SIZE - existing.cards, count)
            sets[i] = existing._replace(cards=existing.cards + put)
            touched.append(sets[i])
            count -= put
            break
    while count > 0:
        put = min(SET_SIZE, count)
        sets.append(TreasureSet(next_num, kind, put))
        touched.append(sets[-1])
        next_num += 1
        count -= put
    return tuple(sets), next_num, touched


def describe_sets(owner: int, sets: list[TreasureSet]) -> str:
    """ "m2: 5 rubies, m5: 1 ruby" """
    return ", ".join(f"{set_id(owner, s.num)}: {count_of(s.cards, s.kind)}" for s in sets)


def can_be_stolen(owner: int, target: TreasureSet) -> bool:
    """K-TURN-2: middle sets always; a collected set only while it is incomplete."""
    return owner == MIDDLE or target.cards < SET_SIZE


def targets(state: LuckyState, seat: int) -> list[tuple[int, TreasureSet]]:
    """Every set ``seat`` may try to steal, middle first, then the other seats in seat order,
    each area in set-number order (the order legal_actions lists them)."""
    found = [(MIDDLE, s) for s in state.middle]
    for owner, area in enumerate(state.collections):
        if owner != seat:
            found += [(owner, s) for s in area if s.cards < SET_SIZE]
    return found


def has_target(state: LuckyState, seat: int) -> bool:
    if state.middle:
        return True
    return any(
        s.cards < SET_SIZE for owner, area in enumerate(state.collections) if owner != seat for s in area
    )
