"""Taking back a move (issue 17): a player may take back their last move until the next
player acts, unless the move revealed something.

The take-back is an event of its own (``Event.Kind.TAKE_BACK``, payload ``takes_back``: the
seq of the move), appended through ``append_event`` like every other: the log stays
append-only and hash-chained, and it keeps the move that was taken back. The state after a
take-back is the state before that move; ``games.services.state.apply_events`` (and so
``load_state``, ``replay_from_start`` and ``replay_check``) and ``engine.gamelog`` leave the
taken-back move out.

What "revealed something" means is decided conservatively, from what the rule set declares:
never in a rule set that draws during play (``chance_in_play``: a die rolled) or where seats
decide at once (``simultaneous``: a secret pick), never for a move whose sentence was secret
(``Step`` secrecy: private text or a hidden action), and only when the rule set names its
secret parts (``secret_parts``) and the move left all of them as they were (no card drawn
from the deck). A rule set that names no secret parts cannot tell us, so its moves are final.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from games.models import Event, Game, Seat
from games.services.append import append_event
from games.services.errors import Conflict, StaleSeq
from games.services.play import lock_own_seat, settle
from games.services.state import cache_put, load_state, rules_for

SECRET_PAYLOAD_KEYS = ("private", "public_action", "full_text")


@dataclass(frozen=True)
class TakeBack:
    """Whether the last event can be taken back by ``seat``, and why not."""

    allowed: bool
    reason: str = ""


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
    if rules.chance_in_play or rules.simultaneous:
        return TakeBack(False, f"Moves in {rules.title} may reveal a draw or a pick: they are final.")
    if any(key in last.payload for key in SECRET_PAYLOAD_KEYS):
        return TakeBack(False, "That move showed you something the others did not see: it is final.")
    if not rules.secret_parts:
        return TakeBack(False, f"Moves in {rules.title} are final.")
    before, after = rules.dump(load_state(game, last.seq - 1)), rules.dump(load_state(game, last.seq))
    if any(before.get(part) != after.get(part) for part in rules.secret_parts):
        return TakeBack(False, "That move revealed something (a card was drawn): it is final.")
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
