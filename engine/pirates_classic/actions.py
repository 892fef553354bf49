"""Reading one C-ACT action: strict parsing plus the legality checks of that single action.

``check`` never builds the list of legal actions, so validating a replayed log costs about as
much as applying it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.base import seat_name
from engine.errors import IllegalAction
from engine.pirates.actions import action_type
from engine.pirates.state import MAX_PARTY, PIRATE_INDEX, PIRATES_PER_SEAT, pirate_name
from engine.pirates_classic.cards import ShipSet
from engine.pirates_classic.legal import has_move
from engine.pirates_classic.state import ClassicState, challenged, find_party, waiting


class MoveStack(NamedTuple):
    """C-MOVE-1: the stack at index ``party`` goes on top of the one at ``onto``."""

    party: int
    onto: int


class Board(NamedTuple):
    party: int  # index into state.parties
    space: int  # display space 0…2
    booty: str | None


class Challenge(NamedTuple):
    captain: int  # of the active player's stack the seat challenges


class Decline(NamedTuple):
    """The seat lets the captain play on (C-MUT-2)."""


class Skip(NamedTuple):
    """The active seat can neither move nor board (C-TURN-1)."""


Decision = MoveStack | Board | Challenge | Decline | Skip

_KEYS: dict[str, frozenset[str]] = {
    "move": frozenset({"type", "party", "onto"}),
    "board": frozenset({"type", "party", "ship", "booty"}),
    "challenge": frozenset({"type", "party"}),
    "decline": frozenset({"type"}),
    "skip": frozenset({"type"}),
}


def ship_title(ship_set: ShipSet, ship: int, *, start: bool = False) -> str:
    """A ship as players say it: "the Brigantine Charity" ("The …" to start a sentence)."""
    return ("The " if start else "the ") + ship_set.name[ship]


def names(seats: list[int]) -> str:
    """ "Blue", "Blue and Green", "Red, Blue and Green"."""
    words = [seat_name(s) for s in seats]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def check(state: ClassicState, seat: Any, action: Any) -> Decision:
    """The validated decision of ``seat``; raises ``IllegalAction`` saying what is wrong."""
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction(f"There is no seat {seat!r} in this game")
    if state.end:
        raise IllegalAction("The game is over")
    kind = action_type(action, _KEYS)
    if kind == "challenge" or kind == "decline":
        return _answer(state, seat, action)
    if seat != state.active:
        raise IllegalAction(f"It is {seat_name(state.active)}'s turn, not {seat_name(seat)}'s")
    pending = waiting(state)
    if pending:
        raise IllegalAction(f"{names(pending)} must first say whether they challenge you")
    if kind == "move":
        return _move(state, seat, action)
    if kind == "board":
        return _board(state, seat, action)
    if has_move(state, seat):
        raise IllegalAction("You can only skip when you can neither move nor board")
    return Skip()


def _pirate(state: ClassicState, value: Any) -> int:
    pirate = PIRATE_INDEX.get(value) if type(value) is str else None
    if pirate is None:
        raise IllegalAction(f'Name a stack by its top pirate\'s id, such as "0.3", not {value!r}')
    if pirate >= state.players * PIRATES_PER_SEAT:
        raise IllegalAction(f"There is no pirate {value!r} in this game")
    return pirate


def _stack(state: ClassicState, value: Any) -> int:
    captain = _pirate(state, value)
    index = find_party(state.parties, captain)
    if index < 0:
        raise IllegalAction(
            f"{pirate_name(captain)} is not on top of a stack; name a stack by its top pirate"
        )
    return index


def _own_stack(state: ClassicState, seat: int, value: Any) -> int:
    index = _stack(state, value)
    controller = state.parties[index][0] // PIRATES_PER_SEAT
    if controller != seat:
        raise IllegalAction(f"That stack is {seat_name(controller)}'s, not yours")
    return index


def _move(state: ClassicState, seat: int, action: dict[str, Any]) -> MoveStack:
    party = _own_stack(state, seat, action["party"])
    onto = _stack(state, action["onto"])
    forced = challenged(state)
    if forced:
        raise IllegalAction(_forced_message(forced))
    target = state.parties[onto]
    if target[0] // PIRATES_PER_SEAT == seat:  # P-ASM-4
        raise IllegalAction("You cannot put a stack on a stack you control")
    size = len(state.parties[party]) + len(target)
    if size > MAX_PARTY:  # P-ASM-2
        raise IllegalAction(
            f"Together those stacks would have {size} pirates; a stack holds at most {MAX_PARTY}"
        )
    return MoveStack(party, onto)


def _forced_message(captains: list[int]) -> str:
    stacks = " or ".join(f"the stack led by {pirate_name(c)}" for c in captains)
    return f"You were challenged: you must board a ship with {stacks}"


def _board(state: ClassicState, seat: int, action: dict[str, Any]) -> Board:
    party = _own_stack(state, seat, action["party"])
    ship_set = state.card_set
    value = action["ship"]
    ship = ship_set.index.get(value, -1) if type(value) is str else -1
    if ship < 0:
        raise IllegalAction(f"There is no ship {value!r} in this game")
    if ship not in state.display:
        raise IllegalAction(f"{ship_title(ship_set, ship, start=True)} is not face up on the display")
    forced = challenged(state)
    if forced and state.parties[party][0] not in forced:
        raise IllegalAction(_forced_message(forced))
    size, need = len(state.parties[party]), ship_set.min_crew[ship]
    if size < need:  # C-BOARD-1
        pirates = "pirate" if size == 1 else "pirates"
        raise IllegalAction(f"That stack has {size} {pirates}; {ship_title(ship_set, ship)} needs {need}")
    return Board(party, state.display.index(ship), _booty(ship_set, ship, action["booty"]))


def _booty(ship_set: ShipSet, ship: int, value: Any) -> str | None:
    """P-CAP-2 and P-ACT: the captain's pick, null when there is nothing to choose."""
    if value is None or type(value) is str:
        choice: str | None = value
        if choice in ship_set.grants[ship]:
            return choice
    title = ship_title(ship_set, ship, start=True)
    choices = ship_set.choices[ship]
    if choices == (None,):
        raise IllegalAction(f"{title} leaves no choice of booty: booty must be null")
    if value is None:
        options = " or ".join(str(c) for c in choices)
        raise IllegalAction(f"Choose the booty of {ship_title(ship_set, ship)}: {options}")
    raise IllegalAction(f"{title} carries {' and '.join(ship_set.booty[ship])}, not {value!r}")


def _answer(state: ClassicState, seat: int, action: dict[str, Any]) -> Challenge | Decline:
    captain = state.asked[seat]
    if captain < 0:
        raise IllegalAction("Nobody has asked you whether you challenge now")
    if state.answers[seat]:
        raise IllegalAction("You have already answered this turn's challenge question")
    if action["type"] == "decline":
        return Decline()
    named = action["party"]
    pirate = _pirate(state, named)
    if pirate != captain:
        raise IllegalAction(
            f"You can only challenge {seat_name(state.active)} to board with the stack led by "
            f"{pirate_name(captain)}, the one holding 3 or more of your pirates"
        )
    return Challenge(captain)
