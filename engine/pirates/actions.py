"""Reading one P-ACT action: strict parsing plus the legality checks of that single action.

``check`` never builds the list of legal actions (except for ``pass``, which is legal only
when nothing else is), so validating a replayed log costs about as much as applying it.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any, NamedTuple

from engine.base import seat_name
from engine.errors import IllegalAction
from engine.pirates.cards import CardSet
from engine.pirates.legal import has_move
from engine.pirates.state import (
    MAX_PARTY,
    PIRATE_INDEX,
    PIRATES_PER_SEAT,
    PiratesState,
    party_of,
    pirate_name,
)


class Assemble(NamedTuple):
    party: int  # index into state.parties
    onto: int


class Capture(NamedTuple):
    party: int
    space: int  # display space 0…3
    booty: str | None


class Mutiny(NamedTuple):
    victim: int
    party: int
    pirate: int
    space: int
    booty: str | None


class Ransom(NamedTuple):
    pirate: int
    source: int  # index of the party the pirate is taken from
    onto: int  # captain of the party it joins, -1 for none


class Pass(NamedTuple):
    """No other action is legal (P-TURN-1)."""


Move = Assemble | Capture | Mutiny | Ransom | Pass

_KEYS: dict[str, frozenset[str]] = {
    "assemble": frozenset({"type", "party", "onto"}),
    "capture": frozenset({"type", "party", "card", "booty"}),
    "mutiny": frozenset({"type", "victim", "party", "pirate", "card", "booty"}),
    "ransom": frozenset({"type", "pirate", "onto"}),
    "pass": frozenset({"type"}),
}


def card_title(card_set: CardSet, card: int, *, start: bool = False) -> str:
    """A card as players say it: "the Brig Mermaid" ("The …" to start a sentence)."""
    return ("The " if start else "the ") + card_set.name[card]


def check_turn(state: PiratesState, seat: Any) -> None:
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction(f"There is no seat {seat!r} in this game")
    if state.end:
        raise IllegalAction("The game is over")
    if seat != state.active:
        raise IllegalAction(f"It is {seat_name(state.active)}'s turn, not {seat_name(seat)}'s")


def action_type(action: Any, keys: dict[str, frozenset[str]]) -> str:
    """The type of an action that is a JSON object with exactly the keys its type takes
    (``keys``: type -> keys); raises ``IllegalAction`` saying what is missing or extra."""
    if not isinstance(action, dict):  # a FrozenAction from legal_actions is a dict too
        raise IllegalAction("An action must be a JSON object")
    kind = action.get("type")
    wanted = keys.get(kind) if type(kind) is str else None
    if wanted is None:
        raise IllegalAction("type must be one of: " + ", ".join(keys))
    if action.keys() != wanted:
        article = "An" if str(kind)[:1] in ("a", "e", "i", "o", "u") else "A"
        extra = sorted(map(str, action.keys() - wanted))
        if extra:
            raise IllegalAction(f"{article} {kind} action has no {', '.join(extra)}")
        raise IllegalAction(f"{article} {kind} action needs " + ", ".join(sorted(wanted - action.keys())))
    return str(kind)


def check(state: PiratesState, seat: Any, action: Any) -> Move:
    """The validated move of ``seat``; raises ``IllegalAction`` saying what is wrong."""
    if type(seat) is not int or seat != state.active or state.end:
        check_turn(state, seat)  # says which of those is wrong
    kind = action_type(action, _KEYS)
    if kind == "assemble":
        return _assemble(state, seat, action)
    if kind == "capture":
        return _capture(state, seat, action)
    if kind == "mutiny":
        return _mutiny(state, seat, action)
    if kind == "ransom":
        return _ransom(state, seat, action)
    return _pass(state, seat)


def _pirate(state: PiratesState, value: Any, key: str) -> int:
    if type(value) is not str:
        raise IllegalAction(f'{key} must be a pirate id such as "0.3"')
    pirate = PIRATE_INDEX.get(value)
    if pirate is None or pirate >= state.players * PIRATES_PER_SEAT:
        raise IllegalAction(f"There is no pirate {value!r} in this game")
    return pirate


def _party(state: PiratesState, value: Any, key: str) -> int:
    captain = _pirate(state, value, key)
    parties = state.parties  # find_party inline: this runs twice for every assemble
    index = bisect_left(parties, (captain,))
    if index < len(parties) and parties[index][0] == captain:
        return index
    raise IllegalAction(f"{pirate_name(captain)} is not a captain; name a party by its top pirate")


def _own_party(state: PiratesState, seat: int, value: Any, key: str) -> int:
    index = _party(state, value, key)
    controller = state.parties[index][0] // PIRATES_PER_SEAT
    if controller != seat:
        raise IllegalAction(f"That party is {seat_name(controller)}'s, not yours")
    return index


def _space(state: PiratesState, value: Any) -> int:
    card_set = state.card_set
    if type(value) is not str:
        raise IllegalAction('card must be a card id such as "S05"')
    card = card_set.index.get(value)
    if card is None:
        raise IllegalAction(f"There is no card {value!r} in this game")
    if card not in state.display:
        raise IllegalAction(f"{card_title(card_set, card, start=True)} is not on the display")
    return state.display.index(card)


def _crew(state: PiratesState, size: int, space: int) -> None:
    card_set = state.card_set
    card = state.display[space]
    need = card_set.min_crew[card]
    if size < need:
        pirates = "pirate" if size == 1 else "pirates"
        raise IllegalAction(f"That party has {size} {pirates}; {card_title(card_set, card)} needs {need}")


def _booty(state: PiratesState, space: int, value: Any) -> str | None:
    card_set = state.card_set
    card = state.display[space]
    choice: str | None = None
    if value is not None:
        if not isinstance(value, str):
            raise IllegalAction("booty must be a booty kind or null")
        choice = value
    if choice in card_set.grants[card]:
        return choice
    title = card_title(card_set, card, start=True)
    choices = card_set.choices[card]
    if choices == (None,):
        raise IllegalAction(f"{title} leaves no choice of booty: booty must be null")
    options = " or ".join(str(c) for c in choices)
    if value is None:
        raise IllegalAction(f"Choose the booty of {card_title(card_set, card)}: {options}")
    raise IllegalAction(f"{title} shows {' and '.join(card_set.booty[card])}, not {value}")


def _assemble(state: PiratesState, seat: int, action: dict[str, Any]) -> Assemble:
    party = _own_party(state, seat, action["party"], "party")
    onto = _party(state, action["onto"], "onto")
    parties = state.parties
    target = parties[onto]
    if target[0] // PIRATES_PER_SEAT == seat:
        raise IllegalAction("You cannot place a party on a party you control")
    size = len(parties[party]) + len(target)
    if size > MAX_PARTY:
        raise IllegalAction(
            f"Together those parties would have {size} pirates; a party holds at most {MAX_PARTY}"
        )
    return Assemble(party, onto)


def _capture(state: PiratesState, seat: int, action: dict[str, Any]) -> Capture:
    party = _own_party(state, seat, action["party"], "party")
    space = _space(state, action["card"])
    _crew(state, len(state.parties[party]), space)
    return Capture(party, space, _booty(state, space, action["booty"]))


def _mutiny(state: PiratesState, seat: int, action: dict[str, Any]) -> Mutiny:
    victim = action["victim"]
    if type(victim) is not int:
        raise IllegalAction("victim must be a seat number")
    if not 0 <= victim < state.players:
        raise IllegalAction(f"There is no seat {victim} in this game")
    if victim == seat:
        raise IllegalAction("You cannot lead a mutiny against yourself")
    party = _party(state, action["party"], "party")
    members = state.parties[party]
    controller = members[0] // PIRATES_PER_SEAT
    if controller != victim:
        raise IllegalAction(f"That party is controlled by {seat_name(controller)}, not {seat_name(victim)}")
    pirate = _pirate(state, action["pirate"], "pirate")
    if pirate // PIRATES_PER_SEAT != seat:
        raise IllegalAction(f"{pirate_name(pirate)} is not one of your pirates")
    if pirate not in members:
        raise IllegalAction(f"{pirate_name(pirate)} is not in that party")
    space = _space(state, action["card"])
    _crew(state, len(members), space)
    return Mutiny(victim, party, pirate, space, _booty(state, space, action["booty"]))


def _ransom(state: PiratesState, seat: int, action: dict[str, Any]) -> Ransom:
    for party in state.parties:
        if party[0] // PIRATES_PER_SEAT == seat:
            raise IllegalAction("You may only pay a ransom while you control no party")
    pirate = _pirate(state, action["pirate"], "pirate")
    if pirate // PIRATES_PER_SEAT != seat:
        raise IllegalAction(f"{pirate_name(pirate)} is not one of your pirates")
    source = party_of(state, pirate)
    source_size = len(state.parties[source])
    onto_value = action["onto"]
    targets_exist = any(len(party) - (i == source) < MAX_PARTY for i, party in enumerate(state.parties))
    if onto_value is None:
        if targets_exist:
            raise IllegalAction(
                "After the ransom you must place the pirate on another player's party: name it in onto"
            )
        return Ransom(pirate, source, -1)
    if onto_value == action["pirate"]:
        raise IllegalAction("The ransomed pirate must join another player's party")
    onto = _party(state, onto_value, "onto")
    # The seat controls no party (checked above), so every party belongs to another player.
    size = source_size if onto == source else len(state.parties[onto]) + 1
    if size > MAX_PARTY:
        raise IllegalAction(f"That party already has {MAX_PARTY} pirates")
    return Ransom(pirate, source, state.parties[onto][0])


def _pass(state: PiratesState, seat: int) -> Pass:
    if has_move(state, seat):
        raise IllegalAction("You can only pass when you have no other action")
    return Pass()
