"""The table of Libertalia. Until it has a board of its own it plays at the generic table."""

from __future__ import annotations

from pathlib import Path

import engine.libertalia
from games.tables.base import Table


class LibertaliaTable(Table):
    rules_id = "libertalia"
    move_hint = "choose a character, or answer the question your character asks."
    chart_title = "Score over time"
    chart_unit = "doubloons of score"
    # The rules as the engine implements them, with every clarification.
    rules_doc = Path(engine.libertalia.__file__).resolve().parent / "rules.md"


TABLE = LibertaliaTable()
