"""Deadlines: reminders before them, the timeout policy after them, and time away.

Locking contract as in ``games.services.play``: every change to a game holds its row lock
(``lock_game``) until commit, and checks the seq it was given, so the sweep can run twice (or
on two beat schedulers at once) and a game is timed out once per deadline.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from engine.bots import choose_action
from games import outbox, side_effects
from games.models import Event, Game, PlayerProfile, Seat, person_name
from games.read.state import cache_put, load_state, rules_for
from games.services.append import append_event
from games.services.errors import InvalidInput, NotFound
from games.services.play import PASS, bot_levels, lock_game, record, settle

log = logging.getLogger(__name__)

MAX_AWAY = timedelta(days=14)
TIMEOUT_ACTOR = "system:timeout"
# The most actions a timeout plays for one late seat's turn.
MAX_TIMEOUT_MOVES = 50


# ---------------------------------------------------------------------------------------------
# What the sweep looks at: both queries are range scans of a partial index on running games.


def due_deadlines(now: datetime, limit: int | None = None) -> QuerySet[Game]:
    """Running games whose deadline has passed, oldest first (index ``game_deadline_due``)."""
    limit = settings.SWEEP_BATCH_SIZE if limit is None else limit
    return Game.objects.filter(status=Game.Status.ACTIVE, deadline__lte=now).order_by("deadline")[:limit]


def due_reminders(now: datetime, limit: int | None = None) -> QuerySet[Game]:
    """Running games whose reminder time has passed, oldest first (index ``game_reminder_due``)."""
    limit = settings.SWEEP_BATCH_SIZE if limit is None else limit
    due = Game.objects.filter(status=Game.Status.ACTIVE, reminder_at__lte=now)
    return due.order_by("reminder_at")[:limit]


@dataclass(frozen=True)
class SweepResult:
    timeouts: int
    reminders: int
    repaired: int = 0


def sweep_due(now: datetime | None = None) -> SweepResult:
    """One pass of the sweep: expired deadlines first (a timeout makes a pending reminder moot),
    then reminders, then the repair of missing side effects (``games.outbox.repair``) and the
    removal of old done outbox rows. Each game is handled in its own transaction; one broken
    game is logged and does not stop the others."""
    now = timezone.now() if now is None else now
    timeouts = reminders = 0
    for game_id, seq in due_deadlines(now).values_list("pk", "seq"):
        try:
            timeouts += bool(timeout_apply(game_id=game_id, expected_seq=seq, now=now))
        except Exception:
            log.exception("timeout of game %s at seq %s failed", game_id, seq)
    for game_id, seq in due_reminders(now).values_list("pk", "seq"):
        try:
            reminders += reminder_send(game_id=game_id, expected_seq=seq, now=now)
        except Exception:
            log.exception("reminder for game %s at seq %s failed", game_id, seq)
    repaired = outbox.repair(now)
    outbox.prune(now)
    if timeouts or reminders:
        log.info("sweep: %s timeouts, %s reminders", timeouts, reminders)
    return SweepResult(timeouts=timeouts, reminders=reminders, repaired=repaired.bot_moves + repaired.turns)


# ---------------------------------------------------------------------------------------------
# Reminders


def reminder_send(*, game_id: int, expected_seq: int, now: datetime | None = None) -> bool:
    """Queue the reminder emails for the turn at ``expected_seq`` and clear ``reminder_at``.

    Does nothing if the game moved on or the reminder is not due (or was already sent).
    """
    now = timezone.now() if now is None else now
    with transaction.atomic():
        try:
            game = lock_game(game_id)
        except NotFound:
            return False
        if (
            game.status != Game.Status.ACTIVE
            or game.seq != expected_seq
            or game.reminder_at is None
            or game.reminder_at > now
        ):
            return False
        game.reminder_at = None
        game.save(update_fields=["reminder_at", "updated_at"])
        side_effects.after_reminder(game)
    return True


# ---------------------------------------------------------------------------------------------
# Timeouts


def _bot_action(rules: Any, state: Any, seat: int, rng: random.Random) -> dict[str, Any]:
    """A move the timeout policy plays for a late person (their missed turn): the greedy bot's, not the
    strong bot's. The sweep plays it while holding the game's lock (and sweeps many games in
    one run), so it must be cheap; the person is still at the table and plays their next turn
    themselves. A seat handed to a bot for good gets the strong bot (``_hand_to_bot``)."""
    try:
        return choose_action(rules, state, seat, Seat.BotKind.GREEDY, rng)
    except ValueError:
        # Rule sets without a greedy evaluation: the random bot is always there.
        return choose_action(rules, state, seat, Seat.BotKind.RANDOM, rng)


def timeout_action(game: Game, rules: Any, state: Any, seat: int) -> dict[str, Any]:
    """What the game's timeout policy plays for a late ``seat``, unless the rules say what a
    late seat does (``Rules.timeout_action``)."""
    ruled = rules.timeout_action(state, seat)
    if ruled is not None:
        return dict(ruled)
    rng = random.Random(f"{game.seed}:{game.seq}:{seat}:timeout")
    if game.timeout_policy == Game.TimeoutPolicy.PASS and PASS in rules.legal_actions(state, seat):
        return dict(PASS)
    return _bot_action(rules, state, seat, rng)


def timeout_apply(*, game_id: int, expected_seq: int, now: datetime | None = None) -> list[Event]:
    """Apply ``game_id``'s timeout policy to the seats whose deadline has passed.

    Policy ``bot``: a greedy bot moves for each late person, to the end of their turn when it
    has several actions (one ``timeout`` event, then ``bot`` events by the same actor);
    ``pass``: they pass where passing is legal, otherwise the bot moves; ``none``: nothing is
    played and the turn simply has no deadline any more (the reminder went out before). When
    several seats choose at once, each late one is played for once; a decision that only
    those moves brought about is a new turn, with its own email and deadline. Each late
    seat's consecutive-timeout count goes up once per turn; at ``TIMEOUTS_BEFORE_BOT`` the
    seat is handed to a bot for good (a ``seat_to_bot`` event). Bot seats that are late
    (their task was lost) are queued again.

    Returns the events appended. Safe to run twice: the second run finds the seq moved on or
    the deadline in the future and does nothing.
    """
    now = timezone.now() if now is None else now
    with transaction.atomic():
        try:
            game = lock_game(game_id)
        except NotFound:
            return []
        if (
            game.status != Game.Status.ACTIVE
            or game.seq != expected_seq
            or game.deadline is None
            or game.deadline > now
        ):
            return []
        if game.timeout_policy == Game.TimeoutPolicy.NONE:
            game.deadline = None
            game.reminder_at = None
            game.save(update_fields=["deadline", "reminder_at", "updated_at"])
            return []
        rules = rules_for(game)
        state = load_state(game)
        late = list(
            Seat.objects.filter(
                game=game, position__in=rules.to_act(state), user__isnull=False, replaced_by_bot=False
            ).order_by("position")
        )
        events: list[Event] = []
        due = set(rules.to_act(state))
        for seat in late:
            to_act = set(rules.to_act(state))
            if not to_act <= due:
                # The moves made so far began a new turn (a Sunrise reveal led to a Day
                # decision): its seats get their own deadline; nobody is timed out twice.
                break
            if seat.position not in to_act:
                continue  # an earlier late seat's move ended this seat's turn
            action = timeout_action(game, rules, state, seat.position)
            event, state = record(
                game, state, seat.position, action, kind=Event.Kind.TIMEOUT, actor=TIMEOUT_ACTOR
            )
            events.append(event)
            # A turn of several actions in a row (the seat alone to act after each) is played to
            # its end as one timeout: the seat counts one timeout for the turn it missed, and
            # the table does not wait a whole deadline per action. The rest are bot moves for it.
            # Not in a rule set of simultaneous choices: there a seat alone to act after its
            # move faces a new question (Libertalia's Dusk pick after the Sunrise reveal).
            for _ in range(0 if rules.simultaneous else MAX_TIMEOUT_MOVES):
                if rules.to_act(state) != [seat.position]:
                    break
                action = timeout_action(game, rules, state, seat.position)
                event, state = record(
                    game, state, seat.position, action, kind=Event.Kind.BOT, actor=TIMEOUT_ACTOR
                )
                events.append(event)
            Seat.objects.filter(pk=seat.pk).update(consecutive_timeouts=F("consecutive_timeouts") + 1)
            seat.refresh_from_db(fields=["consecutive_timeouts"])
            if seat.consecutive_timeouts >= settings.TIMEOUTS_BEFORE_BOT:
                events.append(_hand_to_bot(game, state, seat))
        side_effects.after_timeouts(game, events)
        settle(game, state)
    return events


def _hand_to_bot(game: Game, state: Any, seat: Seat) -> Event:
    """Caller holds the game lock. The seat's later turns are played by ``bot_play``."""
    # The strongest bot the rule set has takes the seat, as when a player resigns
    # (games.services.resign).
    seat.bot = bot_levels(rules_for(game))[0]
    seat.replaced_by_bot = True
    Seat.objects.filter(pk=seat.pk).update(replaced_by_bot=True, bot=seat.bot)
    name = person_name(seat.user) if seat.user is not None else f"Seat {seat.position}"
    count = seat.consecutive_timeouts
    event = append_event(
        game,
        kind=Event.Kind.SEAT_TO_BOT,
        seat=seat.position,
        payload={"text": f"{name} ran out of time {count} times in a row: a bot plays their seat now.",
                 "seat": seat.position},
        actor=TIMEOUT_ACTOR,
    )
    # No action: the state after this event is the state before it.
    cache_put(game, game.seq, state)
    return event


# ---------------------------------------------------------------------------------------------
# Time away


def profile_set_away(
    *, user: User, until: datetime | None, now: datetime | None = None
) -> PlayerProfile:
    """Mark ``user`` away until ``until`` (at most 14 days ahead), or back with ``None``.

    Deadlines set from now on stretch to ``until`` + the game's time per move
    (``play.move_deadline``); deadlines already running are left as they are.
    """
    now = timezone.now() if now is None else now
    if until is not None:
        if timezone.is_naive(until):
            raise InvalidInput("The end of your time away needs a time zone.")
        if until <= now:
            raise InvalidInput("The end of your time away must be in the future.")
        if until - now > MAX_AWAY:
            raise InvalidInput("You can be away for at most 14 days.")
    profile, _ = PlayerProfile.objects.get_or_create(user_id=user.pk)
    profile.away_until = until
    profile.save(update_fields=["away_until"])
    return profile
