"""Resigning from a running game: the player leaves, a bot plays their seat
for the rest of the game (as after repeated timeouts), and the log says so."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from games.models import Event, Game, Seat, person_name
from games.read.state import cache_put, load_state, rules_for
from games.services.append import append_event
from games.services.errors import Conflict
from games.services.play import bot_levels, lock_own_seat, settle


def seat_resign(*, game_id: int, user: User) -> Event:
    """Hand ``user``'s seat in the running game ``game_id`` to a bot, for good."""
    with transaction.atomic():
        game, seats, seat = lock_own_seat(game_id, user)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("Only a running game can be left this way; before the start, leave the lobby.")
        if seat.replaced_by_bot:
            raise Conflict("A bot plays your seat already.")
        # The strongest bot the rule set has takes the seat (the strong one in every rule set
        # the site offers): the others at the table keep a real opponent.
        seat.bot = bot_levels(rules_for(game))[0]
        seat.replaced_by_bot = True
        Seat.objects.filter(pk=seat.pk).update(replaced_by_bot=True, bot=seat.bot)
        state = load_state(game)
        event = append_event(
            game,
            kind=Event.Kind.SEAT_TO_BOT,
            seat=seat.position,
            payload={"text": f"{person_name(user)} left the game: a bot plays their seat now.",
                     "seat": seat.position, "reason": "resigned"},
            actor=f"user:{user.pk}",
        )
        # No action: the state after this event is the state before it.
        cache_put(game, game.seq, state)
        # Queues the bot's move if the seat is to act now.
        settle(game, state, seats)
    return event
