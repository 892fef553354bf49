"""Captain Lucky (Drew Richards, Kosmos 2024): rules in engine/captain_lucky/rules.md."""

from engine.captain_lucky.rules import CaptainLuckyRules

RULE_SETS = [CaptainLuckyRules()]

__all__ = ["RULE_SETS", "CaptainLuckyRules"]
