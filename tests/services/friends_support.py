"""Helpers for the rematch and crew tests: finished games of a known group."""

from __future__ import annotations

from django.contrib.auth.models import User

from games import services
from games.models import Game
from tests.services.support import play_to_end


def finished_game(
    people: list[User], *, rules_id: str = "libertalia", public: bool = True, bots: int = 0
) -> Game:
    """A finished game of ``people`` (the first created it) and ``bots``, played to the end
    through the services with random legal moves (Libertalia for two: about 55 moves)."""
    game = services.game_create(
        creator=people[0],
        rules_id=rules_id,
        players=len(people) + bots,
        is_public=public,
        bot_seats=bots,
    )
    for person in people[1:]:
        if public:
            services.seat_join(game_id=game.pk, user=person)
        else:
            (invitation,) = services.invitation_create(game_id=game.pk, by=people[0], emails=[person.email])
            services.invitation_accept(token=invitation.token, user=person)
    services.game_start(game_id=game.pk, by=people[0])
    if bots:
        return _play_with_bots(game)
    return play_to_end(game)


def _play_with_bots(game: Game) -> Game:
    import random

    from games.models import Seat
    from tests.services.support import legal_for

    rng = random.Random(0)
    for _ in range(3000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        position = game.to_act[0]
        seat = Seat.objects.get(game=game, position=position)
        if seat.user is None:
            services.bot_play(game_id=game.pk, expected_seq=game.seq)
            continue
        services.action_submit(
            game_id=game.pk,
            user=seat.user,
            action=rng.choice(legal_for(game, position)),
            expected_seq=game.seq,
        )
    raise AssertionError("the game did not end")
