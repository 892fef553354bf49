"""Server-side SVG line charts: several named series of (x, y) points, drawn as coordinates for
``templates/games/_line_chart.html`` (no script, no style attribute: the CSP stays strict),
with a table of the same numbers as the text alternative. The replay's score chart
(games/views/charts.py), a player's rating history and a crew's standings use it.

The default canvas is 360 x 200 user units: drawn at a phone's 375 px the labels stay at
about their 11 px, and on wider screens the stylesheet caps its width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

STEPS = (1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000)


@dataclass(frozen=True)
class Series:
    """One line: its name (legend and table), its points in x order, and a CSS class for its
    colour (a seat colour such as "red", or "" for the default)."""

    name: str
    points: Sequence[tuple[float, float]]
    colour: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def nice_step(span: float, most: int = 6) -> float:
    """The smallest step of ``STEPS`` that cuts ``span`` into at most ``most`` intervals."""
    for step in STEPS:
        if span / step <= most:
            return step
    return float(10 ** math.ceil(math.log10(span / most)))


def _label(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    unit: str,
    x_label: str = "",
    width: int = 360,
    height: int = 200,
    y_from_zero: bool = False,
    min_top: float = 0,
) -> dict[str, Any]:
    """The chart's geometry: gridlines with their values, one polyline per series (with its
    last value), and ``table`` (the x values as columns, one row per series) for readers
    who do not see the picture. ``y_from_zero`` starts the axis at 0; the top is at least
    ``min_top``."""
    left, right, top, bottom = 38, 10, 10, 22
    xs = sorted({x for s in series for x, _y in s.points})
    ys = [y for s in series for _x, y in s.points]
    low = min([*ys, 0]) if y_from_zero else min(ys, default=0)
    high = max([*ys, min_top])
    if high <= low:
        high = low + 1
    step = nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step
    x_low, x_high = (xs[0], xs[-1]) if xs else (0, 1)

    def x_at(x: float) -> float:
        return left + (width - left - right) * ((x - x_low) / (x_high - x_low) if x_high > x_low else 1)

    def y_at(y: float) -> float:
        return top + (height - top - bottom) * (1 - (y - low) / (high - low))

    lines = []
    for s in series:
        points = " ".join(f"{x_at(x):.1f},{y_at(y):.1f}" for x, y in s.points)
        last = s.points[-1][1] if s.points else None
        # A single point draws no line: it gets a dot.
        dots = []
        if len(s.points) == 1:
            dots = [{"x": f"{x_at(x):.1f}", "y": f"{y_at(y):.1f}"} for x, y in s.points]
        lines.append(
            {"name": s.name, "colour": s.colour, "points": points, "last": last, "dots": dots, **s.extra}
        )
    ticks = []
    value = low
    while value <= high + step / 1000:
        ticks.append({"value": _label(value), "y": f"{y_at(value):.1f}"})
        value += step
    by_series = [dict(s.points) for s in series]
    return {
        "title": title,
        "unit": unit,
        "x_label": x_label,
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "lines": lines,
        "ticks": ticks,
        "x_ticks": [{"value": _label(x), "x": f"{x_at(x):.1f}"} for x in _x_ticks(xs)],
        "xs": [f"{x_at(x):.1f}" for x in xs],
        "table": {
            "columns": [_label(x) for x in xs],
            "rows": [
                {"name": s.name, "values": [_label(values[x]) if x in values else "" for x in xs]}
                for s, values in zip(series, by_series, strict=True)
            ],
        },
    }


def _x_ticks(xs: list[float], most: int = 6) -> list[float]:
    """At most ``most`` of the x values, evenly picked, the first and last included."""
    if len(xs) <= most:
        return xs
    picked = {xs[round(i * (len(xs) - 1) / (most - 1))] for i in range(most)}
    return sorted(picked)
