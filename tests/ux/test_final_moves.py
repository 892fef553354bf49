"""The table tells the player, before a move is confirmed, when it will be final and why: every
move button carries ``data-final`` (the rule set's reason, ``Rules.reveals``, or nothing), and
the confirm step has the line the table's script fills from it."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import Game
from games.read.state import load_state, rules_for
from tests.web.helpers import logged_in, make_user, started_game

pytestmark = pytest.mark.django_db

# One move control (a form or a button) with its preview, its final note and its action.
CONTROL_RE = re.compile(
    r'data-preview="[^"]*" data-final="([^"]*)"[^>]*>(?:(?!name="action").)*?name="action" value="([^"]+)"'
    r'|name="action" value="([^"]+)"[^>]*data-preview="[^"]*" data-final="([^"]*)"',
    re.S,
)
CONFIRM_FINAL = '<p class="confirm-final" id="confirm-final" hidden></p>'


def finals_on(page: str) -> dict[str, str]:
    """Each move's action (as JSON text) and what its button says of being final."""
    found = {}
    for final_a, action_a, action_b, final_b in CONTROL_RE.findall(page):
        action, final = (action_a, final_a) if action_a else (action_b, final_b)
        found[json.dumps(json.loads(html.unescape(action)), sort_keys=True)] = html.unescape(final)
    return found


def expected(game: Game, seat: int) -> dict[str, str]:
    rules, state = rules_for(game), load_state(game)
    out = {}
    for action in rules.legal_actions(state, seat):
        reason = rules.reveals(state, seat, action)
        out[json.dumps(action, sort_keys=True)] = "" if reason is None else f"This move is final: {reason}."
    return out


def public_game(rules_id: str, users: list[User]) -> Game:
    game = services.game_create(creator=users[0], rules_id=rules_id, players=len(users), is_public=True)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    return game


def seat_user(game: Game, users: list[User], seat: int) -> User:
    user_id = game.seats.get(position=seat).user_id
    return next(user for user in users if user.pk == user_id)


@pytest.mark.parametrize(
    ("rules_id", "players", "every_move_says"),
    [
        ("captain-lucky", 2, "This move is final: it draws from the pile."),  # K-TURN-1
        ("libertalia", 2, "This move is final: your pick is revealed with the others."),  # L-SUN-1
        ("pirates-classic", 3, ""),  # C-MOVE-1: the first moves only move public pirates
        ("pirates", 3, ""),  # P-ASM-1
    ],
)
def test_every_move_button_says_whether_it_is_final(
    rules_id: str, players: int, every_move_says: str
) -> None:
    users = [make_user(f"{rules_id.replace('-', '')}{i}") for i in range(players)]
    game = public_game(rules_id, users)
    seat = game.to_act[0]
    page = logged_in(seat_user(game, users, seat)).get(f"/games/{game.pk}/").content.decode()
    shown = finals_on(page)
    assert shown == expected(game, seat)
    assert set(shown.values()) == {every_move_says}
    assert CONFIRM_FINAL in page and 'aria-describedby="confirm-preview confirm-final"' in page
    # A spectator gets no move buttons and no final notes.
    watcher = logged_in(make_user(f"{rules_id.replace('-', '')}watcher"))
    response = watcher.get(f"/games/{game.pk}/")
    assert response.status_code == 200 and finals_on(response.content.decode()) == {}


def test_pirates_a_capture_that_turns_up_new_cards_says_so_and_the_others_do_not() -> None:
    """P-CAP-8: when one card is left on the display, capturing it is final (the next cards
    of the deck are turned up); assembling beside it is not. The page says it move by move."""
    users = [make_user(name) for name in ("anne", "bob", "cat")]
    game = started_game(users)
    rules = rules_for(game)
    for _ in range(400):
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE, "no page showed a final capture"
        seat = game.to_act[0]
        page = logged_in(users[seat]).get(f"/games/{game.pk}/").content.decode()
        shown = finals_on(page)
        assert shown == expected(game, seat)
        notes = set(shown.values())
        if "This move is final: it turns up the next cards of the deck." in notes and "" in notes:
            return
        actions: list[dict[str, Any]] = rules.legal_actions(load_state(game), seat)
        action = next((a for a in actions if a["type"] == "capture"), actions[0])
        services.action_submit(game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq)
    pytest.fail("no page showed a final capture beside a move that can be taken back")
