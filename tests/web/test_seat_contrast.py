"""Libertalia's rank badges are text on the seat's colour: every seat colour the rule set may
draw keeps that text at 4.5:1 or more (WCAG AA for small text). Axe saw grey fail only in the
games whose setup drew grey, so each colour is checked here, not left to the draw."""

from __future__ import annotations

import re
from pathlib import Path

from engine.registry import get_rules

STATIC = Path(__file__).resolve().parents[2] / "static"


def _luminance(colour: str) -> float:
    hex_digits = colour.lstrip("#")
    if len(hex_digits) == 3:
        hex_digits = "".join(c * 2 for c in hex_digits)
    channels = [int(hex_digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _custom_properties(css: str) -> dict[str, str]:
    return dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-fA-F]{3,6})", css))


def test_every_libertalia_seat_colour_keeps_its_rank_badge_readable() -> None:
    site = (STATIC / "css" / "site.css").read_text("utf-8")
    table = (STATIC / "tables" / "libertalia" / "table.css").read_text("utf-8")
    colours = {**_custom_properties(site), **_custom_properties(table)}
    default_text = re.search(r"\.lib-rank \{[^}]*?[^-]color:\s*(#[0-9a-fA-F]{3,6})", table)
    assert default_text, "table.css: .lib-rank names its text colour"
    dark_rule = re.search(
        r"^([^{}]*\.lib-rank[^{}]*)\{\s*color:\s*(#[0-9a-fA-F]{3,6});\s*\}", table, re.MULTILINE
    )
    dark_seats = set(re.findall(r"\.([a-z]+) \.lib-rank", dark_rule.group(1))) if dark_rule else set()
    rules = get_rules("libertalia")
    for seat_colour in rules.colours:
        text = dark_rule.group(2) if dark_rule and seat_colour in dark_seats else default_text.group(1)
        ratio = _contrast(colours[seat_colour], text)
        assert ratio >= 4.5, f"{seat_colour} rank badge: {text} on {colours[seat_colour]} is {ratio:.2f}:1"
