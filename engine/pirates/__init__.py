"""Pirates (Stefan Dorra, Queen Games 2021): rules in /shared/rules/pirates.md."""

from typing import Any

from engine.base import Rules
from engine.pirates.rules import PiratesRules

# What the engine registry finds here (engine/registry.py).
RULE_SETS: list[Rules[Any]] = [PiratesRules()]

__all__ = ["RULE_SETS", "PiratesRules"]
