"""Captain Lucky (Drew Richards, Kosmos 2024): rules in engine/captain_lucky/rules.md."""

from engine.captain_lucky.preview import Words, dice_word, odds
from engine.captain_lucky.rules import CaptainLuckyRules

RULE_SETS = [CaptainLuckyRules()]

__all__ = ["RULE_SETS", "CaptainLuckyRules", "Words", "dice_word", "odds"]
