"""Captain Lucky (Drew Richards, Kosmos 2024): rules in games/rules_docs/captain-lucky.md."""

from engine.captain_lucky.rules import CaptainLuckyRules

RULE_SETS = [CaptainLuckyRules()]

__all__ = ["RULE_SETS", "CaptainLuckyRules"]
