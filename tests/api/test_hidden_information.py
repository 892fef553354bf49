"""While a game runs, no API answer to anyone (any seat, another user, an anonymous visitor)
contains the seed or the order of the deck; the seed's SHA-256 is public from the start."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games import services
from games.models import Game
from tests.api.conftest import ClientFor
from tests.services.support import make_user, play_one, started_game

pytestmark = pytest.mark.django_db

SECRET_KEYS = {"deck", "seed", "rng"}


def deck_order(game: Game) -> list[str]:
    """The card ids still in the deck, top first, from the engine's own snapshot of the state."""
    game.refresh_from_db()
    dump = services.rules_for(game).dump(services.load_state(game))
    return list(dump["deck"])


def secret_keys_with_values(value: Any, path: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in SECRET_KEYS and item not in (None, "", [], {}):
                yield f"{path}.{key}"
            yield from secret_keys_with_values(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from secret_keys_with_values(item, f"{path}[{i}]")


def assert_no_secrets(text: str, game: Game, deck: list[str], where: str) -> None:
    assert game.seed and game.seed not in text, f"{where}: the seed leaked"
    for separator in (", ", ","):
        ordered = separator.join(json.dumps(card) for card in deck[:3])
        assert ordered not in text, f"{where}: the deck order leaked"
    leaked_cards = [card for card in deck if json.dumps(card) in text]
    assert not leaked_cards, f"{where}: cards still in the deck appear: {leaked_cards}"
    if text.startswith(("{", "[")):
        assert not list(secret_keys_with_values(json.loads(text))), where


def answers(client: APIClient, game: Game) -> Iterator[tuple[str, str]]:
    urls = [
        "/api/games/",
        f"/api/games/{game.pk}/",
        f"/api/games/{game.pk}/events/",
        f"/api/games/{game.pk}/events/?after=1",
        f"/api/games/{game.pk}/export/",
    ]
    urls += [f"/api/games/{game.pk}/replay/{seq}/" for seq in range(1, game.seq + 1)]
    for url in urls:
        response = client.get(url)
        assert response.status_code < 500
        yield url, response.content.decode()


def test_no_answer_of_a_running_game_holds_the_seed_or_the_deck(
    users: list[User], client_for: ClientFor, anonymous: APIClient
) -> None:
    game = started_game(users)
    clients = {f"seat of {u.username}": client_for(u) for u in users}
    clients["another user"] = client_for(make_user("stranger"))
    clients["anonymous"] = anonymous
    rng = random.Random(7)
    for round_ in range(3):
        deck = deck_order(game)
        assert len(deck) > 3
        for who, client in clients.items():
            for url, text in answers(client, game):
                assert_no_secrets(text, game, deck, f"round {round_}, {who}, GET {url}")
        for _ in range(4):
            submitted = play_one(game, rng)
            assert submitted.created
    detail = anonymous.get(f"/api/games/{game.pk}/").json()
    assert detail["seed"] is None and detail["seed_sha256"] == game.seed_sha256


def test_an_action_answer_holds_no_secret(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    deck = deck_order(game)
    player = next(u for u in users if u.seats.get(game=game).position == game.to_act[0])
    action = services.rules_for(game).legal_actions(services.load_state(game), game.to_act[0])[0]
    response = client_for(player).post(
        f"/api/games/{game.pk}/actions/", {"action": action, "expected_seq": game.seq}, format="json"
    )
    assert response.status_code == 201
    assert_no_secrets(response.content.decode(), game, deck, "POST actions")


def test_spectators_cannot_replay_or_export_a_running_game(
    users: list[User], client_for: ClientFor, anonymous: APIClient
) -> None:
    game = started_game(users)
    for client in (client_for(make_user("stranger")), anonymous):
        assert client.get(f"/api/games/{game.pk}/replay/1/").json()["error"] == "forbidden"
    for client in (client_for(users[0]), anonymous):
        response = client.get(f"/api/games/{game.pk}/export/")
        assert response.status_code == 403 and response.json()["error"] == "forbidden"
    own = client_for(users[1]).get(f"/api/games/{game.pk}/replay/1/").json()
    assert own["seat"] == users[1].seats.get(game=game).position
