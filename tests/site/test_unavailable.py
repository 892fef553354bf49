"""How each kind of request answers a lost database connection (games/unavailable.py), with the
failure injected into the database cursor: which requests run once more, which answer 503 at
once, and what that answer is. tests/site/test_database_outage.py stops a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import InterfaceError, OperationalError
from django.db.backends.utils import CursorWrapper
from django.test import Client
from rest_framework.authtoken.models import Token

from games.models import Game
from games.services import game_create

pytestmark = pytest.mark.django_db
FOREVER = 10**9


@dataclass
class Outage:
    """The next ``remaining`` queries fail as on a connection a restart broke."""

    remaining: int = 0
    raised: int = 0
    error: type[Exception] = OperationalError


@pytest.fixture
def outage(monkeypatch: pytest.MonkeyPatch) -> Iterator[Outage]:
    state = Outage()
    real = CursorWrapper.execute

    def execute(self: CursorWrapper, sql: str, params: Any = None) -> Any:
        if state.remaining > 0:
            state.remaining -= 1
            state.raised += 1
            raise state.error("server closed the connection unexpectedly")
        return real(self, sql, params)

    monkeypatch.setattr(CursorWrapper, "execute", execute)
    yield state


@pytest.fixture
def anne() -> User:
    return User.objects.create_user("anne", "anne@example.test", "a-long-password-1")


@pytest.fixture
def game(anne: User) -> Game:
    return game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")


@pytest.fixture
def api(anne: User) -> Client:
    token = Token.objects.create(user=anne)
    return Client(headers={"Authorization": f"Token {token.key}"}, raise_request_exception=False)


@pytest.fixture
def site(anne: User) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(anne)
    return client


def _assert_api_unavailable(response: Any) -> None:
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert json.loads(response.content) == {
        "error": "unavailable",
        "detail": "The database is unavailable for a moment. Try again in a few seconds.",
    }


def _assert_page_unavailable(response: Any) -> None:
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "Back in a moment" in page and 'name="viewport"' in page
    assert "<script" not in page and "<style" not in page and " style=" not in page
    assert "script-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_an_api_get_that_meets_a_lost_connection_runs_once_more(
    outage: Outage, api: Client, game: Game, error: type[Exception]
) -> None:
    outage.remaining, outage.error = 1, error
    response = api.get(f"/api/games/{game.pk}/")
    assert response.status_code == 200 and response.json()["id"] == game.pk
    assert outage.raised == 1


def test_an_api_get_that_meets_it_twice_answers_503(outage: Outage, api: Client, game: Game) -> None:
    outage.remaining = FOREVER
    _assert_api_unavailable(api.get(f"/api/games/{game.pk}/"))
    assert outage.raised == 2  # the first run and the one more
    outage.remaining = 0
    assert api.get(f"/api/games/{game.pk}/").status_code == 200


def test_an_api_post_is_not_run_twice_and_answers_503(outage: Outage, api: Client, game: Game) -> None:
    before = Game.objects.count()
    outage.remaining = 1
    response = api.post("/api/games/", {"players": 3, "title": "Tortuga"}, content_type="application/json")
    _assert_api_unavailable(response)
    assert outage.raised == 1 and Game.objects.count() == before


def test_a_site_get_runs_once_more_then_answers_the_friendly_page(
    outage: Outage, site: Client, game: Game
) -> None:
    outage.remaining = 1
    assert site.get(f"/games/{game.pk}/").status_code == 200
    outage.remaining, outage.raised = FOREVER, 0
    response = site.get(f"/games/{game.pk}/")
    # Met first in a middleware (the player's time zone reads the session), before any view.
    _assert_page_unavailable(response)
    assert outage.raised == 2


def test_a_site_post_answers_the_friendly_page_at_once(outage: Outage, site: Client, game: Game) -> None:
    outage.remaining = 1
    response = site.post(f"/games/{game.pk}/chat/", {"text": "ahoy"})
    _assert_page_unavailable(response)
    assert outage.raised == 1


def test_a_failure_in_a_view_after_the_middleware_is_a_503_too(
    outage: Outage, site: Client, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.views import table

    def lost(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(table, "chat_post", lost)
    _assert_page_unavailable(site.post(f"/games/{game.pk}/chat/", {"text": "ahoy"}))


def test_other_errors_stay_500(site: Client, game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    from games.views import table

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(table, "chat_post", broken)
    response = site.post(f"/games/{game.pk}/chat/", {"text": "ahoy"})
    assert response.status_code == 500 and "Retry-After" not in response
