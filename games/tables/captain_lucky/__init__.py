"""The table of Captain Lucky: the middle's sets, every collection, captains, hand sizes, the
pile and the discard pile, the viewer's own hand, the dice of the latest roll, and controls to
place (kind, then how many), steal (which set), re-roll, take the captain bonus or stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.captain_lucky
from games.tables.base import MoveGroup, Table
from games.tables.captain_lucky import presenters
from games.tables.captain_lucky.how_to_play import how_to_play
from games.tables.captain_lucky.preview import preview


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
    # Players read this instead: the specification stays in the repository.
    how_to_play_template = "tables/captain_lucky/how_to_play.html"

    def how_to_play(self) -> dict[str, Any]:
        return how_to_play()

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        return presenters.board(view, seats_summary)

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        return presenters.controls(legal_actions, view, previews)

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        return presenters.move_groups(legal_actions, view, previews)

    def action_label(self, action: dict[str, Any], view: dict[str, Any]) -> str:
        return presenters.label(action, view)

    def preview(
        self, action: dict[str, Any], view: dict[str, Any], *, rules: Any, state: Any, seat: int
    ) -> str:
        """What the move will do, from the mover's view alone (see preview.py): never by
        stepping the engine, whose next roll and next cards are secret."""
        return preview(action, view, seat=seat, state=state) or super().preview(
            action, view, rules=rules, state=state, seat=seat
        )

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        """K-END-2: the points the seat would score if the game ended now (final scores at the end)."""
        result = view.get("result")
        if result:
            return int(result["scores"][seat])
        return int(view["seats"][seat]["points"])


TABLE = CaptainLuckyTable()
