"""Creating games, taking and leaving seats, filling seats with bots, starting and aborting.

Locking contract as in ``games.services.play``: changes to one game hold its row lock.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import unicodedata
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

import engine
from games import safejson, side_effects
from games.models import Event, Game, Seat
from games.read.options import fixed_deal_options
from games.read.state import cache_put
from games.services import seating
from games.services.append import append_event
from games.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from games.services.play import BOT_LEVELS, bot_levels, lock_game, settle

MIN_MOVE_TIME = timedelta(hours=1)
MAX_MOVE_TIME = timedelta(days=14)
DEFAULT_MOVE_TIME = timedelta(hours=48)
# The bot levels a game may seat, strongest first; the forms and the API ask for the strong
# bot unless told otherwise. A service call that names none gets the strongest its rule set has.
BOT_KINDS = BOT_LEVELS
DEFAULT_BOT_KIND = Seat.BotKind.STRONG
# Options go into the game row, the first event and every GET of the game: a custom card set
# is a few kilobytes, so this leaves room while no game can weigh megabytes.
MAX_OPTIONS_BYTES = 16 * 1024
MAX_TITLE = 100


def _rules(rules_id: object) -> engine.base.Rules[Any]:
    if not isinstance(rules_id, str):
        raise InvalidInput('`rules` must be the id of a rule set, such as "pirates".')
    try:
        return engine.get_rules(rules_id)
    except engine.UnknownRules as exc:
        raise InvalidInput(str(exc)) from None


def _checked_options(options: object) -> dict[str, Any]:
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise InvalidInput("`options` must be a JSON object.")
    try:
        size = len(json.dumps(options, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        raise InvalidInput("`options` must be plain JSON.") from None
    if size > MAX_OPTIONS_BYTES:
        raise InvalidInput(
            f"`options` may be at most {MAX_OPTIONS_BYTES // 1024} KB of JSON, not {size} bytes."
        )
    problem = safejson.unstorable(options)
    if problem is not None:
        raise InvalidInput(f"Invalid options: {problem}")
    return options


def _checked_title(title: object) -> str:
    if title is None:
        return ""
    if not isinstance(title, str):
        raise InvalidInput("The game's name must be text.")
    # Any run of spaces, tabs or line breaks is one space: a name is one line (it goes into
    # email subjects, where a line break is refused). Other control characters are refused.
    title = " ".join(title.split())
    if len(title) > MAX_TITLE:
        raise InvalidInput(f"The game's name must be at most {MAX_TITLE} characters.")
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in title):
        raise InvalidInput("The game's name may not contain control characters.")
    return title


def _default_reminder(move_time: timedelta) -> timedelta:
    # Remind a quarter of the way before the deadline, but never more than a day ahead.
    return min(move_time / 4, timedelta(hours=24))


def game_create(
    *,
    creator: User,
    rules_id: object,
    players: object,
    options: object = None,
    title: object = "",
    move_time: timedelta | None = None,
    timeout_policy: str = Game.TimeoutPolicy.BOT,
    is_public: bool = True,
    bot_seats: int = 0,
    bot_kind: str | None = None,
    auto_start: bool = False,
) -> Game:
    """A new game in the lobby with the creator in the first seat (and ``bot_seats`` bots);
    ``auto_start`` starts it as soon as the last seat is taken."""
    rules = _rules(rules_id)
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not (rules.min_players <= players <= rules.max_players)
    ):
        raise InvalidInput(f"{rules.title} takes {rules.min_players} to {rules.max_players} players.")
    options = _checked_options(options)
    fixed = fixed_deal_options(rules, options)
    if fixed and is_public:
        raise InvalidInput(
            f"A fixed deal ({', '.join(fixed)}) is allowed in private games only: everyone who "
            "joins a public game expects a random shuffle. Make the game private or leave them out."
        )
    try:
        # The engine is the judge of options: a trial deal with a throwaway seed checks them.
        rules.new_game(players=players, seed="options-check", options=options)
    except engine.InvalidOptions as exc:
        raise InvalidInput(f"Invalid options: {exc}") from None
    move_time = DEFAULT_MOVE_TIME if move_time is None else move_time
    if not (MIN_MOVE_TIME <= move_time <= MAX_MOVE_TIME):
        raise InvalidInput("The time per move must be between 1 hour and 14 days.")
    if timeout_policy not in Game.TimeoutPolicy.values:
        raise InvalidInput(
            f"Unknown timeout policy {timeout_policy!r}; "
            f"choose one of {', '.join(Game.TimeoutPolicy.values)}."
        )
    if isinstance(bot_seats, bool) or not isinstance(bot_seats, int) or not (0 <= bot_seats < players):
        raise InvalidInput(f"Bot seats must be between 0 and {players - 1}: the creator takes one seat.")
    bot_kind = _checked_bot_kind(bot_kind, rules)
    title = _checked_title(title)
    with transaction.atomic():
        game = Game.objects.create(
            rules_id=rules.id,
            rules_version=rules.version,
            title=title,
            players=players,
            options=options,
            fixed_deal=bool(fixed),
            is_public=bool(is_public),
            created_by=creator,
            move_time=move_time,
            reminder_before=_default_reminder(move_time),
            timeout_policy=timeout_policy,
            auto_start=bool(auto_start),
        )
        Seat.objects.create(game=game, position=0, user=creator)
        for position in range(players - bot_seats, players):
            Seat.objects.create(game=game, position=position, bot=bot_kind)
    return game


def _free_positions(game: Game) -> list[int]:
    taken = set(Seat.objects.filter(game=game).values_list("position", flat=True))
    return [p for p in range(game.players) if p not in taken]


def _require_lobby(game: Game) -> None:
    if game.status != Game.Status.LOBBY:
        raise Conflict(f"The game has already {'started' if game.status == Game.Status.ACTIVE else 'ended'}.")


def lock_visible_game(game_id: object, user: User) -> Game:
    """``lock_game`` for a change ``user`` asks for: a private game that ``user`` neither
    created nor sits in does not exist for them, exactly as a missing id (the same NotFound)."""
    game = lock_game(game_id)
    if (
        not game.is_public
        and game.created_by_id != user.pk
        and not Seat.objects.filter(game=game, user=user).exists()
    ):
        raise NotFound(f"No game with id {game_id}.")
    return game


def take_free_seat(game: Game, user: User) -> Seat:
    """Seat ``user`` in the first free seat. Caller holds the game lock and has decided that
    ``user`` may join: ``seat_join`` for a game they can see, an invitation for a private one."""
    _require_lobby(game)
    if Seat.objects.filter(game=game, user=user).exists():
        raise Conflict("You already have a seat in this game.")
    free = _free_positions(game)
    if not free:
        raise Conflict("Every seat of this game is taken.")
    seat = Seat.objects.create(game=game, position=free[0], user=user)
    if len(free) == 1:
        side_effects.after_seats_filled(game, seat)
        if game.auto_start:
            # The last seat taken starts the game at once, in the same transaction.
            game_start(game_id=game.pk, by=game.created_by)
            seat.refresh_from_db()
    return seat


def seat_join(*, game_id: int, user: User) -> Seat:
    """Take a free seat of a game in the lobby. A private game is joined only through its
    invitation (``invitation_accept``); to anyone else this answers as for a missing game."""
    with transaction.atomic():
        return take_free_seat(lock_visible_game(game_id, user), user)


def seat_leave(*, game_id: int, user: User) -> None:
    with transaction.atomic():
        game = lock_visible_game(game_id, user)
        _require_lobby(game)
        if game.created_by_id == user.pk:
            raise InvalidInput("You created this game: abort it instead of leaving.")
        deleted, _ = Seat.objects.filter(game=game, user=user).delete()
        if not deleted:
            raise Conflict("You have no seat in this game.")


def _checked_bot_kind(kind: object, rules: engine.base.Rules[Any]) -> str:
    """``kind`` if it names a bot level that can play ``rules``; None: the strongest that can."""
    levels = bot_levels(rules)
    if kind is None:
        return levels[0]
    _require_known_bot(kind)
    if kind not in levels:
        raise InvalidInput(
            f"{rules.title} has no {kind} bot (it cannot search its games); "
            f"choose {', '.join(levels[:-1])} or {levels[-1]}."
        )
    return str(kind)


def _require_known_bot(kind: object) -> None:
    if kind not in BOT_KINDS:
        raise InvalidInput(f"Unknown bot {kind!r}; choose {', '.join(BOT_KINDS[:-1])} or {BOT_KINDS[-1]}.")


def seats_fill_with_bots(*, game_id: int, by: User, kind: str | None = None) -> int:
    """Seat a bot of level ``kind`` (None: the strongest the rule set has) in every free seat."""
    if kind is not None:
        _require_known_bot(kind)
    with transaction.atomic():
        game = lock_visible_game(game_id, by)
        _require_creator(game, by)
        _require_lobby(game)
        kind = _checked_bot_kind(kind, engine.get_rules(game.rules_id, game.rules_version))
        free = _free_positions(game)
        for position in free:
            Seat.objects.create(game=game, position=position, bot=kind)
        if free and game.auto_start:
            game_start(game_id=game.pk, by=by)
        return len(free)


def _require_creator(game: Game, user: User) -> None:
    if game.created_by_id != user.pk:
        raise Forbidden("Only the player who created the game can do that.")


def _seat_order(game: Game, seed: str, first: int | None = None) -> list[Seat]:
    """Seats in playing order: drawn from the seed, unless the deal was fixed at creation. A
    rematch keeps the old game's order, turned so that someone else starts (``first``: the
    engine's seat to start, ``games.services.seating.rotated_order``)."""
    seats = list(Seat.objects.filter(game=game).order_by("position"))
    if not game.fixed_deal:
        rotated = seating.rotated_order(game, seats, first)
        if rotated is not None:
            return rotated
        random.Random(f"{seed}:seating").shuffle(seats)
    return seats


def game_start(*, game_id: int, by: User) -> Game:
    with transaction.atomic():
        game = lock_visible_game(game_id, by)
        _require_creator(game, by)
        _require_lobby(game)
        seated = Seat.objects.filter(game=game).count()
        if seated < game.players:
            missing = game.players - seated
            raise Conflict(
                f"Waiting for {missing} more player{'s' if missing != 1 else ''}: "
                "invite friends or fill the empty seats with bots."
            )
        rules = _rules(game.rules_id)
        seed = secrets.token_hex(16)
        state = rules.new_game(players=game.players, seed=seed, options=game.options)
        starters = rules.to_act(state)
        ordered = _seat_order(game, seed, starters[0] if len(starters) == 1 else None)
        # A rule set that draws its colours says so in its view (engine.base.Rules.colours).
        drawn = rules.view(state, None).get("colours")
        colours = list(drawn) if isinstance(drawn, list) and len(drawn) == game.players else (
            rules.seat_colours(game.players)
        )
        # Two steps so the unique (game, position) holds at every moment.
        for seat in ordered:
            Seat.objects.filter(pk=seat.pk).update(position=seat.position + 100)
        for position, seat in enumerate(ordered):
            Seat.objects.filter(pk=seat.pk).update(position=position, colour=colours[position])
        seats_payload = [
            {
                "seat": position,
                "user": seat.user.get_username() if seat.user else None,
                "bot": seat.bot or None,
            }
            for position, seat in enumerate(ordered)
        ]
        game.seed = seed
        game.seed_sha256 = hashlib.sha256(seed.encode()).hexdigest()
        game.status = Game.Status.ACTIVE
        game.started_at = timezone.now()
        append_event(
            game,
            kind=Event.Kind.GAME_STARTED,
            seat=None,
            payload={
                "rules": rules.id,
                "version": rules.version,
                "players": game.players,
                "seed": seed,
                "options": game.options,
                "seats": seats_payload,
            },
            actor=f"user:{by.pk}",
        )
        cache_put(game, 1, state)
        game.save(update_fields=["seed", "seed_sha256", "status", "started_at", "seq", "head", "updated_at"])
        settle(game, state)
    return game


def game_abort(*, game_id: int, by: User) -> Game:
    with transaction.atomic():
        game = lock_visible_game(game_id, by)
        _require_creator(game, by)
        if game.is_over:
            raise Conflict("The game has already ended.")
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
        game.to_act = []
        game.deadline = None
        game.reminder_at = None
        game.save()
        Seat.objects.filter(game=game).update(must_act=False)
    return game
