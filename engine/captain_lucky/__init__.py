"""Captain Lucky (Drew Richards, Kosmos 2024): rules in engine/captain_lucky/rules.md.

Besides ``RULE_SETS``, the package exports what its table plugin words and quotes (the card
kinds' names, the "How to play" page's figures): the web app imports nothing from the modules
inside (an import contract in pyproject.toml)."""

from engine.captain_lucky.cards import (
    DATA,
    KINDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NAMES,
    PLURALS,
    composition,
    count_of,
    kinds_json,
)
from engine.captain_lucky.preview import Words, dice_word, odds
from engine.captain_lucky.rules import CaptainLuckyRules
from engine.captain_lucky.state import COLOURS, HAND_SIZE, MIDDLE_START, SET_SIZE, seat_name

RULE_SETS = [CaptainLuckyRules()]

__all__ = [
    "COLOURS",
    "DATA",
    "HAND_SIZE",
    "KINDS",
    "MAX_PLAYERS",
    "MIDDLE_START",
    "MIN_PLAYERS",
    "NAMES",
    "PLURALS",
    "RULE_SETS",
    "SET_SIZE",
    "CaptainLuckyRules",
    "Words",
    "composition",
    "count_of",
    "dice_word",
    "kinds_json",
    "odds",
    "seat_name",
]
