"""What a game's options say, read with its rule set's declarations."""

from __future__ import annotations

from typing import Any

from engine.base import Rules


def fixed_deal_options(rules: Rules[Any], options: dict[str, Any]) -> list[str]:
    """The options in ``options`` that fix what the seed would draw (the rule set declares
    them with ``fixes_chance``): a game with any of them is a fixed deal, not a fair shuffle."""
    return [info.name for info in rules.options if info.fixes_chance and info.name in options]
