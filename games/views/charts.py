"""The replay's line chart: one value per seat after every event, as SVG coordinates for
``games/_chart.html``. The values are the rule set's ``score_now``; the table plugin names them."""

from __future__ import annotations

import math
from typing import Any


def line_chart(
    series: list[list[int | float]], colours: list[str], names: dict[int, str], *, title: str, unit: str
) -> dict[str, Any]:
    width, height, left, bottom, top, right = 640, 220, 36, 22, 10, 10
    frames = len(series)
    top_value = max([max(row) for row in series if row] + [10])
    step = 10 if top_value <= 60 else 25 if top_value <= 150 else 50
    top_value = math.ceil(top_value / step) * step

    def x(i: int) -> float:
        return left + (width - left - right) * (i / max(frames - 1, 1))

    def y(value: float) -> float:
        return top + (height - top - bottom) * (1 - value / top_value)

    players = len(series[0]) if series else 0
    lines = []
    for seat in range(players):
        points = " ".join(f"{x(i):.1f},{y(row[seat]):.1f}" for i, row in enumerate(series))
        lines.append(
            {
                "seat": seat,
                "colour": colours[seat],
                "name": names.get(seat, ""),
                "points": points,
                "last": series[-1][seat] if series else 0,
            }
        )
    ticks = [{"value": v, "y": f"{y(v):.1f}"} for v in range(0, top_value + 1, step)]
    return {
        "title": title,
        "unit": unit,
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "bottom": height - bottom,
        "top": top,
        "lines": lines,
        "ticks": ticks,
        "frames": frames,
        "xs": [f"{x(i):.1f}" for i in range(frames)],
    }
