"""Libertalia (Paolo Mori, 2012): rules in engine/libertalia/rules.md (ids L-…)."""

from engine.libertalia.rules import LibertaliaRules

RULE_SETS = [LibertaliaRules()]

__all__ = ["RULE_SETS", "LibertaliaRules"]
