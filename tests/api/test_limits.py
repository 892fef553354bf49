"""Sizes have limits. A custom card set's names and note and the whole options
object have maximum sizes (a 2.4 MB note made every GET of the game 3.6 MB), and a body over
the size limit is a JSON 413, never a 500."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from engine.pirates.cards import MAX_NOTE, bundled_card_set
from games.api.parsers import MAX_BODY_BYTES
from games.models import Game
from games.services.lobby import MAX_OPTIONS_BYTES
from tests.api.conftest import ClientFor

pytestmark = pytest.mark.django_db


def card_set(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(bundled_card_set().data)
    data["id"] = "our-own"
    data.update(changes)
    return data


def create(client: APIClient, options: dict[str, Any]) -> Any:
    return client.post("/api/games/", {"players": 3, "options": options}, format="json")


def assert_json_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code and isinstance(body["detail"], str), body
    return dict(body)


def test_card_set_note_and_names_have_maximum_sizes(users: list[User], client_for: ClientFor) -> None:
    client = client_for(users[0])
    assert create(client, {"card_set": card_set(note="n" * MAX_NOTE)}).status_code == 201
    body = assert_json_error(
        create(client, {"card_set": card_set(note="n" * (MAX_NOTE + 1))}), 400, "invalid"
    )
    assert "note must be" in body["detail"]
    named = card_set()
    named["cards"][0]["name"] = "Dutchman " * 20
    assert "name must be" in assert_json_error(create(client, {"card_set": named}), 400, "invalid")["detail"]
    assert Game.objects.count() == 1


def test_the_whole_options_object_has_a_maximum_size(users: list[User], client_for: ClientFor) -> None:
    client = client_for(users[0])
    padded = card_set()
    # Within the body limit, within every field's limit, yet too much for a game's options.
    padded["cards"] = [*padded["cards"], *[{"id": f"X{i}", "name": "n" * 40} for i in range(400)]]
    assert len(json.dumps({"card_set": padded})) > MAX_OPTIONS_BYTES
    body = assert_json_error(create(client, {"card_set": padded}), 400, "invalid")
    assert f"at most {MAX_OPTIONS_BYTES // 1024} KB" in body["detail"]
    assert not Game.objects.exists()


def test_a_game_weighs_kilobytes_not_megabytes(users: list[User], client_for: ClientFor) -> None:
    """The largest accepted card set, read back by an anonymous visitor."""
    client = client_for(users[0])
    created = create(client, {"card_set": card_set(note="n" * MAX_NOTE)})
    detail = APIClient().get(f"/api/games/{created.json()['id']}/")
    assert detail.status_code == 200 and len(detail.content) < 3 * MAX_OPTIONS_BYTES


def test_a_megabyte_note_is_a_json_413_before_anything_parses_it(
    users: list[User], client_for: ClientFor
) -> None:
    response = create(client_for(users[0]), {"card_set": card_set(note="n" * 2_400_000)})
    assert_json_error(response, 413, "too_large")
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    "size", [MAX_BODY_BYTES + 1, 3 * 1024 * 1024], ids=["over-api-limit", "over-django-limit"]
)
def test_bodies_over_the_limit_are_json_413_even_anonymously(anonymous: APIClient, size: int) -> None:
    body = json.dumps({"username": "x" * size, "password": "p"})
    assert_json_error(
        anonymous.post("/api/auth/token/", body, content_type="application/json"), 413, "too_large"
    )
    form = "username=" + "x" * size + "&password=p"
    response = anonymous.post("/api/auth/token/", form, content_type="application/x-www-form-urlencoded")
    assert response.status_code in (400, 413) and response.json()["error"] in ("too_large", "invalid")
