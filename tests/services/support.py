"""Helpers for the service and API tests: players, started games, playing moves."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import User

from games import services
from games.models import Game, PlayerProfile, Seat

PASSWORD = "correct horse battery"


def make_user(name: str) -> User:
    return User.objects.create_user(name, f"{name}@example.com", PASSWORD)


def make_users(count: int, prefix: str = "player") -> list[User]:
    return [make_user(f"{prefix}{i}") for i in range(count)]


@contextmanager
def no_turn_emails(users: list[User]) -> Iterator[None]:
    """Meanwhile ``users`` have chosen no turn emails, then their choice is as before: for a
    test that plays many moves to set a scene or to check something else (each move would
    render and send an email, most of such a test's time; tests/notifications is about them)."""
    before = dict(PlayerProfile.objects.filter(user__in=users).values_list("user_id", "notify"))
    for user in users:
        PlayerProfile.objects.update_or_create(user=user, defaults={"notify": PlayerProfile.Notify.NONE})
    try:
        yield
    finally:
        for user in users:
            if user.pk in before:
                PlayerProfile.objects.filter(user=user).update(notify=before[user.pk])
            else:
                PlayerProfile.objects.filter(user=user).delete()


def started_game(
    players: list[User], *, options: dict[str, Any] | None = None, public: bool | None = None, bots: int = 0
) -> Game:
    """A running game of Pirates with ``players`` in its seats (the first created it). Public
    unless told otherwise, or unless ``options`` fix the deal (only private games may)."""
    if public is None:
        public = not options
    game = services.game_create(
        creator=players[0],
        rules_id="pirates",
        players=len(players) + bots,
        options=options,
        is_public=public,
        bot_seats=bots,
    )
    for user in players[1:]:
        if public:
            services.seat_join(game_id=game.pk, user=user)
        else:  # a private game is joined through its invitations
            (invitation,) = services.invitation_create(game_id=game.pk, by=players[0], emails=[user.email])
            services.invitation_accept(token=invitation.token, user=user)
    services.game_start(game_id=game.pk, by=players[0])
    game.refresh_from_db()
    return game


def seat_user(game: Game, position: int) -> User:
    seat = Seat.objects.select_related("user").get(game=game, position=position)
    assert seat.user is not None
    return seat.user


def user_to_act(game: Game) -> User:
    game.refresh_from_db()
    return seat_user(game, game.to_act[0])


def legal_for(game: Game, position: int) -> list[dict[str, Any]]:
    state = services.load_state(game)
    return services.rules_for(game).legal_actions(state, position)


def play_one(game: Game, rng: random.Random) -> services.Submitted:
    """The seat to act plays a random legal action through the service."""
    game.refresh_from_db()
    position = game.to_act[0]
    action = rng.choice(legal_for(game, position))
    return services.action_submit(
        game_id=game.pk, user=seat_user(game, position), action=action, expected_seq=game.seq
    )


def play_to_end(game: Game, seed: int = 0, limit: int = 2000) -> Game:
    rng = random.Random(seed)
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        play_one(game, rng)
    raise AssertionError(f"game {game.pk} did not end within {limit} moves")
