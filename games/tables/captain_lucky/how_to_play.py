"""What the Captain Lucky "How to play" page shows: the treasure cards of each pack, the pile
for each number of players, the odds of the dice, and a worked example turn.

Counts come from the bundled card data and the example is played by the engine itself (a made-up
game with a fixed deal and a fixed example seed, never a real game's), so the page and the
engine cannot disagree; a test checks that the example's dice still tell the story the page
tells (a blank on the first roll, all heads after one paid re-roll).
"""

from __future__ import annotations

from typing import Any

import engine
from engine.captain_lucky import (
    COLOURS,
    DATA,
    HAND_SIZE,
    KINDS,
    MAX_PLAYERS,
    MIDDLE_START,
    MIN_PLAYERS,
    NAMES,
    PLURALS,
    SET_SIZE,
    Words,
    composition,
    count_of,
    kinds_json,
    seat_name,
)
from games.tables.captain_lucky.presenters import dice_faces, treasure_set

DIE_FACES = 6
HEAD_FACES = 3  # K-COMP-2

# The example: three players; Red holds two rubies, and the middle opens with ruby, pearl, ruby.
EXAMPLE_PLAYERS = 3
EXAMPLE_SEED = 31  # an example's seed, chosen so the dice tell the story below
EXAMPLE_DEAL = {
    "red": ["ruby", "gold_bar", "ruby", "pearl", "jade_fish"],
    "blue": ["silver_coin", "silver_coin", "gold_bar", "pearl", "jade_fish"],
    "green": ["gold_bar", "silver_coin", "pearl", "gold_bar", "silver_coin"],
    "middle": ["ruby", "pearl", "ruby"],
    "draws": ["silver_coin", "pearl"],
}
EXAMPLE_ACTIONS: list[dict[str, Any]] = [
    {"type": "place", "kind": "ruby", "count": 1},
    {"type": "steal", "set": "m1"},
    {"type": "reroll"},
]


def example_deck() -> list[str]:
    """The example's whole pile, top first: the deal above, then the rest in kind order."""
    top = [kind for part in EXAMPLE_DEAL.values() for kind in part]
    rest = [kind for kind, n in zip(KINDS, composition(EXAMPLE_PLAYERS), strict=True)
            for _ in range(n - top.count(kind))]
    return top + rest


def _sets(sets: list[dict[str, Any]]) -> str:
    return ", ".join(f"{s['id']}: {count_of(s['cards'], KINDS.index(s['kind']))}" for s in sets)


def _example() -> dict[str, Any]:
    rules = engine.get_rules("captain-lucky")
    state = rules.new_game(EXAMPLE_PLAYERS, EXAMPLE_SEED, {"deck": example_deck()})
    views = [rules.view(state, 0)]
    for action in EXAMPLE_ACTIONS:
        state = rules.apply(state, 0, action)
        views.append(rules.view(state, 0))
    start, placed, rolled, won = views
    red_start, red_end = start["seats"][0], won["seats"][0]
    first, second = rolled["last_roll"], won["last_roll"]
    ruby = KINDS.index("ruby")
    return {
        "players": EXAMPLE_PLAYERS,
        "hand": ", ".join(count_of(n, KINDS.index(k)) for k, n in red_start["hand"].items() if n),
        "middle_start": _sets(start["middle"]),
        "middle_placed": _sets(placed["middle"]),
        "pile_start": start["pile_count"],
        "pile_placed": placed["pile_count"],
        "pile_end": won["pile_count"],
        "hand_placed": placed["seats"][0]["hand_count"],
        "first_dice": dice_faces(first["dice"]),
        "first_count": len(first["dice"]),
        "first_odds": 2 ** len(first["dice"]),
        "first_blanks": first["dice"].count("blank"),
        "second_dice": dice_faces(second["dice"], second["rolled"]),
        "second_odds": 2 ** len(second["rolled"]),
        "second_won": second["won"],
        "paid": count_of(first["dice"].count("blank"), ruby),
        "collection": _sets(red_end["collection"]),
        "cards": sum(s["cards"] for s in red_end["collection"]),
        "points": red_end["points"],
        "discard": len(won["discard"]),
        "hand_end": red_end["hand_count"],
        "kind": NAMES[ruby],
        "kinds": PLURALS[ruby],
    }


def how_to_play() -> dict[str, Any]:
    words = Words({"kinds": kinds_json()})
    colours = list(COLOURS)
    # Player counts that play the same cards, as the card list's columns ("2–4", "5–6").
    ranges: list[dict[str, Any]] = []
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if ranges and ranges[-1]["counts"] == composition(n):
            ranges[-1]["last"] = n
        else:
            ranges.append({"first": n, "last": n, "counts": composition(n)})
    for r in ranges:
        r["players"] = f"{r['first']}–{r['last']}" if r["last"] > r["first"] else str(r["first"])
        r["label"] = f"In a game of {r['players']}"
        r["total"] = sum(r["counts"])
    packs = [
        {"id": pack["id"], "players": pack["players"], "total": sum(pack["cards"].values()),
         "label": f"{pack['id'].capitalize()} pack ({min(pack['players'])}–{max(pack['players'])} players)"}
        for pack in DATA["packs"]
    ]
    kinds = [
        {
            "id": kind["id"],
            "name": kind["name"],
            "plural": kind["plural"],
            "cells": [{"label": pack["label"], "count": raw["cards"][kind["id"]]}
                      for pack, raw in zip(packs, DATA["packs"], strict=True)]
            + [{"label": r["label"], "count": r["counts"][k]} for r in ranges],
        }
        for k, kind in enumerate(DATA["kinds"])
    ]
    extra_from = min(
        (min(p["players"]) for p in DATA["packs"] if min(p["players"]) > MIN_PLAYERS), default=None
    )
    games = [
        {"players": n, "cards": sum(composition(n)), "hands": n * HAND_SIZE,
         "pile": sum(composition(n)) - n * HAND_SIZE - MIDDLE_START}
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
    ]
    dice = [
        {"dice": n, "odds": 2 ** n, "percent": f"{100 * (HEAD_FACES / DIE_FACES) ** n:g}"}
        for n in range(1, SET_SIZE + 1)
    ]
    return {
        "kinds": kinds,
        "packs": packs,
        "ranges": ranges,
        "extra_from": extra_from,
        "games": games,
        "dice": dice,
        "hand_size": HAND_SIZE,
        "set_size": SET_SIZE,
        "middle_start": MIDDLE_START,
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "head_faces": HEAD_FACES,
        "seats": [{"code": f"p{seat}", "name": seat_name(seat), "colour": colour}
                  for seat, colour in enumerate(COLOURS)],
        "head_die": dice_faces(["head"]),
        "blank_die": dice_faces(["blank"]),
        "kept_die": dice_faces(["head"], []),
        "example": _example(),
        # How sets look on the table: one in the middle, one complete in Blue's collection.
        "sample_sets": [
            treasure_set({"id": "m3", "kind": "pearl", "cards": 3, "complete": False}, words, colours),
            treasure_set({"id": "p1s2", "kind": "gold_bar", "cards": 5, "complete": True}, words, colours),
        ],
    }
