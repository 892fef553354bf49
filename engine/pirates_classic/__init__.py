"""Pirates, classic edition (Buccaneer / Seeräuber, Stefan Dorra, Queen Games 2006): rules in
engine/pirates_classic/rules.md."""

from engine.pirates_classic.preview import KIND_LABELS, kind_label
from engine.pirates_classic.rules import PiratesClassicRules

RULE_SETS = [PiratesClassicRules()]

__all__ = ["KIND_LABELS", "RULE_SETS", "PiratesClassicRules", "kind_label"]
