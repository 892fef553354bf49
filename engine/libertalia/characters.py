"""Character sets for Libertalia: loading, validation ("Character set data" in libertalia.md)
and the per-rank lookups the rules use.

The 30 characters and their effects are the rules themselves (L-CHAR), so a custom set may
correct names, texts, influence values and the booty bag, but each rank keeps the timing and
effect of the rule set; a different effect would be a new version of the rule set. A
:class:`CharacterSet` is built once per distinct set and shared by every state that uses it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.errors import CardSetError, InvalidOptions

COLOURS: tuple[str, ...] = ("yellow", "red", "blue", "green", "black", "grey")  # L-COMP-1
KINDS: tuple[str, ...] = ("chest", "jewel", "goods", "officer", "saber", "map", "relic")  # L-ACT
KIND_INDEX: dict[str, int] = {kind: i for i, kind in enumerate(KINDS)}
CHEST, JEWEL, GOODS, OFFICER, SABER, MAP, RELIC = range(len(KINDS))
TIMINGS: tuple[str, ...] = ("day", "dusk", "night", "end")
RANKS = 30
BAG_SIZE = 50  # L-COMP-3

# The structure of the game (L-SET-3, L-CAMP-1, L-CAMP-3): a set may state these, never change them.
CONSTANTS: dict[str, Any] = {
    "game": "libertalia",
    "players": {"min": 2, "max": 6},
    "campaigns": 3,
    "days_per_campaign": 6,
    "start_doubloons": 10,
    "first_hand": 9,
    "new_cards_per_campaign": 6,
}

BUNDLED_DEFAULT = "libertalia-2012"
BUNDLED: dict[str, str] = {BUNDLED_DEFAULT: "libertalia.json"}

_TOP_REQUIRED = {"id", "colours", "booty_order", "booty", "characters"}
_TOP_OPTIONAL = {"edition", "note", *CONSTANTS}
_CHARACTER_KEYS = {"rank", "name", "timing", "influence", "effects", "text", "rule"}
_BOOTY_KEYS = {"name", "count", "value"}
_BOOTY_OPTIONAL = {"on_take", "set_size", "set_value"}


def _read_bundled(file_name: str) -> dict[str, Any]:
    text = resources.files("engine.libertalia").joinpath("data", file_name).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_BUNDLED_DATA: dict[str, dict[str, Any]] = {}


def bundled_data(set_id: str = BUNDLED_DEFAULT) -> dict[str, Any]:
    if set_id not in _BUNDLED_DATA:
        _BUNDLED_DATA[set_id] = _read_bundled(BUNDLED[set_id])
    return _BUNDLED_DATA[set_id]


# The effect of every rank as the rules implement it (L-CHAR-1 … L-CHAR-30), read from the
# bundled set so the numbers live in one place; custom sets must carry the same.
EFFECTS: dict[int, dict[str, dict[str, Any]]] = {
    c["rank"]: c["effects"] for c in bundled_data()["characters"]
}
_ON_TAKE = {k: v.get("on_take") for k, v in bundled_data()["booty"].items()}


def effect(rank: int, timing: str) -> dict[str, Any]:
    """The parameters of one effect of the rule set (``effect(3, "day")["n"]`` is 3)."""
    return EFFECTS[rank][timing]


@dataclass(frozen=True, eq=False)
class CharacterSet:
    id: str
    data: dict[str, Any]
    bundled: bool
    name: tuple[str, ...]  # by rank; index 0 unused
    # influence[colour][rank] (L-COMP-2); colour indices follow COLOURS
    influence: tuple[tuple[int, ...], ...]
    booty_name: tuple[str, ...]  # by kind
    booty_count: tuple[int, ...]
    booty_value: tuple[int, ...]  # per token at the End (L-END-2)
    map_set_size: int
    map_set_value: int

    def character_json(self, rank: int) -> dict[str, Any]:
        character = self.data["characters"][rank - 1]
        return {
            "rank": rank,
            "name": self.name[rank],
            "timing": list(character["timing"]),
            "text": character["text"],
        }


def _is_int(value: Any) -> bool:
    return type(value) is int


def validate(data: Any) -> list[str]:
    """Every problem of a character set, in a stable order; empty when it is valid."""
    if not isinstance(data, dict):
        return ["a character set must be a JSON object"]
    problems: list[str] = []
    missing = sorted(_TOP_REQUIRED - set(data))
    if missing:
        problems.append("missing keys: " + ", ".join(missing))
    unknown = sorted(map(str, set(data) - _TOP_REQUIRED - _TOP_OPTIONAL))
    if unknown:
        problems.append("unknown keys: " + ", ".join(unknown))
    if "id" in data and (not isinstance(data["id"], str) or not data["id"].strip()):
        problems.append("id must be a non-empty string")
    for key in ("edition", "note"):
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key} must be a string")
    for key, value in CONSTANTS.items():
        if key in data and data[key] != value:
            problems.append(f"{key} must be {json.dumps(value)} (the rules fix it)")
    if "colours" in data and data["colours"] != list(COLOURS):
        problems.append("colours must be " + json.dumps(list(COLOURS)))
    if "booty_order" in data and data["booty_order"] != list(KINDS):
        problems.append("booty_order must be " + json.dumps(list(KINDS)))
    if "booty" in data:
        problems.extend(_validate_booty(data["booty"]))
    if "characters" in data:
        problems.extend(_validate_characters(data["characters"]))
    return problems


def _validate_booty(booty: Any) -> list[str]:
    if not isinstance(booty, dict) or set(booty) != set(KINDS):
        return ["booty must be an object with exactly the kinds " + ", ".join(KINDS)]
    problems: list[str] = []
    total = 0
    for kind in KINDS:
        token = booty[kind]
        label = f"booty.{kind}"
        if not isinstance(token, dict):
            problems.append(f"{label} must be an object")
            continue
        keys = set(token)
        if not keys >= _BOOTY_KEYS or keys - _BOOTY_KEYS - _BOOTY_OPTIONAL:
            problems.append(
                f"{label} must have name, count and value, and may have on_take, set_size, set_value"
            )
        if not isinstance(token.get("name"), str) or not token.get("name", "").strip():
            problems.append(f"{label}.name must be a non-empty string")
        count: Any = token.get("count")
        if not _is_int(count) or count < 0:
            problems.append(f"{label}.count must be a whole number of at least 0")
        else:
            total += count
        if not _is_int(token.get("value")):
            problems.append(f"{label}.value must be a whole number")
        if token.get("on_take") != _ON_TAKE[kind]:
            expected = _ON_TAKE[kind]
            problems.append(
                f"{label}.on_take must be {expected!r}" if expected else f"{label} takes no on_take"
            )
        sets = {"set_size", "set_value"} & keys
        if kind == "map":
            size: Any = token.get("set_size")
            value: Any = token.get("set_value")
            if not _is_int(size) or size < 1 or not _is_int(value):
                problems.append(f"{label} needs set_size (at least 1) and set_value, whole numbers")
        elif sets:
            problems.append(f"{label}: only the map has set_size and set_value")
    if total != BAG_SIZE:
        problems.append(f"the booty counts must add up to {BAG_SIZE}, not {total}")
    return problems


def _validate_characters(characters: Any) -> list[str]:
    if not isinstance(characters, list):
        return ["characters must be a list"]
    problems: list[str] = []
    if len(characters) != RANKS:
        problems.append(f"there must be {RANKS} characters, not {len(characters)}")
    seen: set[int] = set()
    for position, character in enumerate(characters, start=1):
        label = f"character {position}"
        if not isinstance(character, dict):
            problems.append(f"{label} must be an object")
            continue
        rank: Any = character.get("rank")
        if not _is_int(rank) or not 1 <= rank <= RANKS:
            problems.append(f"{label}: rank must be a whole number from 1 to {RANKS}")
            rank = None
        elif rank in seen:
            problems.append(f"{label}: rank {rank} appears twice")
        else:
            seen.add(rank)
            label = f"rank {rank}"
        keys = set(character)
        if keys != _CHARACTER_KEYS:
            parts = []
            absent = sorted(_CHARACTER_KEYS - keys)
            extra = sorted(map(str, keys - _CHARACTER_KEYS))
            if absent:
                parts.append("missing " + ", ".join(absent))
            if extra:
                parts.append("unknown " + ", ".join(extra))
            problems.append(f"{label}: " + "; ".join(parts))
        for key in ("name", "text", "rule"):
            if key in character and (not isinstance(character[key], str) or not character[key].strip()):
                problems.append(f"{label}: {key} must be a non-empty string")
        problems.extend(_validate_influence(label, character.get("influence")))
        timing = character.get("timing")
        effects = character.get("effects")
        if (
            not isinstance(timing, list)
            or not all(t in TIMINGS for t in timing)
            or len(set(timing)) != len(timing)
        ):
            problems.append(f"{label}: timing must list some of " + ", ".join(TIMINGS) + " once each")
        elif not isinstance(effects, dict) or set(effects) != set(timing):
            problems.append(f"{label}: the keys of effects must be the timings")
        elif rank is not None and effects != EFFECTS[rank]:
            problems.append(
                f"{label}: effects must be {json.dumps(EFFECTS[rank], sort_keys=True)} "
                "(the rules implement each rank's effect; another effect needs a new rule set version)"
            )
    return problems


def _validate_influence(label: str, influence: Any) -> list[str]:
    if not isinstance(influence, dict) or set(influence) != set(COLOURS):
        return [f"{label}: influence must give a value for each of " + ", ".join(COLOURS)]
    values = [influence[c] for c in COLOURS]
    if not all(_is_int(v) for v in values) or sorted(values) != list(range(1, len(COLOURS) + 1)):
        return [f"{label}: the six influences must be 1 to 6, each once (L-COMP-2)"]
    return []


def _build(data: dict[str, Any], bundled: bool) -> CharacterSet:
    by_rank = {c["rank"]: c for c in data["characters"]}
    booty = data["booty"]
    return CharacterSet(
        id=data["id"],
        data={**data, "characters": [by_rank[r] for r in range(1, RANKS + 1)]},
        bundled=bundled,
        name=("", *(by_rank[r]["name"] for r in range(1, RANKS + 1))),
        influence=tuple(
            (0, *(by_rank[r]["influence"][colour] for r in range(1, RANKS + 1))) for colour in COLOURS
        ),
        booty_name=tuple(booty[k]["name"] for k in KINDS),
        booty_count=tuple(booty[k]["count"] for k in KINDS),
        booty_value=tuple(booty[k]["value"] for k in KINDS),
        map_set_size=booty["map"]["set_size"],
        map_set_value=booty["map"]["set_value"],
    )


def _canonical(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


_CACHE: dict[str, CharacterSet] = {}
_CACHE_LIMIT = 1000


def character_set_from_data(data: Any) -> CharacterSet:
    """A validated character set from its JSON data (cached: equal data gives the same object)."""
    if not isinstance(data, dict):
        raise CardSetError("?", ["a character set must be a JSON object"])
    try:
        key = _canonical(data)
    except (TypeError, ValueError):
        raise CardSetError(str(data.get("id", "?")), ["a character set must be plain JSON"]) from None
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    problems = validate(data)
    if problems:
        ident = data.get("id")
        raise CardSetError(ident if isinstance(ident, str) else "?", problems)
    copy = json.loads(key)
    bundled = copy["id"] in BUNDLED and _canonical(bundled_data(copy["id"])) == key
    built = _build(copy, bundled)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = built
    return built


_BUNDLED_SETS: dict[str, CharacterSet] = {}


def bundled_character_set(set_id: str = BUNDLED_DEFAULT) -> CharacterSet:
    if set_id not in BUNDLED:
        raise InvalidOptions(
            f"Unknown character set {set_id!r}; bundled character sets: {', '.join(sorted(BUNDLED))}"
        )
    found = _BUNDLED_SETS.get(set_id)
    if found is None:
        found = _BUNDLED_SETS[set_id] = character_set_from_data(bundled_data(set_id))
    return found


def resolve_character_set(value: Any) -> CharacterSet:
    """A character set from an option value: a bundled id or a whole character-set object."""
    if value is None:
        return bundled_character_set()
    if isinstance(value, str):
        return bundled_character_set(value)
    if isinstance(value, dict):
        return character_set_from_data(value)
    raise InvalidOptions("character_set must be the id of a bundled character set or a character-set object")
