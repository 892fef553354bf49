"""The table of Pirates, classic edition (2006): the three ships on display, every stack and
who controls it, treasuries and booty, the challenge question with its public answers, the
move controls (stack, then move or board, then booty) with each move's preview, a replay
chart of ducats and a "How to play" page for players."""

from __future__ import annotations

from typing import Any

from games.tables.base import MoveGroup, Table
from games.tables.pirates_classic.how_to_play import how_to_play
from games.tables.pirates_classic.presenters import board, move_groups, move_steps


class PiratesClassicTable(Table):
    rules_id = "pirates-classic"
    move_hint = "move a pirate, board a ship, or answer the challenge question."
    # Treasuries plus the majority bonuses: the score if the game ended now (C-END-1).
    chart_title = "Score if the game ended now"
    chart_unit = "ducats"

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


TABLE = PiratesClassicTable()
