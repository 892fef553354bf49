"""The table of Pirates (2021): the display, parties and booty, the three-step move controls
(party, what to do, booty), the scoring breakdown, and a replay chart of ducats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engine.pirates
from engine.pirates.scoring import score_sheet
from engine.pirates.state import PiratesState
from games.tables.base import MoveGroup, Table
from games.tables.pirates.how_to_play import how_to_play
from games.tables.pirates.presenters import board, move_groups, move_steps
from games.tables.pirates.preview import preview


class PiratesTable(Table):
    rules_id = "pirates"
    board_template = "tables/pirates/board.html"
    controls_template = "tables/pirates/controls.html"
    stylesheet = "tables/pirates/table.css"
    move_hint = "choose a party, then what to do with it."
    # The score as it would be if the game ended now: ducats plus the end bonuses (majorities,
    # wheels, the black spot). Plotting ducats in hand made the player who lost after final
    # scoring look like the winner.
    chart_title = "Score if the game ended now"
    chart_unit = "ducats"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.pirates.__file__).resolve().parent / "rules.md"
    # Players read this instead: the specification stays in the repository.
    how_to_play_template = "tables/pirates/how_to_play.html"

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
        return preview(rules, state, seat, action) or super().preview(
            action, view, rules=rules, state=state, seat=seat
        )

    def chart_row(self, view: dict[str, Any], state: Any, players: int) -> list[int]:
        if isinstance(state, PiratesState):
            # Every input of the score sheet (treasury, booty, kept cards, the black spot) is
            # public, so the total reveals nothing the view does not show.
            return [score.total for score in score_sheet(state)]
        return super().chart_row(view, state, players)

    def chart_value(self, view: dict[str, Any], seat: int) -> int | None:
        result = view.get("result")
        if isinstance(result, dict):
            return int(result["scores"][seat])
        return int(view["seats"][seat]["treasury"])


TABLE = PiratesTable()
