"""The read model: below the services and the selectors, above the models.

- ``games.read.state``: a game's engine state at any seq (snapshots, this process's cache and
  the shared Redis cache, the replay through ``engine.gamelog.walk``), ``rules_for``;
- ``games.read.table``: a seat's table (its view, its moves numbered and grouped by the table
  plugin, with previews, and whom the game waits for), which the site, the replay, the API
  and the emails all read;
- ``games.read.options``: what a game's options say (a fixed deal).

Only the services write through it (``cache_put``, ``write_snapshot``, after an append).
"""

from games.read.options import fixed_deal_options
from games.read.state import load_state, replay_from_start, rules_for, states_after_each
from games.read.table import MoveList, NumberedGroup, NumberedMove, SeatTable, seat_table

__all__ = [
    "MoveList",
    "NumberedGroup",
    "NumberedMove",
    "SeatTable",
    "fixed_deal_options",
    "load_state",
    "replay_from_start",
    "rules_for",
    "seat_table",
    "states_after_each",
]
