"""What the Pirates (classic) "How to play" page shows: the ships with their values, the
majority bonuses, a worked boarding, a challenge that costs more than the captain has, and a
shared majority, all read from the bundled ship set and worked out with the engine's scoring,
so the page and the engine never disagree."""

from __future__ import annotations

from typing import Any

from engine.pirates_classic import (
    CHALLENGERS,
    DISPLAY_SPACES,
    KINDS,
    MAX_PARTY,
    PIECES_PER_KIND,
    SHIP_COUNT,
    START_DUCATS,
    booty_ducats,
    bundled_ship_set,
    kind_label,
)

# The challenge example: Red's stack of 7 (Red 2 on Green 4, Blue 4, Green 3, Blue 3, Green 2,
# Blue 2), the stack the table's own tests build; Red has spent down to this many ducats.
CHALLENGE_STACK_PAY = {"Blue": 4 + 3 + 2, "Green": 4 + 3 + 2}
CHALLENGE_PURSE = 5
# C-END-3, the rules' own scoring example: two players hold 2 chests each, two hold 1.
SHARED_COUNTS = [2, 2, 1, 1]


def _ship_rows() -> list[dict[str, Any]]:
    ship_set = bundled_ship_set()
    rows = []
    for i in range(len(ship_set)):
        ship = ship_set.ship_json(i)
        ship["booty_labels"] = [kind_label(kind) for kind in ship["booty"]]
        rows.append(ship)
    return rows


def boarding_example(ships: list[dict[str, Any]]) -> dict[str, Any]:
    """Red 4 (captain) on Blue 3 (mate) on Green ? (crew) boards the first ship a stack of
    three can board that shows two kinds of booty."""
    ship = next(s for s in ships if s["min_crew"] <= 3 and len(s["booty"]) == 2)
    purse = START_DUCATS + ship["ducats"]
    pay = 3 + ship["question_pay"]
    return {
        "ship": ship,
        "purse": purse,
        "pay": pay,
        "after": purse - pay,
        "blue": START_DUCATS + 3,
        "green": START_DUCATS + ship["question_pay"],
    }


def challenge_example(ships: list[dict[str, Any]]) -> dict[str, Any]:
    """The stack of 7 challenged by Green; Red, down to a few ducats, boards the ship that
    brings the fewest ducats, and the supply covers what Red cannot pay."""
    ship = min(ships, key=lambda s: (s["ducats"], s["id"]))
    pay = sum(CHALLENGE_STACK_PAY.values())
    purse = CHALLENGE_PURSE + ship["ducats"]
    return {
        "ship": ship,
        "start": CHALLENGE_PURSE,
        "purse": purse,
        "pay": pay,
        "each": CHALLENGE_STACK_PAY["Green"],
        "from_supply": max(0, pay - purse),
        "after": max(0, purse - pay),
    }


def how_to_play() -> dict[str, Any]:
    ship_set = bundled_ship_set()
    ships = _ship_rows()
    bonus = dict(zip(KINDS, ship_set.majority_bonus, strict=True))
    shared = booty_ducats(SHARED_COUNTS, bonus["chest"])
    return {
        "ships": ships,
        "ship_set_note": ship_set.data.get("note", ""),
        "majority": [{"kind": kind, "label": kind_label(kind), "bonus": bonus[kind]} for kind in KINDS],
        "start": START_DUCATS,
        "display": DISPLAY_SPACES,
        "ship_count": SHIP_COUNT,
        "pieces": PIECES_PER_KIND,
        "max_stack": MAX_PARTY,
        "challengers": CHALLENGERS,
        "crews": (min(s["min_crew"] for s in ships), max(s["min_crew"] for s in ships)),
        "example": boarding_example(ships),
        "challenge": challenge_example(ships),
        "shared": {
            "bonus": bonus["chest"],
            "label": kind_label("chest"),
            "counts": SHARED_COUNTS,
            "leader": shared[0],
            "other": shared[-1],
            "lost": bonus["chest"] - shared[0] * SHARED_COUNTS.count(SHARED_COUNTS[0]),
        },
    }
