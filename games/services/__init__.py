"""The only code that changes games. Views, API views and tasks call these functions."""

from games.services.errors import (
    Conflict,
    Forbidden,
    IllegalMove,
    InvalidInput,
    NotFound,
    ServiceError,
    StaleSeq,
)
from games.services.lobby import (
    game_abort,
    game_create,
    game_start,
    seat_join,
    seat_leave,
    seats_fill_with_bots,
)
from games.services.play import Submitted, action_submit, bot_play, lock_game, record, settle
from games.services.state import load_state, replay_from_start, rules_for

__all__ = [
    "Conflict",
    "Forbidden",
    "IllegalMove",
    "InvalidInput",
    "NotFound",
    "ServiceError",
    "StaleSeq",
    "Submitted",
    "action_submit",
    "bot_play",
    "game_abort",
    "game_create",
    "game_start",
    "load_state",
    "lock_game",
    "record",
    "replay_from_start",
    "rules_for",
    "seat_join",
    "seat_leave",
    "seats_fill_with_bots",
    "settle",
]
