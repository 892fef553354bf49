"""Helpers for the ratings tests: games played to their end, and the rating side effects run."""

from __future__ import annotations

import random

from django.contrib.auth.models import User

from games import outbox, services
from games.models import Game, Outbox, Seat
from tests.services.support import play_one


def new_game(players: list[User], *, bots: int = 0, bot_kind: str = "greedy", public: bool = True,
             rules_id: str = "pirates") -> Game:
    game = services.game_create(
        creator=players[0], rules_id=rules_id, players=len(players) + bots, is_public=public,
        bot_seats=bots, bot_kind=bot_kind,
    )
    for user in players[1:]:
        if public:
            services.seat_join(game_id=game.pk, user=user)
        else:
            (invitation,) = services.invitation_create(game_id=game.pk, by=players[0], emails=[user.email])
            services.invitation_accept(token=invitation.token, user=user)
    services.game_start(game_id=game.pk, by=players[0])
    game.refresh_from_db()
    return game


def finish(game: Game, seed: int = 0, resign: User | None = None) -> Game:
    """Play ``game`` to its end (people at random, bots by their service, as their task would);
    ``resign`` leaves after the first few moves."""
    rng = random.Random(seed)
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        if resign is not None and game.seq >= 4:
            services.seat_resign(game_id=game.pk, user=resign)
            resign = None
            continue
        seat = Seat.objects.get(game=game, position=game.to_act[0])
        if seat.plays_as_bot:
            services.bot_play(game_id=game.pk, expected_seq=game.seq)
        else:
            play_one(game, rng)
    raise AssertionError("the game did not end")


def relay_all() -> None:
    """Run the due rating rows (eager tasks), as the relay would; the emails and bot moves
    owed meanwhile are not the point here (the games were played through by hand)."""
    rating_kinds = [Outbox.Kind.RATINGS, Outbox.Kind.RATINGS_REBUILD]
    Outbox.objects.filter(status="pending").exclude(kind__in=rating_kinds).update(status="done")
    while outbox.relay():
        pass
