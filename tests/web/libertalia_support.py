"""Libertalia games for the web and service tests: fixed deals, private games with their
players added through the service, and the seat each player got."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games import services
from games.models import Game, Seat

# A 3-player deal (L-RNG-2: fixed colours, campaign-1 ranks and layout) in which the Sunrise
# picks below, with every other decision answered by its first offered choice, reach every
# kind of decision of campaign 1: Parrot, Recruiter, Surgeon, Preacher, Gunner, Merchant, the
# Dusk pick, the saber and the Waitress.
DEAL3: dict[str, Any] = {
    "colours": ["red", "blue", "green"],
    "ranks": [[1, 4, 6, 8, 14, 15, 18, 21, 22]],
    "layouts": [[
        ["officer", "map", "map"],
        ["goods", "officer", "relic"],
        ["relic", "relic", "relic"],
        ["jewel", "goods", "relic"],
        ["saber", "map", "map"],
        ["chest", "goods", "goods"],
    ]],
}
# Day -> the rank each seat (0, 1, 2) chooses at that day's Sunrise.
PICKS3: dict[int, tuple[int, int, int]] = {
    1: (18, 18, 14),
    2: (21, 22, 6),
    3: (4, 14, 8),
    4: (1, 1, 1),
    5: (22, 22, 18),
    6: (15, 21, 21),
}

# A 4-player deal with every option fixed, for the secrecy tests.
DEAL4: dict[str, Any] = {
    "colours": ["yellow", "red", "blue", "green"],
    "ranks": [[2, 5, 9, 12, 14, 19, 23, 27, 29]],
    "layouts": [[
        ["chest", "jewel", "goods", "relic"],
        ["goods", "goods", "map", "saber"],
        ["officer", "jewel", "relic", "map"],
        ["chest", "goods", "saber", "relic"],
        ["jewel", "map", "map", "officer"],
        ["goods", "relic", "saber", "jewel"],
    ]],
    "draws": ["map", "chest", "jewel"],
}


def libertalia_game(
    people: list[User], options: dict[str, Any], *, bots: int = 0, title: str = "Libertalia Bay",
    is_public: bool = False,
) -> Game:
    """A running game of Libertalia with ``people`` (and ``bots``) seated. Fixed deals are for
    private games only, which the others join through their invitations (services only)."""
    game = services.game_create(
        creator=people[0], rules_id="libertalia", players=len(people) + bots, options=options,
        title=title, is_public=is_public, bot_seats=bots,
    )
    for person in people[1:]:
        if is_public:
            services.seat_join(game_id=game.pk, user=person)
            continue
        (invitation,) = services.invitation_create(game_id=game.pk, by=people[0], emails=[person.email])
        services.invitation_accept(token=invitation.token, user=person)
    return services.game_start(game_id=game.pk, by=people[0])


def seat_users(game: Game) -> dict[int, User]:
    """Who sits where (seating may be drawn at the start)."""
    seats = Seat.objects.filter(game=game, user__isnull=False).select_related("user")
    return {seat.position: seat.user for seat in seats if seat.user is not None}


def play(game: Game, user: User, action: dict[str, Any]) -> Game:
    game.refresh_from_db()
    services.action_submit(game_id=game.pk, user=user, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return game
