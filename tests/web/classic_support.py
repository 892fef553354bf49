"""Games of Pirates (classic) for the web and notification tests: a fixed deal, and a scripted
opening that ends with two players asked the challenge question at once (C-MUT-2)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games import services
from games.models import Game, Seat

RULES_ID = "pirates-classic"
# The Barque Fortune (crew 3, dagger or rum), the Pinnace Dove (crew 2, dagger) and the
# Brigantine Charity (crew 3, rum or chest) face up; the rest face down in this order.
TOP = ["C04", "C01", "C07"]
REST = ["C02", "C03", "C05", "C06", "C08", "C09", "C10", "C11", "C12", "C13", "C14", "C15"]
DECK = TOP + REST


def move(party: str, onto: str) -> dict[str, Any]:
    return {"type": "move", "party": party, "onto": onto}


# Red (0), Blue (1) and Green (2) in turn. Blue and Green take turns topping one stack until it
# holds three of each, then Red moves onto it: a stack of 7 that Red controls. The other moves
# keep out of its way; Green is left controlling nothing and skips (the service does it).
# At the start of Red's next turn Blue and Green are both asked whether to challenge.
OPENING: list[tuple[int, dict[str, Any]]] = [
    (0, move("0.3", "1.5")), (1, move("1.Q", "0.Q")), (2, move("2.2", "1.2")),
    (0, move("0.4", "2.5")), (1, move("1.3", "2.2")), (2, move("2.3", "1.3")),
    (0, move("0.5", "2.Q")), (1, move("1.4", "2.3")), (2, move("2.4", "1.4")),
    (0, move("0.2", "2.4")), (1, move("1.Q", "0.3")),
]
# The stack the question is about: Red 2 on top of Green 4, Blue 4, Green 3, Blue 3, Green 2, Blue 2.
CHALLENGED_STACK = "0.2"


def classic_game(
    users: list[User], *, bots: int = 0, deck: list[str] | None = None, **create: Any
) -> Game:
    """A running game of Pirates (classic) with ``users`` seated in this order (then ``bots``);
    the fixed deal keeps the seats in place and Red starts."""
    game = services.game_create(
        creator=users[0],
        rules_id=RULES_ID,
        players=len(users) + bots,
        bot_seats=bots,
        options={"deck": deck or DECK, "first_seat": 0},
        is_public=False,  # only a private game may fix its deal; it is joined by invitation
        **create,
    )
    for user in users[1:]:
        (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
        services.invitation_accept(token=invitation.token, user=user)
    game = services.game_start(game_id=game.pk, by=users[0])
    # The tests also look at what a spectator sees, so the game is opened to spectators behind
    # the lobby's back (the lobby keeps fixed deals private).
    Game.objects.filter(pk=game.pk).update(is_public=True)
    game.refresh_from_db()
    return game


def seat_user(game: Game, position: int) -> User:
    seat = Seat.objects.select_related("user").get(game=game, position=position)
    assert seat.user is not None
    return seat.user


def submit(game: Game, seat: int, action: dict[str, Any]) -> None:
    game.refresh_from_db()
    services.action_submit(game_id=game.pk, user=seat_user(game, seat), action=action, expected_seq=game.seq)
    game.refresh_from_db()


def play_opening(game: Game) -> None:
    """Plays OPENING; afterwards Blue and Green are to answer the question about Red's stack."""
    for seat, action in OPENING:
        assert game.to_act == [seat], (game.to_act, seat, action)
        submit(game, seat, action)
    assert game.to_act == [1, 2], game.to_act
