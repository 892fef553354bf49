"""Card sets for Pirates (2021): loading, validation ("Card set" in pirates.md) and the
per-card lookups the rules use on every action.

A :class:`CardSet` is built once per distinct card set and shared by every state that uses
it, so the hot paths index plain tuples instead of reading dicts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from engine.errors import CardSetError, InvalidOptions

KINDS: tuple[str, ...] = ("saber", "rum", "relics", "chest", "wheel", "anchor")
KIND_INDEX: dict[str, int] = {kind: i for i, kind in enumerate(KINDS)}
MAJORITY_KINDS: tuple[str, ...] = KINDS[:4]
WHEEL, ANCHOR = KIND_INDEX["wheel"], KIND_INDEX["anchor"]
SUPPLY_PER_KIND = 6

CARD_KINDS: dict[str, int] = {"ship": 13, "ruins": 6, "monster": 1}
CARD_COUNT = sum(CARD_KINDS.values())
PIRATE_VALUES: list[int | str] = [2, 3, 4, 5, "?"]

# P-END-3, used when a card set does not carry its own table.
DEFAULT_WHEEL_RATE: dict[str, list[int]] = {
    "3": [0, 2, 4, 6, 10],
    "4": [2, 4, 6, 10, 15],
    "5": [3, 6, 10, 15, 20],
}

BUNDLED_DEFAULT = "pirates-2021-estimate"
BUNDLED: dict[str, str] = {BUNDLED_DEFAULT: "pirates-2021-estimate.json"}

_TOP_KEYS_REQUIRED = {"id", "cards", "majority_bonus"}
_TOP_KEYS_OPTIONAL = {"game", "note", "pirate_values", "wheel_rate"}
_CARD_KEYS = ("id", "kind", "name", "min_crew", "ducats", "booty", "question_pay", "wheels", "anchors")
_CARD_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
# Sizes a card set's text may have. A card set travels with its game (options, first event,
# every view), so a megabyte note would weigh on every request and every cached state.
MAX_ID = 40
MAX_NAME = 40
MAX_NOTE = 2000
# Distinct custom card sets kept built in one process (the bundled ones are kept apart).
CACHE_SIZE = 64

# What one capture hands out, for a given `booty` choice: the kinds the captain takes and
# the kind the mate's owner takes (-1: none).
Grant = tuple[tuple[int, ...], int]


@dataclass(frozen=True, eq=False)
class CardSet:
    id: str
    data: dict[str, Any]
    bundled: bool
    ids: tuple[str, ...]
    index: dict[str, int]
    kind: tuple[str, ...]
    name: tuple[str, ...]
    min_crew: tuple[int, ...]
    ducats: tuple[int, ...]
    question_pay: tuple[int, ...]
    wheels: tuple[int, ...]
    anchors: tuple[int, ...]
    booty: tuple[tuple[str, ...], ...]
    choices: tuple[tuple[str | None, ...], ...]
    grants: tuple[dict[str | None, Grant], ...]
    majority_bonus: tuple[int, ...]
    wheel_rate: dict[int, tuple[int, ...]]
    monster: int
    # Memos of legal.py, per card set: the face-up cards of a display, and the capture and
    # mutiny actions naming these cards (each built once, see engine.base.FrozenAction).
    faces: dict[Any, Any] = field(default_factory=dict, repr=False)
    actions: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    # Equal data is an equal card set even when the cache built it twice (it keeps only the
    # most recent ones), so a state loaded later still equals the state it was dumped from.
    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, CardSet) and self.data == other.data)

    def __hash__(self) -> int:
        return hash(self.id)

    def card_json(self, card: int) -> dict[str, Any]:
        return {
            "id": self.ids[card],
            "kind": self.kind[card],
            "name": self.name[card],
            "min_crew": self.min_crew[card],
            "ducats": self.ducats[card],
            "booty": list(self.booty[card]),
            "question_pay": self.question_pay[card],
            "wheels": self.wheels[card],
            "anchors": self.anchors[card],
        }


def _is_int(value: Any) -> bool:
    return type(value) is int


def _short(value: Any) -> str:
    """A value quoted in a problem, cut short: problems are shown to whoever sent the value."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def validate(data: Any) -> list[str]:
    """Every problem of a card set, in a stable order; empty when it is valid."""
    if not isinstance(data, dict):
        return ["a card set must be a JSON object"]
    problems: list[str] = []
    missing = sorted(_TOP_KEYS_REQUIRED - set(data))
    if missing:
        problems.append("missing keys: " + ", ".join(missing))
    unknown = sorted(set(data) - _TOP_KEYS_REQUIRED - _TOP_KEYS_OPTIONAL)
    if unknown:
        problems.append("unknown keys: " + ", ".join(map(str, unknown)))
    if "id" in data and (
        not isinstance(data["id"], str) or not data["id"].strip() or len(data["id"]) > MAX_ID
    ):
        problems.append(f"id must be a non-empty string of at most {MAX_ID} characters")
    if "game" in data and data["game"] != "pirates":
        problems.append(f"game must be 'pirates', not {_short(data['game'])}")
    if "note" in data and (not isinstance(data["note"], str) or len(data["note"]) > MAX_NOTE):
        problems.append(f"note must be a string of at most {MAX_NOTE} characters")
    if "pirate_values" in data and data["pirate_values"] != PIRATE_VALUES:
        problems.append('pirate_values must be [2, 3, 4, 5, "?"]')
    if "majority_bonus" in data:
        problems.extend(_validate_majority_bonus(data["majority_bonus"]))
    if "wheel_rate" in data:
        problems.extend(_validate_wheel_rate(data["wheel_rate"]))
    if "cards" in data:
        problems.extend(_validate_cards(data["cards"]))
    return problems


def _validate_majority_bonus(bonus: Any) -> list[str]:
    if not isinstance(bonus, dict):
        return ["majority_bonus must be an object"]
    problems = []
    if set(bonus) != set(MAJORITY_KINDS):
        problems.append("majority_bonus must give exactly saber, rum, relics and chest")
    for kind in MAJORITY_KINDS:
        if kind in bonus and (not _is_int(bonus[kind]) or bonus[kind] < 0):
            problems.append(f"majority_bonus.{kind} must be a whole number of at least 0")
    return problems


def _validate_wheel_rate(rate: Any) -> list[str]:
    if not isinstance(rate, dict) or set(rate) != set(DEFAULT_WHEEL_RATE):
        return ['wheel_rate must be an object with rows "3", "4" and "5"']
    problems = []
    for players, row in sorted(rate.items()):
        if not isinstance(row, list) or len(row) != 5 or not all(_is_int(x) and x >= 0 for x in row):
            problems.append(
                f"wheel_rate.{players} must be 5 whole numbers of at least 0 (0, 1, 2, 3, 4+ anchors)"
            )
    return problems


def _validate_cards(cards: Any) -> list[str]:
    if not isinstance(cards, list):
        return ["cards must be a list"]
    problems: list[str] = []
    if len(cards) != CARD_COUNT:
        problems.append(f"there must be {CARD_COUNT} cards, not {len(cards)}")
    seen: set[str] = set()
    kind_counts = dict.fromkeys(CARD_KINDS, 0)
    pictured = dict.fromkeys(KINDS, 0)
    for position, card in enumerate(cards, start=1):
        label = f"card {position}"
        if not isinstance(card, dict):
            problems.append(f"{label} must be an object")
            continue
        if isinstance(card.get("id"), str):
            label = f"card {card['id']}"
        keys = set(card)
        if keys != set(_CARD_KEYS):
            extra = sorted(map(str, keys - set(_CARD_KEYS)))
            absent = [k for k in _CARD_KEYS if k not in keys]
            parts = []
            if absent:
                parts.append("missing " + ", ".join(absent))
            if extra:
                parts.append("unknown " + ", ".join(extra))
            problems.append(f"{label}: " + "; ".join(parts))
        card_id = card.get("id")
        if not isinstance(card_id, str) or not _CARD_ID.match(card_id):
            problems.append(f"{label}: id must be 1-16 letters, digits, '-' or '_'")
        elif card_id in seen:
            problems.append(f"{label}: id is used twice")
        else:
            seen.add(card_id)
        kind = card.get("kind")
        if isinstance(kind, str) and kind in kind_counts:
            kind_counts[kind] += 1
        elif "kind" in card:
            problems.append(f"{label}: kind must be ship, ruins or monster, not {_short(kind)}")
        name = card.get("name")
        if "name" in card and (not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME):
            problems.append(f"{label}: name must be a non-empty string of at most {MAX_NAME} characters")
        for key in ("ducats", "question_pay", "wheels", "anchors"):
            if key in card and (not _is_int(card[key]) or card[key] < 0):
                problems.append(f"{label}: {key} must be a whole number of at least 0")
        if "min_crew" in card and (not _is_int(card["min_crew"]) or not 1 <= card["min_crew"] <= 9):
            problems.append(f"{label}: min_crew must be a whole number from 1 to 9")
        booty = card.get("booty")
        if "booty" in card:
            if (
                not isinstance(booty, list)
                or not 1 <= len(booty) <= 2
                or not all(isinstance(b, str) and b in KIND_INDEX for b in booty)
            ):
                problems.append(f"{label}: booty must list one or two of " + ", ".join(KINDS))
            else:
                for b in booty:
                    pictured[b] += 1
                if kind == "monster" and sorted(booty) != ["anchor", "wheel"]:
                    problems.append(f"{label}: the sea monster must show wheel and anchor")
    for kind, wanted in CARD_KINDS.items():
        if kind_counts[kind] != wanted:
            problems.append(f"there must be {wanted} {kind} cards, not {kind_counts[kind]}")
    for kind, count in pictured.items():
        if count > SUPPLY_PER_KIND:
            problems.append(f"{kind} is pictured {count} times; at most {SUPPLY_PER_KIND} (the supply)")
    return problems


def _grants(kind: str, booty: tuple[str, ...]) -> dict[str | None, Grant]:
    shown = tuple(KIND_INDEX[b] for b in booty)
    if kind == "monster":
        return {None: (shown, -1)}  # P-SEA-1: the captain takes both
    if len(shown) == 1:
        return {None: (shown, -1)}
    if shown[0] == shown[1]:
        return {None: ((shown[0],), shown[1])}
    return {booty[0]: ((shown[0],), shown[1]), booty[1]: ((shown[1],), shown[0])}


def _build(data: dict[str, Any], bundled: bool) -> CardSet:
    cards = data["cards"]
    kinds = tuple(c["kind"] for c in cards)
    booty = tuple(tuple(c["booty"]) for c in cards)
    grants = tuple(_grants(k, b) for k, b in zip(kinds, booty, strict=True))
    rate = data.get("wheel_rate", DEFAULT_WHEEL_RATE)
    return CardSet(
        id=data["id"],
        data=data,
        bundled=bundled,
        ids=tuple(c["id"] for c in cards),
        index={c["id"]: i for i, c in enumerate(cards)},
        kind=kinds,
        name=tuple(c["name"] for c in cards),
        min_crew=tuple(c["min_crew"] for c in cards),
        ducats=tuple(c["ducats"] for c in cards),
        question_pay=tuple(c["question_pay"] for c in cards),
        wheels=tuple(c["wheels"] for c in cards),
        anchors=tuple(c["anchors"] for c in cards),
        booty=booty,
        choices=tuple(tuple(g) for g in grants),
        grants=grants,
        majority_bonus=tuple(data["majority_bonus"][k] for k in MAJORITY_KINDS),
        wheel_rate={int(n): tuple(row) for n, row in rate.items()},
        monster=kinds.index("monster"),
    )


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def card_set_from_data(data: Any) -> CardSet:
    """A validated card set from its JSON data. Built card sets are cached by their canonical
    JSON, the most recent ``CACHE_SIZE`` of them: every state of a game shares one object."""
    if not isinstance(data, dict):
        raise CardSetError("?", ["a card set must be a JSON object"])
    try:
        key = _canonical(data)
    except (TypeError, ValueError, RecursionError):
        ident = data.get("id")
        name = ident[:MAX_ID] if isinstance(ident, str) else "?"
        raise CardSetError(name, ["a card set must be plain JSON"]) from None
    return _card_set_for(key)


@lru_cache(maxsize=CACHE_SIZE)
def _card_set_for(key: str) -> CardSet:
    """The card set of canonical JSON ``key`` (an invalid one raises and is not cached)."""
    data = json.loads(key)
    problems = validate(data)
    if problems:
        ident = data.get("id")
        raise CardSetError(ident[:MAX_ID] if isinstance(ident, str) else "?", problems)
    bundled = data["id"] in BUNDLED and _canonical(_bundled_data(data["id"])) == key
    return _build(data, bundled)


_BUNDLED_DATA: dict[str, dict[str, Any]] = {}
_BUNDLED_SETS: dict[str, CardSet] = {}


def _bundled_data(card_set_id: str) -> dict[str, Any]:
    if card_set_id not in _BUNDLED_DATA:
        text = resources.files("engine.pirates").joinpath("data", BUNDLED[card_set_id]).read_text("utf-8")
        _BUNDLED_DATA[card_set_id] = json.loads(text)
    return _BUNDLED_DATA[card_set_id]


def bundled_card_set(card_set_id: str = BUNDLED_DEFAULT) -> CardSet:
    if card_set_id not in BUNDLED:
        known = ", ".join(sorted(BUNDLED))
        raise InvalidOptions(f"Unknown card set {card_set_id!r}; bundled card sets: {known}")
    card_set = _BUNDLED_SETS.get(card_set_id)
    if card_set is None:
        card_set = _BUNDLED_SETS[card_set_id] = card_set_from_data(_bundled_data(card_set_id))
    return card_set


def resolve_card_set(value: Any) -> CardSet:
    """A card set from an option value: a bundled id or a full card-set object."""
    if value is None:
        return bundled_card_set()
    if isinstance(value, str):
        return bundled_card_set(value)
    if isinstance(value, dict):
        return card_set_from_data(value)
    raise InvalidOptions("card_set must be the id of a bundled card set or a card-set object")
