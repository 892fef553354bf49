"""What the Libertalia "How to play" page shows: the structure of a campaign, the booty and its
values, the 30 characters with their influence in every colour, and a worked example of one
day, all read from the bundled character set so the page and the engine never disagree."""

from __future__ import annotations

from typing import Any

from engine.libertalia import (
    BARKEEP_GAIN,
    BEGGAR_PAY,
    CAPTAIN_GAIN,
    CAPTAIN_PER,
    COLOURS,
    CONSTANTS,
    KINDS,
    OFFERS,
    RANKS,
    WAITRESS_GAIN,
    bundled_character_set,
)

# The worked example: campaign 1, day 1, four players. These options fix the deal (the
# tests replay the example through the engine with them).
EXAMPLE_COLOURS = ["yellow", "red", "blue", "green"]
# Each seat's choice at Sunrise, by colour.
EXAMPLE_PICKS = {"yellow": 29, "red": 3, "blue": 18, "green": 7}
EXAMPLE_RANKS = [3, 7, 9, 12, 14, 18, 21, 26, 29]
EXAMPLE_LAYOUT = [
    ["chest", "jewel", "goods", "relic"],
    ["goods", "goods", "map", "saber"],
    ["officer", "jewel", "relic", "map"],
    ["chest", "goods", "saber", "relic"],
    ["jewel", "map", "map", "officer"],
    ["goods", "relic", "saber", "jewel"],
]
# The Dusk choices, by colour: the token(s) each character's owner picks, in order. The last
# relic is the only kind left when the Barkeep's turn comes, so it is taken without asking.
EXAMPLE_TAKES = {"yellow": ["chest"], "blue": ["jewel", "goods"]}
# The example compares two Brutes (rank 14) to show the tie-break.
TIE_RANK = 14

EXAMPLE_OPTIONS: dict[str, Any] = {
    "colours": EXAMPLE_COLOURS,
    "ranks": [EXAMPLE_RANKS],
    "layouts": [EXAMPLE_LAYOUT],
}

# What a Sunrise choice, the Day and Dusk may ask of a player (L-DEC-3, L-NIGHT-3).
DECISIONS = [
    ("Your character for the day", "Sunrise, every day",
     "Choose one card of your hand, in secret. It is final; the cards are revealed together."),
    ("Parrot", "Day", "Choose another card of your hand to put on the ship at once."),
    ("Recruiter", "Day", "Choose a character of your den to take back into your hand."),
    ("Surgeon", "Day", "Choose a character of your graveyard to take back into your hand (the others do not "
     "learn which)."),
    ("Preacher", "Day", "Choose the kind of token you keep one of; all your other tokens are discarded."),
    ("Gunner", "Day", "Choose a character in any den, your own included, to discard."),
    ("Merchant", "Day", "Choose which tokens to sell: "
     + " or ".join(f"{count} of one kind for {gain} doubloons" for count, gain in OFFERS) + "."),
    ("Booty", "Dusk", "Choose a token of today's day-space (the Cook chooses two, one after the other)."),
    ("Saber", "Dusk", "When you take a saber: choose a character in your left or right neighbour's den to "
     "discard."),
    ("Waitress", "Night", f"Whether to discard a treasure map to gain {WAITRESS_GAIN} doubloons."),
]


def _token_rows(chars: Any) -> list[dict[str, Any]]:
    effects = {
        "officer": "Your character is discarded at the end of its Dusk turn instead of entering your den.",
        "saber": "At once, discard a character from your left or right neighbour's den.",
        "map": f"Every {chars.map_set_size} treasure maps make a set worth {chars.map_set_value}; "
               "left-over maps are worth nothing.",
    }
    return [
        {
            "kind": kind,
            "name": chars.booty_name[k],
            "count": chars.booty_count[k],
            "value": chars.booty_value[k],
            "effect": effects.get(kind, ""),
        }
        for k, kind in enumerate(KINDS)
    ]


def example(chars: Any) -> dict[str, Any]:
    """The numbers of the worked example, from the character set's effects."""
    start = int(CONSTANTS["start_doubloons"])
    seats = list(EXAMPLE_COLOURS)
    ship = sorted(
        ((colour, EXAMPLE_PICKS[colour]) for colour in seats),
        key=lambda c: (c[1], chars.influence[COLOURS.index(c[0])][c[1]]),
    )
    cards = [
        {"colour": colour, "owner": colour.capitalize(), "rank": rank, "name": chars.name[rank],
         "influence": chars.influence[COLOURS.index(colour)][rank]}
        for colour, rank in ship
    ]
    money = {colour: start for colour in seats}
    # Day, left to right: the Beggar (Red) is paid by the owner of the highest character, the
    # Captain (Yellow); the Captain then gains.
    highest = ship[-1][0]
    beggar = BEGGAR_PAY
    money[highest] -= beggar
    money["red"] += beggar
    after_beggar = dict(money)
    money["yellow"] += CAPTAIN_GAIN
    after_day = dict(money)
    # Dusk, right to left: Captain one token, Cook two, Barkeep the last one, Beggar none.
    space = list(EXAMPLE_LAYOUT[0])
    booty: dict[str, list[str]] = {colour: [] for colour in seats}
    for colour in ("yellow", "blue"):
        for kind in EXAMPLE_TAKES[colour]:
            space.remove(kind)
            booty[colour].append(kind)
    last = space.pop()
    booty["green"].append(last)
    # Night: the Barkeep in Green's den.
    money["green"] += BARKEEP_GAIN
    value = dict(zip(KINDS, chars.booty_value, strict=True))
    fortunes = {
        colour: money[colour] + sum(value[k] for k in booty[colour]) for colour in seats
    }
    # The Captain's End effect counts cursed relics: Yellow holds none.
    captain_end = CAPTAIN_PER * booty["yellow"].count("relic")
    fortunes["yellow"] -= captain_end
    return {
        "start": start,
        "players": len(seats),
        "space": [chars.booty_name[KINDS.index(k)] for k in EXAMPLE_LAYOUT[0]],
        "picks": [
            {"owner": c.capitalize(), "colour": c, "rank": r, "name": chars.name[r]}
            for c, r in ((c, EXAMPLE_PICKS[c]) for c in seats)
        ],
        "ship": cards,
        "beggar_pay": beggar,
        "captain_gain": CAPTAIN_GAIN,
        "barkeep_gain": BARKEEP_GAIN,
        "after_beggar": after_beggar,
        "after_day": after_day,
        "money": money,
        "booty": {c: [chars.booty_name[KINDS.index(k)] for k in booty[c]] for c in seats},
        "booty_kinds": booty,
        "last": chars.booty_name[KINDS.index(last)],
        "values": {chars.booty_name[k]: chars.booty_value[k] for k in range(len(KINDS))},
        "fortunes": fortunes,
        "relic_cost": -value["relic"],
    }


def how_to_play() -> dict[str, Any]:
    chars = bundled_character_set()
    characters = []
    for rank in range(1, RANKS + 1):
        data = chars.character_json(rank)
        characters.append({
            **data,
            "when": ", ".join(str(t).capitalize() for t in data["timing"]),
            "influence": [
                {"colour": colour, "value": chars.influence[c][rank]} for c, colour in enumerate(COLOURS)
            ],
        })
    tie: list[dict[str, Any]] = [
        {"colour": colour, "owner": colour.capitalize(), "influence": chars.influence[c][TIE_RANK]}
        for colour, c in ((colour, COLOURS.index(colour)) for colour in ("yellow", "red"))
    ]
    tie.sort(key=lambda t: int(t["influence"]))
    fortune = ["doubloons"]
    for k in range(len(KINDS)):
        worth = chars.booty_value[k]
        if worth:
            fortune.append(f"{'+' if worth > 0 else '−'} {abs(worth)} per {chars.booty_name[k]}")
    fortune.append(f"+ {chars.map_set_value} per set of {chars.map_set_size} treasure maps")
    return {
        "constants": CONSTANTS,
        "fortune": " ".join(fortune),
        "colours": list(COLOURS),
        "tokens": _token_rows(chars),
        "bag": sum(chars.booty_count),
        "map_set_size": chars.map_set_size,
        "map_set_value": chars.map_set_value,
        "characters": characters,
        "decisions": [{"name": n, "when": w, "what": t} for n, w, t in DECISIONS],
        "tie": {"rank": TIE_RANK, "name": chars.name[TIE_RANK], "cards": tie},
        "example": example(chars),
    }
