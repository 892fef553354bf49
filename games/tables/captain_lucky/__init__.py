"""The table of Captain Lucky: the middle's sets, every collection, captains, hand sizes, the
pile and the discard pile, the viewer's own hand, the dice of the latest roll, and controls to
place (kind, then how many), steal (which set), re-roll, take the captain bonus or stop."""

from __future__ import annotations

from typing import Any

from games.tables.base import MoveGroup, Table
from games.tables.captain_lucky import presenters
from games.tables.captain_lucky.how_to_play import how_to_play


class CaptainLuckyTable(Table):
    rules_id = "captain-lucky"
    move_hint = "place cards in the middle, steal a set, then re-roll or stop while a die shows a blank."
    chart_title = "Points over time"
    chart_unit = "points"

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


TABLE = CaptainLuckyTable()
