"""Honest deals. A game whose creator fixed what the seed would draw says so
in the lobby, on the invitation page and at the table, and shows its seed fingerprint without
claiming a fair shuffle. Only private games may fix a deal. Which options fix a deal is the
rule set's declaration (``OptionInfo.fixes_chance``), not a list kept by the platform."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import pytest
from django.test import Client
from rest_framework.test import APIClient

from engine.base import OptionInfo
from games import services
from games.models import Game
from games.services.lobby import fixed_deal_options
from tests.web.helpers import make_user, started_game

pytestmark = pytest.mark.django_db

NOTICE = "Fixed deal:"
NEW_GAME = {
    "rules": "pirates",
    "players": "3",
    "bot_seats": "0",
    "bot_kind": "greedy",
    "move_time": "48h",
    "timeout_policy": "bot",
}


def text(response: object) -> str:
    return re.sub(r"\s+", " ", html.unescape(response.content.decode()))  # type: ignore[attr-defined]


def test_a_public_game_may_not_fix_its_deal_api() -> None:
    anne = make_user("anne")
    client = APIClient()
    client.force_authenticate(anne)
    for options in (
        {"first_seat": 1},
        {"deck": ["S01"]},
        {"first_seat": 0, "card_set": "pirates-2021-estimate"},
    ):
        response = client.post("/api/games/", {"players": 3, "options": options}, format="json")
        assert response.status_code == 400, options
        assert response.json()["error"] == "invalid" and "private games only" in response.json()["detail"]
    assert not Game.objects.exists()
    ok = client.post(
        "/api/games/", {"players": 3, "options": {"first_seat": 1}, "public": False}, format="json"
    )
    assert ok.status_code == 201 and Game.objects.get().fixed_deal
    # A card set of one's own fixes nothing the seed draws: public games may use one.
    fair = client.post(
        "/api/games/", {"players": 3, "options": {"card_set": "pirates-2021-estimate"}}, format="json"
    )
    assert fair.status_code == 201 and not Game.objects.get(pk=fair.json()["id"]).fixed_deal


def test_a_public_game_may_not_fix_its_deal_form(client: Client) -> None:
    client.force_login(make_user("anne"))
    response = client.post("/games/new/", {**NEW_GAME, "is_public": "on", "options": '{"first_seat": 2}'})
    assert response.status_code == 200 and "private games only" in text(response)
    assert not Game.objects.exists()
    response = client.post("/games/new/", {**NEW_GAME, "options": '{"first_seat": 2}'})
    game = Game.objects.get()
    assert response.status_code == 302 and game.fixed_deal and not game.is_public
    assert game.options == {"first_seat": 2}


def test_the_options_field_refuses_what_is_not_a_json_object(client: Client) -> None:
    client.force_login(make_user("anne"))
    for options, error in (("[1]", "JSON object"), ("{", "Not valid JSON"), ("[" * 100, "nested deeper")):
        response = client.post("/games/new/", {**NEW_GAME, "options": options})
        assert response.status_code == 200 and error in text(response), options
    assert not Game.objects.exists()


def test_lobby_invitation_page_and_table_say_the_deal_was_fixed() -> None:
    anne, bob = make_user("anne"), make_user("bob")
    fixed = services.game_create(
        creator=anne,
        rules_id="pirates",
        players=3,
        options={"first_seat": 1},
        is_public=False,
        title="Rigged",
    )
    fair = services.game_create(creator=anne, rules_id="pirates", players=3, title="Fair")
    (invitation,) = services.invitation_create(game_id=fixed.pk, by=anne, emails=[bob.email])
    host, guest = Client(), Client()
    host.force_login(anne)
    guest.force_login(bob)
    lobby = text(host.get("/games/"))
    row = lobby[lobby.index("Rigged") : lobby.index("</li>", lobby.index("Rigged"))]
    assert "Fixed deal" in row
    fair_row = lobby[lobby.index(">Fair<") : lobby.index("</li>", lobby.index(">Fair<"))]
    assert "Fixed deal" not in fair_row
    invite_page = text(guest.get(f"/invite/{invitation.token}/"))
    assert NOTICE in invite_page and "The first seat was chosen by the game's creator" in invite_page
    assert "not a random shuffle" in invite_page
    assert NOTICE in text(host.get(f"/games/{fixed.pk}/"))  # the lobby phase of the table
    assert NOTICE not in text(host.get(f"/games/{fair.pk}/"))


def test_the_running_table_says_so_and_claims_no_fair_shuffle() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    client = Client()
    client.force_login(users[1])
    page = text(client.get(f"/games/{game.pk}/"))
    assert NOTICE in page and "The first seat was chosen by the game's creator" in page
    assert "seed fingerprint" in page and "the seed did not choose it" in page
    detail = APIClient()
    detail.force_authenticate(users[1])
    body = detail.get(f"/api/games/{game.pk}/").json()
    assert body["fixed_deal"] is True and body["fixed_deal_options"] == ["first_seat"]
    assert body["options"] == {}  # first_seat is declared secret until the end


def test_the_deck_and_the_first_seat_are_both_named() -> None:
    anne = make_user("anne")
    deck = [f"S{n:02d}" for n in range(1, 14)] + [f"R{n:02d}" for n in range(1, 7)] + ["M01"]
    game = services.game_create(
        creator=anne,
        rules_id="pirates",
        players=3,
        options={"deck": deck, "first_seat": 0},
        is_public=False,
    )
    client = Client()
    client.force_login(anne)
    assert "The deck and the first seat were chosen by the game's creator" in text(
        client.get(f"/games/{game.pk}/")
    )


@dataclass
class _Declared:
    options: tuple[OptionInfo, ...]


def test_a_fixed_deal_is_whatever_a_rule_set_declares_as_fixing_chance() -> None:
    rules = _Declared(
        (
            OptionInfo("dice", "Loaded dice.", secret=True, fixes_chance=True),
            OptionInfo("board", "A board layout."),
        )
    )
    assert fixed_deal_options(rules, {"dice": [6, 6], "board": "x"}) == ["dice"]  # type: ignore[arg-type]
    assert fixed_deal_options(rules, {"board": "x", "deck": []}) == []  # type: ignore[arg-type]
