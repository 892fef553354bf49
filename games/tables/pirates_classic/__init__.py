"""The table of Pirates, classic edition (2006): the three ships on display, every stack and
who controls it, treasuries and booty, the challenge question with its public answers, the
move controls (stack, then move or board, then booty) with each move's preview, a replay
chart of ducats and a "How to play" page for players."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.pirates_classic
from games.tables.base import MoveGroup, Table
from games.tables.pirates_classic.how_to_play import how_to_play
from games.tables.pirates_classic.presenters import board, move_groups, move_steps
from games.tables.pirates_classic.preview import preview


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
    # Players read this instead: the specification stays in the repository.
    how_to_play_template = "tables/pirates_classic/how_to_play.html"

    def how_to_play(self) -> dict[str, Any]:
        return how_to_play()

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        return board(view, seats_summary)

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        return move_steps(legal_actions, view, previews)

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        return move_groups(legal_actions, view, previews)

    def preview(
        self, action: dict[str, Any], view: dict[str, Any], *, rules: Any, state: Any, seat: int
    ) -> str:
        # The classic edition draws nothing during a move except the refill after the last
        # face-up ship is boarded, which the preview announces without naming the ships.
        return preview(state, seat, action) or super().preview(
            action, view, rules=rules, state=state, seat=seat
        )

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        return int(view["seats"][seat]["treasury"])


TABLE = PiratesClassicTable()
