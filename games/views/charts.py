"""The replay's line chart: one value per seat after every event, drawn by ``games.charts``
for ``games/_chart.html``. The values are the rule set's ``score_now``; the table plugin names them."""

from __future__ import annotations

from typing import Any

from games.charts import Series
from games.charts import line_chart as draw


def line_chart(
    series: list[list[int | float]], colours: list[str], names: dict[int, str], *, title: str, unit: str
) -> dict[str, Any]:
    """``series`` holds one row per event (each seat's value after it); x is the event number."""
    players = len(series[0]) if series else 0
    lines = [
        Series(
            names.get(seat, ""),
            [(i, row[seat]) for i, row in enumerate(series)],
            colours[seat],
            extra={"seat": seat},
        )
        for seat in range(players)
    ]
    chart = draw(lines, title=title, unit=unit, width=640, height=220, y_from_zero=True, min_top=10)
    for line in chart["lines"]:
        line["last"] = line["last"] if line["last"] is not None else 0
    chart["frames"] = len(series)
    return chart
