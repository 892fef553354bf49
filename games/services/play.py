"""Appending to a game's log: submitted actions, forced passes and bot moves.

Locking contract: every function here that appends runs inside ``transaction.atomic`` and
holds ``SELECT … FOR UPDATE`` on the game row from before it reads ``game.seq`` until commit,
so appends to one game are serialised and ``seq`` has no gaps. Side effects (emails, bot
moves) are queued with ``transaction.on_commit`` and so never see an uncommitted event.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Case, Q, When
from django.utils import timezone

import engine
from engine.bots import choose_action
from games import side_effects
from games.models import Event, Game, Seat
from games.services.errors import Conflict, Forbidden, IllegalMove, InvalidInput, NotFound, StaleSeq
from games.services.state import cache_put, load_state, rules_for, write_snapshot

PASS = {"type": "pass"}
MAX_IDEMPOTENCY_KEY = 100


@dataclass(frozen=True)
class Submitted:
    event: Event
    game: Game
    created: bool


def lock_game(game_id: object) -> Game:
    """Caller must be inside ``transaction.atomic``."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise NotFound("No such game.")
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise NotFound(f"No game with id {game_id}.") from None


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
        new_state = rules.apply(state, seat, action)
    except engine.IllegalAction as exc:
        raise IllegalMove(str(exc)) from None
    text = rules.describe(state, seat, action)
    try:
        with transaction.atomic():
            event = Event.objects.create(
                game=game,
                seq=game.seq + 1,
                kind=kind,
                seat=seat,
                payload={"action": action, "text": text},
                actor=actor,
                idempotency_key=idempotency_key,
            )
    except IntegrityError:
        # Only possible if someone appended without the lock; the unique (game, seq) wins.
        raise StaleSeq("The game has moved on; reload and try again.", current_seq=game.seq) from None
    game.seq = event.seq
    cache_put(game, game.seq, new_state)
    return event, new_state


def move_deadline(game: Game, to_act: list[int], now: datetime) -> datetime:
    """When the seats now to act run out of time, stretched for players who marked themselves away."""
    deadline = now + game.move_time
    away = side_effects.away_until_for(game, to_act)
    if away is not None and away > now:
        deadline = away + game.move_time
    return deadline


def settle(game: Game, state: Any, *, previous_to_act: list[int] | None = None) -> None:
    """Bring the read columns up to date with ``state``, snapshot, apply forced passes,
    and queue the side effects of the new position. Caller holds the game lock."""
    rules = rules_for(game)
    while True:
        now = timezone.now()
        result = rules.result(state)
        to_act = rules.to_act(state)
        changed = to_act != (game.to_act if previous_to_act is None else previous_to_act)
        game.to_act = to_act
        if result is not None:
            game.status = Game.Status.FINISHED
            game.result = result
            game.finished_at = now
            game.deadline = None
            game.reminder_at = None
        else:
            game.deadline = move_deadline(game, to_act, now)
            reminder = game.deadline - game.reminder_before
            game.reminder_at = reminder if game.reminder_before and reminder > now else None
        if changed or game.seq % settings.SNAPSHOT_EVERY == 0 or result is not None:
            write_snapshot(game, state)
        previous_to_act = to_act
        forced = [seat for seat in to_act if rules.legal_actions(state, seat) == [PASS]]
        if result is not None or not forced:
            break
        # P-TURN-1: a seat whose only legal action is to pass passes at once, as the system.
        _event, state = record(
            game, state, forced[0], dict(PASS), kind=Event.Kind.AUTO_PASS, actor="system:pass"
        )
    game.save()
    Seat.objects.filter(game=game).update(
        must_act=Case(When(Q(position__in=game.to_act), then=True), default=False)
    )
    bot_seats = list(
        Seat.objects.filter(game=game, position__in=game.to_act)
        .filter(Q(user__isnull=True) | Q(replaced_by_bot=True))
        .values_list("position", flat=True)
    )
    side_effects.after_append(game, bot_seats=bot_seats)


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
    with transaction.atomic():
        game = lock_game(game_id)
        if idempotency_key:
            prior = Event.objects.filter(game=game, idempotency_key=idempotency_key).first()
            if prior is not None:
                if prior.actor != actor:
                    raise Conflict("That idempotency key was already used for another player's move.")
                return Submitted(prior, game, False)
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is None:
            raise Forbidden("You have no seat in this game.")
        if game.status != Game.Status.ACTIVE:
            raise Conflict(f"The game is not running (it is {game.get_status_display().lower()}).")
        if seat.replaced_by_bot:
            raise Forbidden("A bot plays your seat for the rest of this game after repeated timeouts.")
        if expected_seq != game.seq:
            raise StaleSeq(
                f"The game has moved on: the latest event is {game.seq}, you sent {expected_seq}. "
                "Reload to see what happened and try again.",
                current_seq=game.seq,
            )
        state = load_state(game)
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
        settle(game, state)
    return Submitted(event, game, True)


def bot_play(*, game_id: int, expected_seq: int) -> list[Event]:
    """Moves for every bot seat that must act, if the game is still at ``expected_seq``.

    Safe to run twice: a second run finds the game moved on (or no bot to act) and does nothing.
    """
    with transaction.atomic():
        try:
            game = lock_game(game_id)
        except NotFound:
            return []
        if game.status != Game.Status.ACTIVE or game.seq != expected_seq:
            return []
        bots = {
            seat.position: (seat.bot or Seat.BotKind.GREEDY)
            for seat in Seat.objects.filter(game=game, position__in=game.to_act).filter(
                Q(user__isnull=True) | Q(replaced_by_bot=True)
            )
        }
        if not bots:
            return []
        rules = rules_for(game)
        state = load_state(game)
        events: list[Event] = []
        for position, kind in sorted(bots.items()):
            if position not in rules.to_act(state):
                continue
            rng = random.Random(f"{game.seed}:{game.seq}:{position}")
            action = choose_action(rules, state, position, kind, rng)
            event, state = record(game, state, position, action, kind=Event.Kind.BOT, actor=f"bot:{kind}")
            events.append(event)
        settle(game, state)
    return events
