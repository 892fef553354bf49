"""Inputs that gave a server error, each a 4xx or a form error
now (the fuzz pass in test_fuzz_forms.py keeps the class closed)."""

from __future__ import annotations

import random

import pytest
from django.core import mail
from django.test import Client
from pytest_django import Settings

from games import services
from games.models import Game
from tests.services.support import play_one, user_to_act
from tests.services.support import started_game as public_started_game
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db

NEW_GAME = {
    "rules": "pirates",
    "players": "3",
    "bot_seats": "0",
    "bot_kind": "greedy",
    "move_time": "48h",
    "timeout_policy": "bot",
    "is_public": "on",
}


@pytest.mark.parametrize("title", ["Tortuga\nBay", "Tortuga\r\nBay", "Tortuga\u2028Bay", "Tortuga\tBay"])
@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_a_line_break_in_a_title_on_the_invitation_path_is_one_space(client: Client, title: str) -> None:
    """A line break in the title went into the invitation's subject: BadHeaderError, a 500."""
    client.force_login(make_user("anne"))
    response = client.post("/games/new/", {**NEW_GAME, "title": title, "invite": "bob@example.test"})
    game = Game.objects.get()
    assert response.status_code == 302 and game.title == "Tortuga Bay"
    (message,) = mail.outbox
    assert "Tortuga Bay" in message.subject and "\n" not in message.subject


@pytest.mark.parametrize("title", ["Bell\x07", "Esc\x1b[31m", "Del\x7f", "C1\x85x\x9b"])
def test_other_control_characters_in_a_title_are_a_form_error(client: Client, title: str) -> None:
    client.force_login(make_user("anne"))
    response = client.post("/games/new/", {**NEW_GAME, "title": title, "invite": "bob@example.test"})
    assert response.status_code == 200 and b"control characters" in response.content
    assert not Game.objects.exists() and not mail.outbox


def test_the_service_refuses_control_characters_from_any_caller() -> None:
    anne = make_user("anne")
    with pytest.raises(services.InvalidInput, match="control characters"):
        services.game_create(creator=anne, rules_id="pirates", players=3, title="a\x00b")
    game = services.game_create(creator=anne, rules_id="pirates", players=3, title="  Black\n\tPearl ")
    assert game.title == "Black Pearl"


def test_odd_characters_in_the_replay_seq_show_the_first_frame() -> None:
    """``"²".isdigit()`` is true and ``int("²")`` raises: ?seq=² was a server error. Anything
    that is not a seq opens the replay at its start."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = public_started_game(users)
    for _ in range(4):
        play_one(game, random.Random(1))
    game.refresh_from_db()
    player = Client()
    player.force_login(users[0])  # a running game replays for its players
    for seq in ["²", "٣", "１", "3\u0663", "-1", "1e3", "99999999999999999999999", "", " 3", "3\n"]:
        page = player.get(f"/games/{game.pk}/replay/", {"seq": seq})
        assert page.status_code == 200, seq
        assert '<div class="frame" data-seq="1">' in page.content.decode(), seq
    assert 'value="2"' in player.get(f"/games/{game.pk}/replay/", {"seq": "2"}).content.decode()


def test_a_form_body_over_the_upload_limit_is_a_400_not_a_500(client: Client) -> None:
    client.force_login(make_user("anne"))
    body = "title=" + "x" * (3 * 1024 * 1024)
    response = client.post("/games/new/", body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert not Game.objects.exists()


def test_a_move_with_deeply_nested_json_is_refused_with_a_message() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = public_started_game(users)
    mover = Client()
    mover.force_login(user_to_act(game))
    action = "[" * 50_000 + "]" * 50_000
    response = mover.post(
        f"/games/{game.pk}/act/", {"action": action, "expected_seq": str(game.seq)}, follow=True
    )
    assert response.status_code == 200 and b"could not be read" in response.content


@pytest.mark.parametrize("next_url", ["0", "games", "lobby", "home", "x:y"])
def test_a_next_that_is_not_a_path_goes_to_the_lobby(client: Client, next_url: str) -> None:
    """Found by the fuzz pass: ``redirect("0")`` looks "0" up as a view name, a server error."""
    client.force_login(make_user("anne"))
    response = client.get("/accounts/signup/", {"next": next_url})
    assert response.status_code == 302 and response["Location"] == "/games/"


def test_an_outbox_name_too_long_for_the_file_system_is_a_404(client: Client, settings: Settings) -> None:
    """Found by the fuzz pass (development outbox only): ENAMETOOLONG escaped ``is_file``."""
    settings.DEV_OUTBOX_PAGE = True
    assert client.get("/dev/outbox/" + "x" * 300 + ".eml/").status_code == 404
