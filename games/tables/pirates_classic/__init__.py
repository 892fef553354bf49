"""The table of Pirates, classic edition (2006). Until it has a board of its own it plays at
the generic table."""

from __future__ import annotations

from pathlib import Path

import engine.pirates_classic
from games.tables.base import Table


class PiratesClassicTable(Table):
    rules_id = "pirates-classic"
    move_hint = "move a pirate, board a ship, or answer the challenge question."
    chart_title = "Ducats over time"
    chart_unit = "ducats"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.pirates_classic.__file__).resolve().parent / "rules.md"

    def chart_value(self, view: dict[str, object], seat: int) -> int | None:
        seats = view.get("seats")
        if isinstance(seats, list) and isinstance(seats[seat], dict):
            treasury = seats[seat].get("treasury")
            if isinstance(treasury, int):
                return treasury
        return super().chart_value(view, seat)


TABLE = PiratesClassicTable()
