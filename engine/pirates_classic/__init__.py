"""Pirates, classic edition (Buccaneer / Seeräuber, Stefan Dorra, Queen Games 2006): rules in
engine/pirates_classic/rules.md.

Besides ``RULE_SETS``, the package exports what its table plugin words and quotes (the booty's
names, the "How to play" page's figures): the web app imports nothing from the modules inside
(an import contract in pyproject.toml)."""

from engine.pirates.state import MAX_PARTY
from engine.pirates_classic.cards import KINDS, PIECES_PER_KIND, SHIP_COUNT, bundled_ship_set
from engine.pirates_classic.preview import KIND_LABELS, kind_label
from engine.pirates_classic.rules import PiratesClassicRules
from engine.pirates_classic.scoring import booty_ducats
from engine.pirates_classic.state import CHALLENGERS, DISPLAY_SPACES, START_DUCATS

RULE_SETS = [PiratesClassicRules()]

__all__ = [
    "CHALLENGERS",
    "DISPLAY_SPACES",
    "KINDS",
    "KIND_LABELS",
    "MAX_PARTY",
    "PIECES_PER_KIND",
    "RULE_SETS",
    "SHIP_COUNT",
    "START_DUCATS",
    "PiratesClassicRules",
    "booty_ducats",
    "bundled_ship_set",
    "kind_label",
]
