"""Pirates (Stefan Dorra, Queen Games 2021): rules in /shared/rules/pirates.md."""

from engine.pirates.rules import PiratesRules

__all__ = ["PiratesRules"]
