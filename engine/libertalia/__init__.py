"""Libertalia (Paolo Mori, 2012): rules in games/rules_docs/libertalia.md (ids L-…)."""

from engine.libertalia.rules import LibertaliaRules

RULE_SETS = [LibertaliaRules()]

__all__ = ["RULE_SETS", "LibertaliaRules"]
