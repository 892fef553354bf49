"""What the Pirates "How to play" page shows: the card list with its values, the majority
bonuses, the wheel rates and a worked example turn, all read from the bundled card set so the
page and the engine never disagree."""

from __future__ import annotations

from typing import Any

from engine.pirates import MAJORITY_KINDS, bundled_card_set
from games.tables.pirates.presenters import BOOTY_ICONS, KIND_LABELS

START_DUCATS = 5


def how_to_play() -> dict[str, Any]:
    card_set = bundled_card_set()
    cards = [card_set.card_json(i) for i in range(len(card_set))]
    for card in cards:
        card["kind_label"] = KIND_LABELS.get(card["kind"], card["kind"])
    # The example: the first ship that a party of three can capture, whose captain (Red 4)
    # carries Blue's 3 as mate and Green's "?" as crew.
    ship = next(c for c in cards if c["kind"] == "ship" and c["min_crew"] <= 3)
    pay = 3 + ship["question_pay"]
    purse = START_DUCATS + ship["ducats"]
    mutiny_pay = 2 * (4 + ship["question_pay"])
    example = {
        "card": ship,
        "pay": pay,
        "purse": purse,
        "after": purse - pay,
        "kept": purse >= pay,
        "mutiny_pay": mutiny_pay,
        "mutiny_after": max(START_DUCATS + ship["ducats"] - mutiny_pay, 0),
        "mutiny_kept": START_DUCATS + ship["ducats"] >= mutiny_pay,
        "start": START_DUCATS,
    }
    rates = [
        {"players": players, "rates": list(row)} for players, row in sorted(card_set.wheel_rate.items())
    ]
    return {
        "cards": cards,
        "card_set_note": card_set.data.get("note", ""),
        "majority": [
            {"kind": kind, "bonus": bonus, "icon": BOOTY_ICONS.get(kind, "")}
            for kind, bonus in zip(MAJORITY_KINDS, card_set.majority_bonus, strict=True)
        ],
        "rates": rates,
        "example": example,
    }
