"""Pirates (Stefan Dorra, Queen Games 2021): rules in /shared/rules/pirates.md.

Besides ``RULE_SETS``, the package exports what its table plugin's "How to play" page quotes:
the web app imports nothing from the modules inside (an import contract in pyproject.toml)."""

from typing import Any

from engine.base import Rules
from engine.pirates.cards import MAJORITY_KINDS, bundled_card_set
from engine.pirates.rules import PiratesRules

# What the engine registry finds here (engine/registry.py).
RULE_SETS: list[Rules[Any]] = [PiratesRules()]

__all__ = ["MAJORITY_KINDS", "RULE_SETS", "PiratesRules", "bundled_card_set"]
