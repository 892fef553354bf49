"""Pure-Python rules engines for the pirate games of Pirates by Mail.

Nothing here imports Django or knows about HTTP, email or time; see engine/README.md for the
contract every rule set fulfils.
"""

from engine.base import SEAT_COLOURS, Action, Rules
from engine.errors import CardSetError, IllegalAction, InvalidOptions, InvalidSnapshot, UnknownRules
from engine.registry import available_rules, get_rules

__all__ = [
    "SEAT_COLOURS",
    "Action",
    "CardSetError",
    "IllegalAction",
    "InvalidOptions",
    "InvalidSnapshot",
    "Rules",
    "UnknownRules",
    "available_rules",
    "get_rules",
]
