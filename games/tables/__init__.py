"""Table plugins: how each rule set's game shows on the table page, in the replay, on the
rules page and in the emails.

A rule set's own table is a package ``games/tables/<package>/`` whose ``TABLE`` is a
``games.tables.base.Table`` naming its rule set id; its templates live in
``templates/tables/<package>/`` and its stylesheet in ``static/tables/<package>/``. Tables are
found by looking at the packages here, so adding one touches only its own folders. A rule set
without a table of its own is still playable at the generic table (``Table`` itself): its
public view laid out readably and one button per legal action.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from games.tables.base import Move, MoveGroup, Table

__all__ = ["Move", "MoveGroup", "Table", "table_for", "tables"]


@cache
def tables() -> dict[str, Table]:
    """Every rule set's own table, by rule set id."""
    found: dict[str, Table] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        table = getattr(module, "TABLE", None)
        if not isinstance(table, Table) or not table.rules_id:
            raise TypeError(f"games.tables.{info.name} must define TABLE, a Table with its rules_id")
        if table.rules_id in found:
            raise TypeError(f"two tables for the rule set {table.rules_id!r}")
        found[table.rules_id] = table
    return found


def table_for(rules_id: str) -> Table:
    """The rule set's own table, or the generic one."""
    return tables().get(rules_id) or Table(rules_id)
