"""Libertalia (Paolo Mori, 2012): rules in engine/libertalia/rules.md (ids L-…).

Besides ``RULE_SETS``, the package exports what its table plugin's pages quote (the "How to
play" page's figures, the Tailor's offers): the web app imports nothing from the modules
inside (an import contract in pyproject.toml)."""

from engine.libertalia.campaign import CAPTAIN_PER
from engine.libertalia.characters import COLOURS, CONSTANTS, KINDS, RANKS, bundled_character_set
from engine.libertalia.day import BEGGAR_PAY, CAPTAIN_GAIN
from engine.libertalia.night import BARKEEP_GAIN, WAITRESS_GAIN
from engine.libertalia.options import OFFERS
from engine.libertalia.rules import LibertaliaRules

RULE_SETS = [LibertaliaRules()]

__all__ = [
    "BARKEEP_GAIN",
    "BEGGAR_PAY",
    "CAPTAIN_GAIN",
    "CAPTAIN_PER",
    "COLOURS",
    "CONSTANTS",
    "KINDS",
    "OFFERS",
    "RANKS",
    "RULE_SETS",
    "WAITRESS_GAIN",
    "LibertaliaRules",
    "bundled_character_set",
]
