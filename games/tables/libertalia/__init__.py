"""The table of Libertalia: the ship in order, the six day-spaces with their booty, every den,
doubloons, booty and the scores by campaign, the viewer's hand, and one control for the
decision the viewer owes (the Sunrise card, or the question a character asks)."""

from __future__ import annotations

from typing import Any

from games.tables.base import MoveGroup, Table
from games.tables.libertalia.how_to_play import how_to_play
from games.tables.libertalia.presenters import action_label, board, decision, move_groups


class LibertaliaTable(Table):
    rules_id = "libertalia"
    move_hint = "choose a character, or answer the question your character asks."
    chart_title = "Score over time"
    chart_unit = "points"

    def how_to_play(self) -> dict[str, Any]:
        return how_to_play()

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        return board(view, seats_summary)

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        # One decision at a time: the Sunrise card or one character's question.
        return [decision(legal_actions, view, previews)] if legal_actions else []

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        return move_groups(legal_actions, view, previews)

    def action_label(self, action: dict[str, Any], view: dict[str, Any]) -> str:
        return action_label(action, view)


TABLE = LibertaliaTable()
