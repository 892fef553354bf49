"""The game table: board, move controls built from legal_actions, moves, live updates, end screen."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from games import selectors
from games.models import Event, Game
from tests.web.helpers import logged_in, make_user, started_game

pytestmark = pytest.mark.django_db

ACTION_RE = re.compile(r'name="action" value="([^"]+)"')


def _offered(page: bytes) -> list[dict[str, object]]:
    return [json.loads(html.unescape(raw)) for raw in ACTION_RE.findall(page.decode())]


def _messages(response: object) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]  # type: ignore[attr-defined]


@pytest.fixture
def trio() -> tuple[Game, list[Client]]:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    return game, [logged_in(user) for user in users]


def test_table_shows_board_and_only_legal_actions(trio: tuple[Game, list[Client]]) -> None:
    game, (anne, bob, _cat) = trio
    page = anne.get(f"/games/{game.pk}/")
    text = page.content.decode()
    view = selectors.game_detail(game, None)["view"]
    for card in view["display"]:
        assert html.escape(card["name"]) in text  # e.g. "Smugglers&#x27; Cave"
    assert "left in the deck" in text and "Your move" in text and "seed fingerprint" in text
    assert "Captain" not in text or "party of" in text
    detail = selectors.game_detail(Game.objects.get(pk=game.pk), page.wsgi_request.user)

    def canonical(actions: list[dict[str, object]]) -> list[str]:
        return sorted(json.dumps(a, sort_keys=True) for a in actions)

    assert canonical(_offered(page.content)) == canonical(detail["legal_actions"])
    # The others see the board but no controls.
    other = bob.get(f"/games/{game.pk}/")
    assert (
        other.status_code == 200 and not _offered(other.content) and "Waiting for" in other.content.decode()
    )


def test_a_legal_move_is_appended(trio: tuple[Game, list[Client]]) -> None:
    game, (anne, _bob, _cat) = trio
    action = _offered(anne.get(f"/games/{game.pk}/").content)[0]
    response = anne.post(f"/games/{game.pk}/act/", {"action": json.dumps(action), "expected_seq": game.seq})
    assert response.status_code == 302
    event = Event.objects.get(game=game, seq=game.seq + 1)
    assert event.action == action and event.seat == 0 and event.actor.startswith("user:")


def test_forged_seat_action_gives_message_and_appends_nothing(trio: tuple[Game, list[Client]]) -> None:
    game, (anne, bob, _cat) = trio
    forged = {"type": "assemble", "party": "1.2", "onto": "0.3"}  # Bob's pirate, sent by Anne
    response = anne.post(f"/games/{game.pk}/act/", {"action": json.dumps(forged), "expected_seq": game.seq})
    assert any("not accepted" in m for m in _messages(response))
    assert Event.objects.filter(game=game).count() == game.seq
    # Bob, not to move, sends one of Anne's legal actions.
    action = _offered(anne.get(f"/games/{game.pk}/").content)[0]
    response = bob.post(f"/games/{game.pk}/act/", {"action": json.dumps(action), "expected_seq": game.seq})
    assert any("not your turn" in m for m in _messages(response))
    assert Event.objects.filter(game=game).count() == game.seq


def test_illegal_garbled_and_stale_moves(trio: tuple[Game, list[Client]]) -> None:
    game, (anne, _bob, _cat) = trio
    url = f"/games/{game.pk}/act/"
    response = anne.post(url, {"action": '{"type": "fly"}', "expected_seq": game.seq})
    assert any("not accepted" in m for m in _messages(response))
    response = anne.post(url, {"action": "{not json", "expected_seq": game.seq})
    assert any("could not be read" in m for m in _messages(response))
    action = _offered(anne.get(f"/games/{game.pk}/").content)[0]
    response = anne.post(url, {"action": json.dumps(action), "expected_seq": game.seq - 1})
    assert any("moved on" in m for m in _messages(response))
    assert Event.objects.filter(game=game).count() == game.seq


def test_moves_need_login_post_and_csrf(trio: tuple[Game, list[Client]]) -> None:
    game, _clients = trio
    anonymous = Client()
    assert anonymous.post(f"/games/{game.pk}/act/", {})["Location"].startswith("/accounts/login/")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(game.created_by)
    assert (
        strict.post(f"/games/{game.pk}/act/", {"action": '{"type":"pass"}', "expected_seq": 1}).status_code
        == 403
    )
    assert strict.get(f"/games/{game.pk}/act/").status_code == 405
    assert Event.objects.filter(game=game).count() == game.seq


def test_live_endpoint_answers_204_until_something_changes(trio: tuple[Game, list[Client]]) -> None:
    game, (anne, bob, _cat) = trio
    page = bob.get(f"/games/{game.pk}/").content.decode()
    version = re.search(r'data-version="([^"]+)"', page)
    assert version is not None and 'hx-trigger="every 3s' in page
    live = f"/games/{game.pk}/live/"
    assert bob.get(live, {"v": version.group(1)}).status_code == 204
    action = _offered(anne.get(f"/games/{game.pk}/").content)[0]
    anne.post(f"/games/{game.pk}/act/", {"action": json.dumps(action), "expected_seq": game.seq})
    fresh = bob.get(live, {"v": version.group(1)})
    assert fresh.status_code == 200 and b'id="live"' in fresh.content and b"<html" not in fresh.content


def test_play_to_the_end_shows_scores_and_seed(trio: tuple[Game, list[Client]]) -> None:
    game, clients = trio
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        client = clients[game.to_act[0]]
        offered = _offered(client.get(f"/games/{game.pk}/").content)
        # Captures first so the game ends quickly.
        action = next((a for a in offered if a["type"] in ("capture", "mutiny")), offered[0])
        client.post(f"/games/{game.pk}/act/", {"action": json.dumps(action), "expected_seq": game.seq})
    assert game.status == Game.Status.FINISHED
    text = clients[1].get(f"/games/{game.pk}/").content.decode()
    assert "Final scores" in text and game.seed in text
    assert game.result is not None
    assert all(str(score) in text for score in game.result["scores"])
    # A fixed deal is a private game's: hidden from spectators even when over (a public finished
    # game's table and replay for everyone: test_replay_rules).
    assert Client().get(f"/games/{game.pk}/").status_code == 404


def test_unknown_game_is_404(client: Client) -> None:
    assert client.get("/games/999999/").status_code == 404
