"""Appending to a game's log: submitted actions, forced passes and bot moves.

Locking contract: every function here that appends runs inside ``transaction.atomic`` and
holds ``SELECT … FOR UPDATE`` on the game row from before it reads ``game.seq`` until commit,
so appends to one game are serialised and ``seq`` has no gaps. ``bot_play`` lets its bots
think before it takes the lock, on the position it read without one, and records their
choices only if ``seq`` is still what it read (checked under the lock). Side effects (emails, bot
moves) are queued with ``transaction.on_commit`` and so never see an uncommitted event.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

import engine
from engine.base import Action
from engine.bots import choose_action
from engine.search import Budget
from games import eventlog, rows, side_effects
from games.models import Event, Game, Seat
from games.read.state import cache_put, load_state, rules_for, write_snapshot
from games.services.append import append_event
from games.services.errors import Conflict, Forbidden, IllegalMove, InvalidInput, NotFound, StaleSeq
from games.services.simultaneous import decision_state

PASS = {"type": "pass"}
# What an append changes on the game row (saving only these keeps the UPDATE small). The chain
# head goes with seq: one statement moves both, so a reader never sees one without the other.
READ_COLUMNS = [
    "seq", "head", "to_act", "status", "result", "finished_at", "deadline", "reminder_at", "updated_at"
]
MAX_IDEMPOTENCY_KEY = 100
# The bot levels the site offers, strongest first.
BOT_LEVELS = (Seat.BotKind.STRONG, Seat.BotKind.GREEDY, Seat.BotKind.RANDOM)


class KeyAlreadyUsed(Exception):
    """The event insert met the unique (game, actor, idempotency_key): that key names an
    earlier move of the same player."""


@dataclass(frozen=True)
class Submitted:
    event: Event
    game: Game
    created: bool
    seats: list[Seat]


def lock_game(game_id: object) -> Game:
    """Caller must be inside ``transaction.atomic``."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise NotFound("No such game.")
    game = rows.game_row(game_id, for_update=True)
    if game is None:
        raise NotFound(f"No game with id {game_id}.")
    return game


def record(
    game: Game,
    state: Any,
    seat: int,
    action: dict[str, Any],
    *,
    kind: str,
    actor: str,
    idempotency_key: str = "",
) -> tuple[Event, Any]:
    """Validate ``action`` with the engine and append it. Caller holds the game lock."""
    rules = rules_for(game)
    try:
        step = rules.step(state, seat, action)
    except engine.IllegalAction as exc:
        raise IllegalMove(str(exc)) from None
    new_state = step.state
    try:
        # No savepoint (two round trips per move): a failed insert leaves the caller's
        # transaction unusable, and the StaleSeq raised here rolls all of it back anyway.
        event = append_event(
            game,
            kind=kind,
            seat=seat,
            payload=eventlog.payload(step, action),
            actor=actor,
            idempotency_key=idempotency_key,
        )
    except IntegrityError as exc:
        if idempotency_key and "idempotency" in str(exc):
            raise KeyAlreadyUsed(idempotency_key) from None
        # Only possible if someone appended without the lock; the unique (game, seq) wins.
        raise StaleSeq("The game has moved on; reload and try again.", current_seq=game.seq) from None
    cache_put(game, game.seq, new_state)
    return event, new_state


def lock_own_seat(game_id: object, user: User) -> tuple[Game, list[Seat], Seat]:
    """Lock ``game_id`` and return it with its seats and ``user``'s own seat. Someone without a
    seat gets NotFound for a private game (it does not exist for those outside it) and
    Forbidden for a public one. Caller must be inside ``transaction.atomic``."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise NotFound("No such game.")
    # The game row (locked) and its seats in one round trip: every move starts here.
    read = rows.game_and_seats(game_id, for_update=True)
    if read is None:
        raise NotFound(f"No game with id {game_id}.")
    game, seats = read
    seat = next((s for s in seats if s.user_id == user.pk), None)
    if seat is None:
        if not game.is_public:
            raise NotFound(f"No game with id {game_id}.")
        raise Forbidden("You have no seat in this game.")
    return game, seats, seat


def game_seats(game: Game) -> list[Seat]:
    """Every seat of ``game`` with its player and their time away: one query for all a move needs."""
    return rows.seat_rows(game)


def _away_until(seat: Seat) -> datetime | None:
    # A user without a profile row has never marked themselves away.
    profile = getattr(seat.user, "profile", None) if seat.user is not None else None
    return profile.away_until if profile is not None else None


def move_deadline(game: Game, seats: list[Seat], to_act: list[int], now: datetime) -> datetime:
    """When the seats now to act run out of time, stretched for players who marked themselves away."""
    deadline = now + game.move_time
    away = max(
        (until for seat in seats if seat.position in to_act and (until := _away_until(seat)) is not None),
        default=None,
    )
    if away is not None and away > now:
        deadline = away + game.move_time
    return deadline


def settle(game: Game, state: Any, seats: list[Seat] | None = None) -> None:
    """Bring the read columns up to date with ``state``, snapshot, apply forced passes,
    and queue the side effects of the new position. Caller holds the game lock; ``seats``
    are the game's seats from ``game_seats`` if the caller has them already."""
    rules = rules_for(game)
    seats = game_seats(game) if seats is None else seats
    while True:
        now = timezone.now()
        result = rules.result(state)
        to_act = rules.to_act(state)
        # Simultaneous choices: when the seats to act only shrank (someone else chose), the
        # others' turns go on, with the deadline and reminder they got when they began.
        still_waiting = set(to_act) < set(game.to_act) and (game.deadline is None or game.deadline > now)
        game.to_act = to_act
        if result is not None:
            game.status = Game.Status.FINISHED
            game.result = result
            game.finished_at = now
            game.deadline = None
            game.reminder_at = None
        elif not still_waiting:
            game.deadline = move_deadline(game, seats, to_act, now)
            reminder = game.deadline - game.reminder_before
            game.reminder_at = reminder if game.reminder_before and reminder > now else None
        # Every SNAPSHOT_EVERY events and at the end (replaying fewer events than that costs
        # well under a millisecond). Not on every change of the seats to act: in a game where
        # turns pass around the table that is every event, a second large insert per move.
        if game.seq % settings.SNAPSHOT_EVERY == 0 or result is not None:
            write_snapshot(game, state)
        forced = next(((s, a) for s in to_act if (a := rules.forced_action(state, s)) is not None), None)
        if result is not None or forced is None:
            break
        # P-TURN-1: a seat whose only legal action is to pass passes at once, as the system.
        _event, state = record(
            game, state, forced[0], dict(forced[1]), kind=Event.Kind.AUTO_PASS, actor="system:pass"
        )
    hooks = rows.settle_position(game, READ_COLUMNS, side_effects.WEBHOOK_KIND)
    for seat in seats:
        seat.must_act = seat.position in game.to_act
    side_effects.after_append(game, seats, hooks)


def _check_submission(action: object, expected_seq: object, idempotency_key: object) -> None:
    if not isinstance(action, dict):
        raise InvalidInput('`action` must be a JSON object, such as {"type": "pass"}.')
    if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
        raise InvalidInput("`expected_seq` must be a whole number: the seq of the last event you saw.")
    if not isinstance(idempotency_key, str) or len(idempotency_key) > MAX_IDEMPOTENCY_KEY:
        raise InvalidInput(f"`idempotency_key` must be a string of at most {MAX_IDEMPOTENCY_KEY} characters.")


def action_submit(
    *,
    game_id: int,
    user: User,
    action: object,
    expected_seq: object,
    idempotency_key: object = "",
) -> Submitted:
    """A person's move. The seat is the user's own seat in the game: it is never taken from input."""
    _check_submission(action, expected_seq, idempotency_key)
    assert isinstance(action, dict) and isinstance(expected_seq, int) and isinstance(idempotency_key, str)
    actor = f"user:{user.pk}"
    try:
        return _submit(game_id, user, action, expected_seq, idempotency_key, actor)
    except KeyAlreadyUsed:
        answer = _answer_for_used_key(game_id, idempotency_key, actor)
        assert answer is not None  # the unique constraint just named that key
        return answer
    except (Conflict, IllegalMove):
        # A retry of a move that went through is refused as stale (or not your turn, or the
        # game over) by then: with a key we know, answer with the first result instead.
        # The happy path never looks the key up; the unique constraint checks it in the insert.
        if idempotency_key:
            answer = _answer_for_used_key(game_id, idempotency_key, actor)
            if answer is not None:
                return answer
        raise


def _answer_for_used_key(game_id: int, idempotency_key: str, actor: str) -> Submitted | None:
    """The first result of this player's move that ``idempotency_key`` names, if any. Keys are
    per player (unique on game, actor and key), so nobody can take another player's key.
    Only called for a user who has a seat (``_submit`` checked)."""
    with transaction.atomic():
        game = lock_game(game_id)
        prior = Event.objects.filter(game=game, actor=actor, idempotency_key=idempotency_key).first()
        if prior is None:
            return None
        return Submitted(prior, game, False, game_seats(game))


def _submit(
    game_id: int, user: User, action: dict[str, Any], expected_seq: int, idempotency_key: str, actor: str
) -> Submitted:
    with transaction.atomic():
        # The seat first: someone without one learns nothing, not even which keys were used.
        game, seats, seat = lock_own_seat(game_id, user)
        if game.status != Game.Status.ACTIVE:
            raise Conflict(f"The game is not running (it is {game.get_status_display().lower()}).")
        if seat.replaced_by_bot:
            raise Forbidden("A bot plays your seat for the rest of this game after repeated timeouts.")
        # Another seat's decision in the same simultaneous step does not make this one stale
        # (games/services/simultaneous.py); only a seq behind the latest pays for that check.
        if expected_seq == game.seq:
            state = load_state(game)
        elif (state := decision_state(game, seat.position, expected_seq)) is None:
            raise StaleSeq(
                f"The game has moved on: the latest event is {game.seq}, you sent {expected_seq}. "
                "Reload to see what happened and try again.",
                current_seq=game.seq,
            )
        if seat.position not in rules_for(game).to_act(state):
            raise IllegalMove("It is not your turn.")
        event, state = record(
            game,
            state,
            seat.position,
            action,
            kind=Event.Kind.ACTION,
            actor=actor,
            idempotency_key=idempotency_key,
        )
        if seat.consecutive_timeouts:
            Seat.objects.filter(pk=seat.pk).update(consecutive_timeouts=0)
            seat.consecutive_timeouts = 0
        settle(game, state, seats)
    return Submitted(event, game, True, seats)


def bot_play(*, game_id: int, expected_seq: int) -> list[Event]:
    """Moves for every bot seat that must act, if the game is still at ``expected_seq``.

    The bots think with no transaction open and no lock held: the strong bot searches for up
    to ``BOT_THINK_SECONDS``, and every move, page and sweep of the game would wait that long
    behind a held lock. Each bot decides on the position at ``expected_seq``, also when several
    act at once (Libertalia's secret picks: each pick is the bot's own, and ``determinize``
    hides the others' from it). Then a short transaction locks the game and records the
    choices only if the game is still at ``expected_seq``; if it moved on meanwhile, nothing
    is recorded (the new position queued its own bot move).

    Safe to run twice: a second run finds the game moved on (or no bot to act) and does nothing.
    """
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        return []
    game = rows.game_row(game_id)
    if game is None or game.status != Game.Status.ACTIVE or game.seq != expected_seq:
        return []
    bots = _bots_to_act(game, game_seats(game))
    if not bots:
        return []
    rules = rules_for(game)
    state = load_state(game, expected_seq)
    chosen = {
        position: (kind, _bot_choice(game, rules, state, position, kind))
        for position, kind in sorted(bots.items())
        if position in rules.to_act(state)
    }
    if not chosen:
        return []
    with transaction.atomic():
        try:
            game = lock_game(game_id)
        except NotFound:
            return []
        if game.status != Game.Status.ACTIVE or game.seq != expected_seq:
            return []  # moved on while the bots thought: their choices answer an old position
        seats = game_seats(game)
        state = load_state(game)
        events: list[Event] = []
        for position, (kind, action) in chosen.items():
            # A bot that chose beside another may find its choice overtaken by the other's
            # (a challenge closes classic Pirates' window for the rest, C-MUT-2): it chooses
            # again in the position that follows, queued by ``settle``.
            if position not in rules.to_act(state) or action not in rules.legal_actions(state, position):
                continue
            event, state = record(game, state, position, action, kind=Event.Kind.BOT, actor=f"bot:{kind}")
            events.append(event)
        if events:
            settle(game, state, seats)
    return events


def bot_levels(rules: engine.base.Rules[Any]) -> tuple[str, ...]:
    """The bot levels that can play ``rules``, strongest first. The strong bot plans on
    states drawn by ``Rules.determinize``, so a rule set that does not provide it (the
    contract's default refuses) is played by the greedy and random bots only."""
    searchable = type(rules).determinize is not engine.base.Rules.determinize
    return tuple(level for level in BOT_LEVELS if searchable or level != Seat.BotKind.STRONG)


def _bots_to_act(game: Game, seats: list[Seat]) -> dict[int, str]:
    """The level of the bot playing each seat that is to act now, for the seats bots play. A
    seat handed to a bot before levels were recorded played (and goes on playing) the greedy bot."""
    return {
        seat.position: (seat.bot or Seat.BotKind.GREEDY)
        for seat in seats
        if seat.position in game.to_act and seat.plays_as_bot
    }


def _bot_choice(game: Game, rules: engine.base.Rules[Any], state: Any, position: int, kind: str) -> Action:
    """What the bot ``kind`` plays for ``position``. Its generator is seeded by the game, the
    position's seq and the seat, so the same position gives the same choice (the strong bot's
    for the same number of iterations). Its time cap reads the worker's CPU time, not the
    wall clock, so other work on a busy machine does not cut its search shorter."""
    rng = random.Random(f"{game.seed}:{game.seq}:{position}")
    budget = Budget(think_seconds=settings.BOT_THINK_SECONDS)
    return choose_action(rules, state, position, kind, rng, budget=budget, clock=time.process_time)
