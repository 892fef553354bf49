"""Throttling in the API: password guessing on ``POST /api/auth/token/`` and
game creation. A refusal is ``{"error": "throttled", "detail": ...}`` with status 429 and
Retry-After. With REDIS_URL set the counts live in Redis; run these both ways.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from pytest_django import Settings
from rest_framework.test import APIClient

from games.models import Game
from tests.api.conftest import ClientFor
from tests.services.support import PASSWORD
from tests.throttle_support import retry_after, set_rates

pytestmark = pytest.mark.django_db


def token(client: APIClient, password: str, address: str = "10.0.0.1", username: str = "player0") -> int:
    body = {"username": username, "password": password}
    return client.post("/api/auth/token/", body, format="json", REMOTE_ADDR=address).status_code


def test_100_wrong_passwords_then_the_right_one_is_refused(
    users: list[User], anonymous: APIClient, settings: Settings
) -> None:
    """The issue's finding: 100 wrong passwords, then the right one, all went through."""
    set_rates(settings, login=None)  # the lock-out alone, not the per-address rate
    codes = [token(anonymous, f"guess-{i}") for i in range(100)]
    assert codes[:4] == [400] * 4 and set(codes[4:]) == {429}
    response = anonymous.post(
        "/api/auth/token/",
        {"username": "player0", "password": PASSWORD},
        format="json",
        REMOTE_ADDR="10.0.0.1",
    )
    assert 14 * 60 < retry_after(response) <= 15 * 60
    body = response.json()
    assert body["error"] == "throttled" and "Too many failed log-ins" in body["detail"]
    assert "token" not in body
    assert AccessAttempt.objects.get(username="player0").failures_since_start == 5

    assert token(APIClient(), PASSWORD, address="10.0.0.2") == 200  # the owner elsewhere is not locked out
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    assert token(anonymous, PASSWORD) == 200


def test_a_lockout_on_the_web_form_also_closes_the_token_endpoint(
    users: list[User], anonymous: APIClient, settings: Settings
) -> None:
    set_rates(settings, login=None)
    for i in range(5):
        anonymous.post(
            "/accounts/login/", {"username": "player0", "password": f"x{i}"}, REMOTE_ADDR="10.0.0.1"
        )
    assert token(anonymous, PASSWORD) == 429


def test_token_requests_per_address_are_limited(anonymous: APIClient, settings: Settings) -> None:
    set_rates(settings, login="3/minute")
    codes = [token(anonymous, "pw", username=f"user{i}") for i in range(4)]
    assert codes == [400, 400, 400, 429]
    response = anonymous.post(
        "/api/auth/token/", {"username": "a", "password": "b"}, format="json", REMOTE_ADDR="10.0.0.1"
    )
    assert retry_after(response) <= 60
    assert response.json()["error"] == "throttled" and "Try again in" in response.json()["detail"]
    assert token(anonymous, "pw", address="10.0.0.2") == 400


def test_the_address_behind_trusted_proxies(anonymous: APIClient, settings: Settings) -> None:
    """Behind one proxy the client's address is the last X-Forwarded-For entry; what the client
    wrote before it cannot buy a fresh count."""
    settings.TRUSTED_PROXY_COUNT = 1
    set_rates(settings, login="2/minute")

    def attempt(forwarded: str) -> int:
        return anonymous.post(
            "/api/auth/token/",
            {"username": "a", "password": "b"},
            format="json",
            REMOTE_ADDR="172.16.0.1",
            HTTP_X_FORWARDED_FOR=forwarded,
        ).status_code

    assert [attempt(f"1.1.1.{i}, 203.0.113.7") for i in range(3)] == [400, 400, 429]
    assert attempt("203.0.113.8") == 400


def test_game_creation_is_limited_per_account(users: list[User], client_for: ClientFor) -> None:
    host = client_for(users[0])
    codes = [host.post("/api/games/", {"players": 3}, format="json").status_code for _ in range(21)]
    assert codes == [201] * 20 + [429]
    response = host.post("/api/games/", {"players": 3}, format="json")
    assert 3500 < retry_after(response) <= 3600
    assert response.json()["error"] == "throttled"
    assert Game.objects.filter(created_by=users[0]).count() == 20
    assert host.get("/api/games/").status_code == 200  # reading is not counted
    assert client_for(users[1]).post("/api/games/", {"players": 3}, format="json").status_code == 201
