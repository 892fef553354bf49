"""The treasure cards (K-COMP-1): five kinds in two packs, read from the bundled data file.

The data file is checked when this module loads, so a broken file fails at import rather
than in the middle of a game. Cards of one kind are identical, so the engine handles a card
as its kind's index into :data:`KINDS`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

DATA_FILE = "captain-lucky-2024.json"
MIN_PLAYERS = 2
MAX_PLAYERS = 6

# The kinds in K-COMP-1 order: the order of hands and counts everywhere in the engine.
KINDS: tuple[str, ...] = ("silver_coin", "gold_bar", "pearl", "ruby", "jade_fish")
KIND_INDEX: dict[str, int] = {kind: i for i, kind in enumerate(KINDS)}


def validate(data: Any) -> list[str]:
    """Every problem of a card data object (an empty list when it is sound)."""
    if not isinstance(data, dict):
        return ["the card data must be an object"]
    problems: list[str] = []
    for key in ("id", "game", "note", "kinds", "packs"):
        if key not in data:
            problems.append(f"missing {key}")
    if data.get("game") != "captain-lucky":
        problems.append(f"game must be 'captain-lucky', not {data.get('game')!r}")
    kinds = data.get("kinds")
    if not isinstance(kinds, list) or [k.get("id") if isinstance(k, dict) else None for k in kinds] != list(
        KINDS
    ):
        problems.append("kinds must list " + ", ".join(KINDS) + " in that order")
    else:
        for kind in kinds:
            for word in ("name", "plural"):
                if not isinstance(kind.get(word), str) or not kind[word]:
                    problems.append(f"kind {kind['id']} needs a {word}")
    packs = data.get("packs")
    if not isinstance(packs, list) or not packs:
        return [*problems, "packs must be a non-empty list"]
    for pack in packs:
        if not isinstance(pack, dict):
            problems.append("each pack must be an object")
            continue
        name = pack.get("id")
        players = pack.get("players")
        if not isinstance(players, list) or not all(
            type(p) is int and MIN_PLAYERS <= p <= MAX_PLAYERS for p in players
        ):
            problems.append(f"pack {name}: players must list counts from {MIN_PLAYERS} to {MAX_PLAYERS}")
        cards = pack.get("cards")
        if not isinstance(cards, dict) or set(cards) != set(KINDS):
            problems.append(f"pack {name}: cards must give a count for each of " + ", ".join(KINDS))
        elif not all(type(n) is int and n >= 0 for n in cards.values()):
            problems.append(f"pack {name}: card counts must be whole numbers, 0 or more")
    if not problems:
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            if not any(players in pack["players"] for pack in packs):
                problems.append(f"no pack is in play for {players} players")
    return problems


def _load() -> dict[str, Any]:
    text = resources.files("engine.captain_lucky").joinpath("data", DATA_FILE).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    problems = validate(data)
    if problems:
        raise ValueError(f"{DATA_FILE} is invalid: " + "; ".join(problems))
    return data


DATA: dict[str, Any] = _load()
NAMES: tuple[str, ...] = tuple(kind["name"] for kind in DATA["kinds"])
PLURALS: tuple[str, ...] = tuple(kind["plural"] for kind in DATA["kinds"])


def unshuffled_pile(players: int) -> list[int]:
    """The cards of the packs in play, pack by pack, each pack in kind order: the order the
    generator shuffles (K-TURN-7), so a seed gives the same pile on every machine."""
    pile: list[int] = []
    for pack in DATA["packs"]:
        if players in pack["players"]:
            for k, kind in enumerate(KINDS):
                pile += [k] * pack["cards"][kind]
    return pile


def composition(players: int) -> tuple[int, ...]:
    """How many cards of each kind are in the game for ``players``."""
    pile = unshuffled_pile(players)
    return tuple(pile.count(k) for k in range(len(KINDS)))


def count_of(count: int, kind: int) -> str:
    """Cards as players say them: "1 ruby", "3 rubies", "2 jade fish"."""
    return f"{count} {NAMES[kind] if count == 1 else PLURALS[kind]}"


def kinds_json() -> list[dict[str, str]]:
    return [{"id": KINDS[k], "name": NAMES[k], "plural": PLURALS[k]} for k in range(len(KINDS))]
