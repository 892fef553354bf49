"""Ship sets for Pirates (classic): loading, validation (C-SET-5) and the per-ship lookups
the rules read on every action.

A :class:`ShipSet` is built once per distinct ship set and shared by every state that uses
it, so the hot paths index plain tuples instead of reading dicts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from engine.errors import CardSetError, InvalidOptions

GAME = "pirates-classic"
KINDS: tuple[str, ...] = ("chest", "rum", "candlestick", "dagger")  # C-SET-3
KIND_INDEX: dict[str, int] = {kind: i for i, kind in enumerate(KINDS)}
PIECES_PER_KIND = 6  # C-SET-3
SHIP_COUNT = 15  # C-SET-2
MIN_CREW, MAX_CREW = 2, 9  # C-SET-5
PIRATE_VALUES: list[int | str] = [2, 3, 4, 5, "?"]

BUNDLED_DEFAULT = "pirates-classic-estimate"
BUNDLED: dict[str, str] = {BUNDLED_DEFAULT: "pirates-classic-estimate.json"}

_REQUIRED = ("id", "game", "majority_bonus", "ships")
_OPTIONAL = ("note", "pirate_values")
_SHIP_REQUIRED = ("id", "min_crew", "ducats", "booty", "question_pay")
_SHIP_OPTIONAL = ("name",)
_SHIP_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")

# What one boarding hands out for a given `booty` choice (P-CAP-2): the kind the captain takes
# and the kind the mate's owner takes (-1: none).
Grant = tuple[int, int]


@dataclass(frozen=True, eq=False)
class ShipSet:
    id: str
    data: dict[str, Any]
    bundled: bool
    ids: tuple[str, ...]
    index: dict[str, int]
    name: tuple[str, ...]  # as sentences use it: "Brigantine Charity" (or "ship C07" unnamed)
    min_crew: tuple[int, ...]
    ducats: tuple[int, ...]
    question_pay: tuple[int, ...]
    booty: tuple[tuple[str, ...], ...]
    choices: tuple[tuple[str | None, ...], ...]  # the `booty` values a boarding may name
    grants: tuple[dict[str | None, Grant], ...]
    majority_bonus: tuple[int, ...]  # in KINDS order
    # Memos per ship set (a display is a tuple of at most 3 of 15 ships, so they stay small):
    # the face-up ships of a display, the board actions naming these ships (each built once,
    # see engine.base.FrozenAction) and the smallest minimum crew on a display.
    faces: dict[Any, Any] = field(default_factory=dict, repr=False)
    actions: dict[Any, Any] = field(default_factory=dict, repr=False)
    easiest: dict[tuple[int, ...], int] = field(default_factory=dict, repr=False)  # state.easiest_crew

    def __len__(self) -> int:
        return len(self.ids)

    def ship_json(self, ship: int) -> dict[str, Any]:
        return {
            "id": self.ids[ship],
            "name": self.name[ship],
            "min_crew": self.min_crew[ship],
            "ducats": self.ducats[ship],
            "booty": list(self.booty[ship]),
            "question_pay": self.question_pay[ship],
        }


def _whole(value: Any, low: int, high: int | None = None) -> bool:
    return type(value) is int and value >= low and (high is None or value <= high)


def validate(data: Any) -> list[str]:
    """Every problem of a ship set (C-SET-5), in a stable order; empty when it is valid."""
    if not isinstance(data, dict):
        return ["a card set must be a JSON object"]
    problems: list[str] = []
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        problems.append("missing keys: " + ", ".join(missing))
    unknown = sorted(map(str, set(data) - set(_REQUIRED) - set(_OPTIONAL)))
    if unknown:
        problems.append("unknown keys: " + ", ".join(unknown))
    if "id" in data and (not isinstance(data["id"], str) or not data["id"].strip()):
        problems.append("id must be a non-empty string")
    if "game" in data and data["game"] != GAME:
        problems.append(f"game must be {GAME!r}, not {data['game']!r}")
    if "note" in data and not isinstance(data["note"], str):
        problems.append("note must be a string")
    if "pirate_values" in data and data["pirate_values"] != PIRATE_VALUES:
        problems.append('pirate_values must be [2, 3, 4, 5, "?"]')
    if "majority_bonus" in data:
        problems += _bonus_problems(data["majority_bonus"])
    if "ships" in data:
        problems += _ships_problems(data["ships"])
    return problems


def _bonus_problems(bonus: Any) -> list[str]:
    if not isinstance(bonus, dict):
        return ["majority_bonus must be an object"]
    problems = []
    if set(bonus) != set(KINDS):
        problems.append("majority_bonus must give exactly " + ", ".join(KINDS))
    problems += [
        f"majority_bonus.{kind} must be a whole number of at least 0"
        for kind in KINDS
        if kind in bonus and not _whole(bonus[kind], 0)
    ]
    return problems


def _ships_problems(ships: Any) -> list[str]:
    if not isinstance(ships, list):
        return ["ships must be a list"]
    problems: list[str] = []
    if len(ships) != SHIP_COUNT:
        problems.append(f"there must be {SHIP_COUNT} ships, not {len(ships)}")
    seen: set[str] = set()
    pictured = dict.fromkeys(KINDS, 0)
    for position, ship in enumerate(ships, start=1):
        if not isinstance(ship, dict):
            problems.append(f"ship {position} must be an object")
            continue
        ship_id = ship.get("id")
        label = f"ship {ship_id}" if isinstance(ship_id, str) else f"ship {position}"
        absent = [key for key in _SHIP_REQUIRED if key not in ship]
        extra = sorted(map(str, set(ship) - set(_SHIP_REQUIRED) - set(_SHIP_OPTIONAL)))
        if absent or extra:
            parts = (["missing " + ", ".join(absent)] if absent else []) + (
                ["unknown " + ", ".join(extra)] if extra else []
            )
            problems.append(f"{label}: " + "; ".join(parts))
        if not isinstance(ship_id, str) or not _SHIP_ID.match(ship_id):
            problems.append(f"{label}: id must be 1-16 letters, digits, '-' or '_'")
        elif ship_id in seen:
            problems.append(f"{label}: id is used twice")
        seen.add(str(ship_id))
        if "name" in ship and (not isinstance(ship["name"], str) or not ship["name"].strip()):
            problems.append(f"{label}: name must be a non-empty string")
        if "min_crew" in ship and not _whole(ship["min_crew"], MIN_CREW, MAX_CREW):
            problems.append(f"{label}: min_crew must be a whole number from {MIN_CREW} to {MAX_CREW}")
        problems += [
            f"{label}: {key} must be a whole number of at least 0"
            for key in ("ducats", "question_pay")
            if key in ship and not _whole(ship[key], 0)
        ]
        booty = ship.get("booty")
        if "booty" not in ship:
            continue
        if (
            not isinstance(booty, list)
            or not 1 <= len(booty) <= 2
            or not all(isinstance(b, str) and b in KIND_INDEX for b in booty)
        ):
            problems.append(f"{label}: booty must list one or two of " + ", ".join(KINDS))
            continue
        for kind in booty:
            pictured[kind] += 1
    problems += [
        f"{kind} is pictured {count} times; at most {PIECES_PER_KIND} (the pieces in the game)"
        for kind, count in pictured.items()
        if count > PIECES_PER_KIND
    ]
    return problems


def _grants(booty: tuple[str, ...]) -> dict[str | None, Grant]:
    """P-CAP-2 and the `booty: null` rule of P-ACT: the captain picks only between two
    different kinds."""
    first = KIND_INDEX[booty[0]]
    if len(booty) == 1:
        return {None: (first, -1)}
    second = KIND_INDEX[booty[1]]
    if first == second:
        return {None: (first, second)}
    return {booty[0]: (first, second), booty[1]: (second, first)}


def _build(data: dict[str, Any], bundled: bool) -> ShipSet:
    ships = data["ships"]
    booty = tuple(tuple(s["booty"]) for s in ships)
    grants = tuple(_grants(b) for b in booty)
    return ShipSet(
        id=data["id"],
        data=data,
        bundled=bundled,
        ids=tuple(s["id"] for s in ships),
        index={s["id"]: i for i, s in enumerate(ships)},
        name=tuple(s.get("name") or f"ship {s['id']}" for s in ships),
        min_crew=tuple(s["min_crew"] for s in ships),
        ducats=tuple(s["ducats"] for s in ships),
        question_pay=tuple(s["question_pay"] for s in ships),
        booty=booty,
        choices=tuple(tuple(g) for g in grants),
        grants=grants,
        majority_bonus=tuple(data["majority_bonus"][k] for k in KINDS),
    )


class _Library:
    """Ship sets by content: equal data gives the same object, so the per-set memos are
    shared by every game that plays it."""

    def __init__(self) -> None:
        self.by_content: dict[str, ShipSet] = {}
        self.bundled_text: dict[str, str] = {}
        self.bundled_sets: dict[str, ShipSet] = {}

    def bundled_key(self, ship_set_id: str) -> str:
        if ship_set_id not in self.bundled_text:
            raw = resources.files(__package__).joinpath("data", BUNDLED[ship_set_id]).read_text("utf-8")
            self.bundled_text[ship_set_id] = json.dumps(
                json.loads(raw), sort_keys=True, separators=(",", ":")
            )
        return self.bundled_text[ship_set_id]

    def get(self, data: Any) -> ShipSet:
        if not isinstance(data, dict):
            raise CardSetError("?", ["a card set must be a JSON object"])
        try:
            key = json.dumps(data, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):
            raise CardSetError(str(data.get("id", "?")), ["a card set must be plain JSON"]) from None
        found = self.by_content.get(key)
        if found is None:
            problems = validate(data)
            if problems:
                ident = data.get("id")
                raise CardSetError(ident if isinstance(ident, str) else "?", problems)
            plain = json.loads(key)
            bundled = plain["id"] in BUNDLED and self.bundled_key(plain["id"]) == key
            found = self.by_content[key] = _build(plain, bundled)
        return found


_LIBRARY = _Library()


def ship_set_from_data(data: Any) -> ShipSet:
    """A validated ship set from its JSON data; raises ``CardSetError`` listing every problem."""
    return _LIBRARY.get(data)


def bundled_ship_set(ship_set_id: str = BUNDLED_DEFAULT) -> ShipSet:
    if ship_set_id not in BUNDLED:
        raise InvalidOptions(
            f"Unknown card set {ship_set_id!r}; bundled card sets: {', '.join(sorted(BUNDLED))}"
        )
    found = _LIBRARY.bundled_sets.get(ship_set_id)
    if found is None:
        found = _LIBRARY.bundled_sets[ship_set_id] = _LIBRARY.get(
            json.loads(_LIBRARY.bundled_key(ship_set_id))
        )
    return found


def resolve_ship_set(value: Any) -> ShipSet:
    """The ship set of a `card_set` option: a bundled id or a whole card-set object."""
    if value is None:
        return bundled_ship_set()
    if isinstance(value, str):
        return bundled_ship_set(value)
    if isinstance(value, dict):
        return ship_set_from_data(value)
    raise InvalidOptions("card_set must be the id of a bundled card set or a card-set object")
