"""dump/load: a state as JSON and back. Loading checks the snapshot fully, because a stored
snapshot that no longer matches the rules must fail loudly rather than play on wrongly."""

from __future__ import annotations

from typing import Any

from engine.base import check_snapshot_header, rng_state_from_json, rng_state_to_json
from engine.errors import InvalidOptions, InvalidSnapshot
from engine.pirates.serial import json_list, load_parties, whole_number
from engine.pirates.state import PIRATE_IDS, PIRATE_INDEX
from engine.pirates_classic.cards import KINDS, PIECES_PER_KIND, ShipSet, resolve_ship_set
from engine.pirates_classic.state import (
    ACTION_LIMIT,
    ANSWER_NAMES,
    DISPLAY_SPACES,
    EMPTY,
    END_LIMIT,
    END_SHIPS,
    END_SKIPS,
    NOT_ASKED,
    WAITING,
    ClassicState,
    questions,
)

_KEYS = {
    "rules",
    "version",
    "card_set",
    "players",
    "parties",
    "treasury",
    "booty",
    "boarded",
    "display",
    "deck",
    "active",
    "asked",
    "answers",
    "skips",
    "actions",
    "end",
    "rng",
}
_ANSWERS = {name: code for code, name in ANSWER_NAMES.items()}


def dump(state: ClassicState, *, rules_id: str, version: int) -> dict[str, Any]:
    ship_set = state.card_set
    ids = ship_set.ids
    return {
        "rules": rules_id,
        "version": version,
        "card_set": ship_set.id if ship_set.bundled else ship_set.data,
        "players": state.players,
        "parties": [[PIRATE_IDS[p] for p in party] for party in state.parties],
        "treasury": list(state.treasury),
        "booty": [list(hoard) for hoard in state.booty],
        "boarded": [ids[s] for s in state.boarded],
        "display": [None if s < 0 else ids[s] for s in state.display],
        "deck": [ids[s] for s in state.deck],
        "active": state.active,
        "asked": [None if c < 0 else PIRATE_IDS[c] for c in state.asked],
        "answers": [ANSWER_NAMES.get(a) for a in state.answers],
        "skips": state.skips,
        "actions": state.actions,
        "end": state.end or None,
        "rng": rng_state_to_json(state.rng_state),
    }


def _ship(ship_set: ShipSet, value: Any, name: str) -> int:
    if not isinstance(value, str) or value not in ship_set.index:
        raise InvalidSnapshot(f"{name}: unknown ship {value!r}")
    return ship_set.index[value]


def _ships(
    data: dict[str, Any], ship_set: ShipSet
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    boarded = tuple(_ship(ship_set, s, "boarded") for s in json_list(data["boarded"], "boarded"))
    display = tuple(
        EMPTY if s is None else _ship(ship_set, s, "display")
        for s in json_list(data["display"], "display", DISPLAY_SPACES)
    )
    deck = tuple(_ship(ship_set, s, "deck") for s in json_list(data["deck"], "deck"))
    if sorted([*boarded, *(s for s in display if s >= 0), *deck]) != list(range(len(ship_set))):
        raise InvalidSnapshot("every ship must be exactly once in the deck, on the display or boarded")
    if deck and display.count(EMPTY) == DISPLAY_SPACES:
        raise InvalidSnapshot("an empty display is refilled while the deck has ships")
    return boarded, display, deck


def load(data: Any, *, rules_id: str, version: int) -> ClassicState:
    check_snapshot_header(data, _KEYS, "Pirates (classic)", rules_id=rules_id, version=version)
    try:
        ship_set = resolve_ship_set(data["card_set"])
    except InvalidOptions as exc:
        raise InvalidSnapshot(str(exc)) from exc
    players = whole_number(data["players"], "players", 3, 5)
    parties = load_parties(data["parties"], players)
    treasury = tuple(
        whole_number(t, "treasury", 0, 10**9) for t in json_list(data["treasury"], "treasury", players)
    )
    booty = tuple(
        tuple(whole_number(n, "booty", 0, PIECES_PER_KIND) for n in json_list(hoard, "booty row", len(KINDS)))
        for hoard in json_list(data["booty"], "booty", players)
    )
    for k, kind in enumerate(KINDS):
        if sum(hoard[k] for hoard in booty) > PIECES_PER_KIND:
            raise InvalidSnapshot(f"the players hold more than {PIECES_PER_KIND} pieces of {kind}")
    boarded, display, deck = _ships(data, ship_set)
    end = data["end"]
    if end not in (None, END_SHIPS, END_SKIPS, END_LIMIT):
        raise InvalidSnapshot(f"unknown end {end!r}")
    if (end == END_SHIPS) != (len(boarded) == len(ship_set)):
        raise InvalidSnapshot("the game ends exactly when every ship is boarded")
    active = whole_number(data["active"], "active", 0, players - 1)
    asked = tuple(
        NOT_ASKED if c is None else PIRATE_INDEX.get(c, NOT_ASKED) if isinstance(c, str) else -2
        for c in json_list(data["asked"], "asked", players)
    )
    expected = (NOT_ASKED,) * players if end else questions(ship_set, parties, display, active, players)
    if asked != expected:
        raise InvalidSnapshot("asked must name, per seat, the stack the rules ask it about this turn")
    answers = tuple(
        WAITING if a is None else _ANSWERS.get(a, -1) if isinstance(a, str) else -1
        for a in json_list(data["answers"], "answers", players)
    )
    if any(a < 0 or (a and asked[s] < 0) for s, a in enumerate(answers)):
        raise InvalidSnapshot('answers must be null, "challenge" or "decline", and only from seats asked')
    return ClassicState(
        card_set=ship_set,
        players=players,
        parties=parties,
        treasury=treasury,
        booty=booty,
        boarded=boarded,
        display=display,
        deck=deck,
        active=active,
        asked=asked,
        answers=answers,
        skips=whole_number(data["skips"], "skips", 0, players),
        actions=whole_number(data["actions"], "actions", 0, ACTION_LIMIT),
        end=end or "",
        rng_state=rng_state_from_json(data["rng"]),
    )
