"""Shared helpers of the web tests: users, a started game and a fixed deal."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games import services
from games.models import Game

PASSWORD = "sea-shanty-42"


def make_user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.test", PASSWORD)


def started_game(players: list[User], **options: Any) -> Game:
    """A running game with ``players`` seated in this order (a fixed deal keeps seats in place)."""
    game = services.game_create(
        creator=players[0], rules_id="pirates", players=len(players), options={"first_seat": 0, **options}
    )
    for user in players[1:]:
        services.seat_join(game_id=game.pk, user=user)
    return services.game_start(game_id=game.pk, by=players[0])
