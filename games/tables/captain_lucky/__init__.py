"""The table of Captain Lucky. Until it has a board of its own it plays at the generic table."""

from __future__ import annotations

from pathlib import Path

import engine.captain_lucky
from games.tables.base import Table


class CaptainLuckyTable(Table):
    rules_id = "captain-lucky"
    move_hint = "place cards in the middle, then steal a set and roll."
    chart_title = "Points over time"
    chart_unit = "points"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.captain_lucky.__file__).resolve().parent / "rules.md"

    def chart_value(self, view: dict[str, object], seat: int) -> int | None:
        seats = view.get("seats")
        if isinstance(seats, list) and isinstance(seats[seat], dict):
            points = seats[seat].get("points")
            if isinstance(points, int):
                return points
        return super().chart_value(view, seat)


TABLE = CaptainLuckyTable()
