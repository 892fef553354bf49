"""The table of Captain Lucky: the middle's sets, every collection, captains, hand sizes, the
pile and the discard pile, the viewer's own hand, the dice of the latest roll, and controls to
place (kind, then how many), steal (which set), re-roll, take the captain bonus or stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.captain_lucky
from games.tables.base import MoveGroup, Table
from games.tables.captain_lucky import presenters


class CaptainLuckyTable(Table):
    rules_id = "captain-lucky"
    board_template = "tables/captain_lucky/board.html"
    controls_template = "tables/captain_lucky/controls.html"
    stylesheet = "tables/captain_lucky/table.css"
    move_hint = "place cards in the middle, steal a set, then re-roll or stop while a die shows a blank."
    chart_title = "Points over time"
    chart_unit = "points"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.captain_lucky.__file__).resolve().parent / "rules.md"

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        return presenters.board(view, seats_summary)

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        return presenters.controls(legal_actions, view)

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        return presenters.move_groups(legal_actions, view)

    def action_label(self, action: dict[str, Any], view: dict[str, Any]) -> str:
        return presenters.label(action, view)

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        """K-END-2: the points the seat would score if the game ended now (final scores at the end)."""
        result = view.get("result")
        if result:
            return int(result["scores"][seat])
        return int(view["seats"][seat]["points"])


TABLE = CaptainLuckyTable()
