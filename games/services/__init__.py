"""The only code that changes games. Views, API views and tasks call these functions."""

from games.read.state import load_state, replay_from_start, rules_for
from games.services.accounts import (
    display_name_for,
    login_link_send,
    profile_change,
    profile_for,
    profile_update,
)
from games.services.chat import chat_post
from games.services.errors import (
    AddressNotVerified,
    Conflict,
    Forbidden,
    IllegalMove,
    InvalidInput,
    NotFound,
    ServiceError,
    StaleSeq,
    Throttled,
)
from games.services.invitations import invitation_accept, invitation_create, invitation_for
from games.services.lobby import (
    game_abort,
    game_create,
    game_start,
    seat_join,
    seat_leave,
    seats_fill_with_bots,
)
from games.services.play import Submitted, action_submit, bot_play, lock_game, record, settle
from games.services.resign import seat_resign
from games.services.simultaneous import decision_unchanged
from games.services.takeback import move_take_back, take_back_check
from games.services.timeouts import profile_set_away, reminder_send, sweep_due, timeout_apply

__all__ = [
    "AddressNotVerified",
    "Conflict",
    "Forbidden",
    "IllegalMove",
    "InvalidInput",
    "NotFound",
    "ServiceError",
    "StaleSeq",
    "Submitted",
    "Throttled",
    "action_submit",
    "bot_play",
    "chat_post",
    "decision_unchanged",
    "display_name_for",
    "game_abort",
    "game_create",
    "game_start",
    "invitation_accept",
    "invitation_create",
    "invitation_for",
    "load_state",
    "lock_game",
    "login_link_send",
    "move_take_back",
    "profile_change",
    "profile_for",
    "profile_set_away",
    "profile_update",
    "record",
    "reminder_send",
    "replay_from_start",
    "rules_for",
    "seat_join",
    "seat_leave",
    "seat_resign",
    "seats_fill_with_bots",
    "settle",
    "sweep_due",
    "take_back_check",
    "timeout_apply",
]
