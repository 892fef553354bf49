"""The table of Libertalia: the ship in order, the six day-spaces with their booty, every den,
doubloons, booty and the scores by campaign, the viewer's hand, and one control for the
decision the viewer owes (the Sunrise card, or the question a character asks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.libertalia
from games.tables.base import MoveGroup, Table
from games.tables.libertalia.how_to_play import how_to_play
from games.tables.libertalia.presenters import action_label, board, decision, move_groups
from games.tables.libertalia.preview import preview


class LibertaliaTable(Table):
    rules_id = "libertalia"
    board_template = "tables/libertalia/board.html"
    controls_template = "tables/libertalia/controls.html"
    stylesheet = "tables/libertalia/table.css"
    move_hint = "choose a character, or answer the question your character asks."
    chart_title = "Score over time"
    chart_unit = "points"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.libertalia.__file__).resolve().parent / "rules.md"
    # Players read this instead: the specification stays in the repository.
    how_to_play_template = "tables/libertalia/how_to_play.html"

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

    def preview(
        self, action: dict[str, Any], view: dict[str, Any], *, rules: Any, state: Any, seat: int
    ) -> str:
        # Read from the public table and the mover's own hand and graveyard only (see preview.py).
        return preview(state, seat, action) or super().preview(
            action, view, rules=rules, state=state, seat=seat
        )

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        # The score counts the fortunes of the campaigns ended so far (L-END-4).
        return int(view["seats"][seat]["score"])


TABLE = LibertaliaTable()
