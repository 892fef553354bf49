"""Inputs that gave a server error, each answered with a 4xx now.

Deeply nested JSON (on every JSON endpoint, anonymously too), NUL characters and unpaired
surrogates (PostgreSQL cannot store them), non-finite numbers, malformed card sets. The
property-based passes (tests/web/test_fuzz_forms.py, tests/api/test_schema.py) keep the class
closed; these pin the findings one by one.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from engine.pirates.cards import bundled_card_set
from games.models import Event, Game
from tests.api.conftest import ClientFor
from tests.services.support import legal_for, started_game, user_to_act

pytestmark = pytest.mark.django_db

# Every POST endpoint of the API; those that read their body are marked True.
JSON_POSTS = {
    "/api/auth/token/": True,
    "/api/ping/": False,
    "/api/games/": True,
    "/api/games/{id}/join/": False,
    "/api/games/{id}/leave/": False,
    "/api/games/{id}/bots/": True,
    "/api/games/{id}/start/": False,
    "/api/games/{id}/abort/": False,
    "/api/games/{id}/actions/": True,
    "/api/games/{id}/invitations/": True,
    "/api/invitations/{token}/accept/": False,
    "/api/games/{id}/chat/": True,
    "/api/games/{id}/take-back/": True,
    "/api/games/{id}/resign/": False,
    "/api/games/{id}/webhooks/": True,
    "/api/games/{id}/rematch/": False,
    "/api/games/{id}/answer/": False,
    "/api/crews/": True,
    # {crew}: a crew that does not exist (the game's id), so only "no server error" is asked.
    "/api/crews/{crew}/invitations/": False,
    "/api/crews/{crew}/games/": False,
    "/api/crews/{crew}/webhooks/": False,
}
# A token of the right shape that names no invitation.
NO_TOKEN = "x" * 32


def test_the_list_of_post_endpoints_is_complete() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    posts = {path for path, operations in schema["paths"].items() if "post" in operations}
    assert posts == {path.replace("{id}", "{game_id}").replace("{crew}", "{crew_id}") for path in JSON_POSTS}


def assert_json_error(response: Any, status: int | tuple[int, ...], code: str | None = None) -> None:
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.content[:300])
    body = response.json()
    assert isinstance(body["error"], str) and isinstance(body["detail"], str), body
    if code is not None:
        assert body["error"] == code, body


@pytest.mark.parametrize("depth", [21, 900, 100_000])
def test_deeply_nested_json_is_a_400_on_every_json_endpoint(
    users: list[User], client_for: ClientFor, anonymous: APIClient, depth: int
) -> None:
    game = started_game(users)
    nested = '{"action": ' + "[" * depth + "]" * depth + ', "expected_seq": 1}'
    for path, reads_body in JSON_POSTS.items():
        url = path.format(id=game.pk, token=NO_TOKEN, crew=game.pk)
        answer = client_for(users[0]).post(url, nested, content_type="application/json")
        if reads_body:
            assert_json_error(answer, 400)
        else:
            assert answer.status_code < 500
        # Anonymous callers are refused before the body is read, except where no login is needed.
        anonymous_answer = anonymous.post(url, nested, content_type="application/json")
        assert_json_error(anonymous_answer, 400 if path == "/api/auth/token/" else 401)
    assert Event.objects.filter(game=game).count() == game.seq


def test_json_nesting_within_the_limit_still_parses(users: list[User], client_for: ClientFor) -> None:
    nested: Any = {"type": "pass"}
    for _ in range(15):
        nested = {"x": nested}
    response = client_for(users[0]).post("/api/games/", {"players": 3, "options": nested}, format="json")
    assert_json_error(response, 400, "invalid")  # the engine's verdict: an unknown option


def _card_set_with_note(note: str) -> dict[str, Any]:
    data = copy.deepcopy(bundled_card_set().data)
    data.update(id="noted", note=note)
    return data


@pytest.mark.postgres
@pytest.mark.parametrize(
    "raw",
    ['"a\\u0000b"', '"\\ud800"', '"\\udfff tail"'],
    ids=["nul", "lone-high-surrogate", "lone-low-surrogate"],
)
def test_text_no_database_can_store_is_a_400(users: list[User], client_for: ClientFor, raw: str) -> None:
    """On PostgreSQL a NUL in a card set's note (or any JSON text) was a server error."""
    game = started_game(users)
    mover = client_for(user_to_act(game))
    client = client_for(users[0])
    card_set = _card_set_with_note("NOTE")
    bodies = {
        "/api/games/": json.dumps({"players": 3, "options": {"card_set": card_set}}).replace('"NOTE"', raw),
        "/api/auth/token/": '{"username": ' + raw + ', "password": "x"}',
        f"/api/games/{game.pk}/actions/": '{"action": {"type": ' + raw + '}, "expected_seq": 1}',
    }
    for url, body in bodies.items():
        for caller in (client, mover):
            assert_json_error(caller.post(url, body, content_type="application/json"), 400, "invalid")
    key = '{"action": %s, "expected_seq": %d, "idempotency_key": %s}'
    action = json.dumps(legal_for(game, game.to_act[0])[0])
    assert_json_error(
        mover.post(
            f"/api/games/{game.pk}/actions/", key % (action, game.seq, raw), content_type="application/json"
        ),
        400,
        "invalid",
    )
    assert Game.objects.count() == 1 and Event.objects.filter(game=game).count() == game.seq


@pytest.mark.postgres
def test_nul_in_urls_headers_and_cookies_is_a_400(users: list[User], client_for: ClientFor) -> None:
    """A NUL in an invitation token, an API token or a session cookie reached a query."""
    game = started_game(users)
    web = Client()
    web.force_login(users[0])
    assert web.get("/invite/abc%00def/").status_code == 400
    assert web.get("/l/abc%00def/").status_code == 400
    assert web.get("/unsubscribe/abc%00/").status_code == 400
    assert web.get(f"/games/{game.pk}/replay/", {"seq": "1\x00"}).status_code == 400
    mover = Client()
    mover.force_login(user_to_act(game))
    moved = mover.post(
        f"/games/{game.pk}/act/",
        {"action": '{"type": "pass"}', "expected_seq": str(game.seq), "key": "k\x00"},
    )
    assert moved.status_code == 400
    anonymous = APIClient()
    anonymous.credentials(HTTP_AUTHORIZATION="Token abc\x00def")
    assert_json_error(anonymous.get("/api/games/"), 400, "invalid")
    cookie = Client()
    cookie.cookies["sessionid"] = "abcdefgh\x00ijkl"
    assert cookie.get("/games/").status_code == 400
    assert Event.objects.filter(game=game).count() == game.seq


def test_non_finite_numbers_are_refused(users: list[User], client_for: ClientFor) -> None:
    body = '{"players": 3, "options": {"first_seat": 1e999}, "public": false}'
    assert_json_error(client_for(users[0]).post("/api/games/", body, content_type="application/json"), 400)
    body = '{"players": 3, "options": {"first_seat": NaN}, "public": false}'
    assert_json_error(client_for(users[0]).post("/api/games/", body, content_type="application/json"), 400)
    assert not Game.objects.exists()


MALFORMED_CARDS: list[tuple[str, Any]] = [
    ("kind", ["ship"]),
    ("kind", {"ship": 1}),
    ("booty", [["saber"]]),
    ("booty", "saber"),
    ("id", ["S01"]),
    ("name", {"en": "Sloop"}),
    ("min_crew", "3"),
]


@pytest.mark.parametrize(
    ("key", "value"), MALFORMED_CARDS, ids=[f"{k}-{type(v).__name__}" for k, v in MALFORMED_CARDS]
)
def test_malformed_card_sets_are_a_400(
    users: list[User], client_for: ClientFor, key: str, value: Any
) -> None:
    """A card kind given as a list was a TypeError in validation: a server error."""
    card_set = _card_set_with_note("bad card")
    card_set["cards"][0][key] = value
    response = client_for(users[0]).post(
        "/api/games/", {"players": 3, "options": {"card_set": card_set}}, format="json"
    )
    assert_json_error(response, 400, "invalid")
    assert "card set" in response.json()["detail"].lower()
