"""Shared helpers of the web tests: users, a started game and a fixed deal."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from games import services
from games.models import Game

PASSWORD = "sea-shanty-42"


def make_user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.test", PASSWORD)


def logged_in(user: User) -> Client:
    """A test client logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def started_game(players: list[User], **options: Any) -> Game:
    """A running game with ``players`` seated in this order (a fixed deal keeps seats in place,
    and only a private game may fix its deal)."""
    game = services.game_create(
        creator=players[0],
        rules_id="pirates",
        players=len(players),
        options={"first_seat": 0, **options},
        is_public=False,
    )
    # A private game is joined through its invitations (it does not exist for anyone else).
    for user in players[1:]:
        (invitation,) = services.invitation_create(game_id=game.pk, by=players[0], emails=[user.email])
        services.invitation_accept(token=invitation.token, user=user)
    return services.game_start(game_id=game.pk, by=players[0])
