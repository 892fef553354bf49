"""Taking back a move: a player may take back their own last move until another seat acts,
unless the move revealed something.

The take-back is an event of its own (``Event.Kind.TAKE_BACK``, payload ``takes_back``: the
seq of the move), appended through ``append_event`` like every other: the log stays
append-only and hash-chained, and it keeps the move that was taken back. The state after a
take-back is the state before that move; ``games.read.state.apply_events`` (and so
``load_state``, ``replay_from_start`` and ``replay_check``) and ``engine.gamelog`` leave the
taken-back move out.

What "revealed something" means is the rule set's to say, move by move
(``Rules.reveals``, asked of the state before the move and the move itself): a card drawn, a
die rolled, a pick revealed with the others make a move final, and the answer says why. Two
safety checks stay whatever it says: a move whose event is secret (private text, a hidden
action, a sentence kept for after the end) is final, and so is one that changed any part of
the state the rule set declares secret (``secret_parts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from engine.base import FINAL_BY_DEFAULT
from engine.errors import IllegalAction
from games.models import Event, Game, Seat
from games.read.state import cache_put, load_state, rules_for
from games.services.append import append_event
from games.services.errors import Conflict, StaleSeq
from games.services.play import lock_own_seat, settle

SECRET_PAYLOAD_KEYS = ("private", "public_action", "full_text")


@dataclass(frozen=True)
class TakeBack:
    """Whether the last event can be taken back by ``seat``, and why not. ``final``: the rule
    set's own reason when it is the rules that make the move final (``Rules.reveals``)."""

    allowed: bool
    reason: str = ""
    final: str = ""


def take_back_check(game: Game, last: Event | None, seat: Seat | None) -> TakeBack:
    """Can ``seat`` take back ``last`` (the game's latest event) now? Reads states (cached
    normally) only once the cheap checks pass."""
    if seat is None or seat.user_id is None or seat.replaced_by_bot:
        return TakeBack(False, "You have no seat of your own in this game.")
    if game.status != Game.Status.ACTIVE:
        return TakeBack(False, "The game is not running.")
    if (
        last is None
        or last.seq != game.seq
        or last.seq < 2
        or last.kind != Event.Kind.ACTION
        or last.seat != seat.position
        or last.actor != f"user:{seat.user_id}"
    ):
        return TakeBack(False, "Only your own last move can be taken back, before anyone else acts.")
    rules = rules_for(game)
    before = load_state(game, last.seq - 1)
    try:
        reason = rules.reveals(before, seat.position, last.payload.get("action"))
    except IllegalAction:  # a logged move was legal where it was made; never guess otherwise
        reason = FINAL_BY_DEFAULT
    if reason is not None:
        return TakeBack(False, f"That move is final: {reason}.", final=reason)
    if any(key in last.payload for key in SECRET_PAYLOAD_KEYS):
        return TakeBack(False, "That move showed you something the others did not see: it is final.")
    if rules.secret_parts:
        after = rules.dump(load_state(game, last.seq))
        dumped = rules.dump(before)
        if any(dumped.get(part) != after.get(part) for part in rules.secret_parts):
            return TakeBack(False, "That move revealed something: it is final.")
    return TakeBack(True)


def move_take_back(*, game_id: int, user: User, expected_seq: object) -> Event:
    """Take back ``user``'s last move in ``game_id``. ``expected_seq`` is the seq of that move
    as the player saw it: if anyone acted since, nothing happens (StaleSeq)."""
    with transaction.atomic():
        game, seats, seat = lock_own_seat(game_id, user)
        if expected_seq != game.seq:
            raise StaleSeq(
                "The game has moved on since your move: it can no longer be taken back.", current_seq=game.seq
            )
        last = Event.objects.filter(game=game, seq=game.seq).first()
        check = take_back_check(game, last, seat)
        if not check.allowed:
            raise Conflict(check.reason)
        assert last is not None
        rules = rules_for(game)
        state: Any = load_state(game, last.seq - 1)
        event = append_event(
            game,
            kind=Event.Kind.TAKE_BACK,
            seat=seat.position,
            payload={
                "takes_back": last.seq,
                "text": f"{rules.seat_name(seat.position)} takes back that move.",
            },
            actor=f"user:{user.pk}",
        )
        cache_put(game, game.seq, state)
        settle(game, state, seats)
    return event
