"""The table of Pirates, classic edition (2006): the three ships on display, every stack and
who controls it, treasuries and booty, the challenge question with its public answers, the
move controls (stack, then move or board, then booty) and a replay chart of ducats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.pirates_classic
from games.tables.base import MoveGroup, Table
from games.tables.pirates_classic.presenters import board, move_groups, move_steps


class PiratesClassicTable(Table):
    rules_id = "pirates-classic"
    board_template = "tables/pirates_classic/board.html"
    controls_template = "tables/pirates_classic/controls.html"
    stylesheet = "tables/pirates_classic/table.css"
    move_hint = "move a pirate, board a ship, or answer the challenge question."
    chart_title = "Ducats over time"
    chart_unit = "ducats"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.pirates_classic.__file__).resolve().parent / "rules.md"

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        return board(view, seats_summary)

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        return move_steps(legal_actions, view)

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        return move_groups(legal_actions, view)

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        return int(view["seats"][seat]["treasury"])


TABLE = PiratesClassicTable()
