"""The table of Pirates (2021): the display, parties and booty, the three-step move controls
(party, what to do, booty), the scoring breakdown, and a replay chart of ducats."""

from __future__ import annotations

from typing import Any

from games.tables.base import MoveGroup, Table
from games.tables.pirates.how_to_play import how_to_play
from games.tables.pirates.presenters import board, move_groups, move_steps


class PiratesTable(Table):
    rules_id = "pirates"
    move_hint = "choose a party, then what to do with it."
    # The score as it would be if the game ended now: ducats plus the end bonuses (majorities,
    # wheels, the black spot). Plotting ducats in hand made the player who lost after final
    # scoring look like the winner.
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


TABLE = PiratesTable()
