"""The OpenAPI schema is valid and served; the offline docs page renders it; and Schemathesis
throws generated requests at every operation without a single server error: as the schema
describes them, and spoiled the ways that once gave server errors: JSON
nested deeper than the parser allows, and NULs (which PostgreSQL cannot store) in the body and
the query."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.contrib.auth.models import User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import not_a_server_error

from tests.services.support import make_users, started_game

wsgi_app = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app)
# Unpaired surrogates cannot even be encoded to be sent: test_server_errors.py sends them raw.
SPOILED_TEXT = {"nul": "a\x00b", "nul-alone": "\x00"}


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for level in range(depth):
        value = [value] if level % 2 else {"x": value}
    return value


def _with_text(value: Any, text: str) -> Any:
    """``value`` with every string (keys too) carrying ``text``."""
    if isinstance(value, str):
        return value + text
    if isinstance(value, list):
        return [_with_text(item, text) for item in value]
    if isinstance(value, dict):
        return {_with_text(key, text): _with_text(item, text) for key, item in value.items()}
    return value


def _spoil(case: Any, how: str, depth: int) -> Any:
    body = case.body if isinstance(case.body, dict) else None
    if how == "nested" and body is not None:
        case.body = {**body, next(iter(body), "x"): _nested(depth)}
    elif how in SPOILED_TEXT:
        if body is not None:
            case.body = _with_text(body, SPOILED_TEXT[how]) if body else {"x": SPOILED_TEXT[how]}
        if case.query:
            case.query = {key: _with_text(str(value), "\x00") for key, value in case.query.items()}
    return case


@schema.hook("flatmap_case")
def nested_or_unstorable(context: Any, case: Any) -> Any:
    """Half the cases as generated, the others nested too deep or carrying unstorable text."""
    hows = st.sampled_from(["as-generated", "as-generated", "nested", *SPOILED_TEXT])
    return st.tuples(hows, st.integers(21, 400)).map(lambda pair: _spoil(case, *pair))


@pytest.mark.django_db
def test_schema_lists_every_endpoint(anonymous: APIClient) -> None:
    response = anonymous.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/auth/token/",
        "/api/games/",
        "/api/games/{game_id}/",
        "/api/games/{game_id}/actions/",
        "/api/games/{game_id}/events/",
        "/api/games/{game_id}/replay/{seq}/",
        "/api/games/{game_id}/export/",
        "/api/games/{game_id}/join/",
        "/api/games/{game_id}/leave/",
        "/api/games/{game_id}/bots/",
        "/api/games/{game_id}/start/",
        "/api/games/{game_id}/abort/",
        "/api/games/{game_id}/rematch/",
        "/api/games/{game_id}/answer/",
        "/api/crews/",
        "/api/crews/{crew_id}/",
        "/api/crews/{crew_id}/invitations/",
        "/api/crews/{crew_id}/games/",
        "/api/crews/{crew_id}/webhooks/",
        "/api/crews/{crew_id}/webhooks/{hook_id}/",
        "/api/games/{game_id}/invitations/",
        "/api/games/{game_id}/chat/",
        "/api/games/{game_id}/take-back/",
        "/api/games/{game_id}/resign/",
        "/api/invitations/{token}/accept/",
        "/api/me/",
        "/api/players/{username}/",
        "/api/ratings/{rules}/",
        "/api/games/{game_id}/webhooks/",
        "/api/games/{game_id}/webhooks/{hook_id}/",
    ):
        assert path in paths, path
    actions = paths["/api/games/{game_id}/actions/"]["post"]
    assert actions["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/ActionInput")
    assert {"201", "200", "400", "403", "409"} <= set(actions["responses"])
    detail = response.json()["components"]["schemas"]["GameDetailOutput"]["properties"]
    assert detail["moves"]["items"]["$ref"].endswith("/MoveOutput")
    assert set(paths["/api/me/"]) >= {"get", "patch"}


@pytest.mark.django_db
def test_docs_page_works_offline(anonymous: APIClient) -> None:
    response = anonymous.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/api/games/{game_id}/actions/" in html and "ActionInput" in html
    assert "<script" not in html and "https://" not in html


@pytest.fixture
def keep_test_connection() -> Iterator[None]:
    """The raw WSGI app closes "old" connections around each request, and on PostgreSQL the
    test's open transaction makes the connection look old; Django's test client does the same."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def token_header(db: None, keep_test_connection: None) -> dict[str, str]:
    users: list[User] = make_users(3, prefix="fuzz")
    started_game(users)
    token = Token.objects.create(user=users[0])
    return {"Authorization": f"Token {token.key}"}


def errors_are_json(response: Any) -> None:
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body.get("error"), str) and isinstance(body.get("detail"), str), body


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
    derandomize=True,
)
def test_no_server_errors(case: Any, token_header: dict[str, str]) -> None:
    response = case.call(headers=token_header)
    case.validate_response(response, checks=[not_a_server_error])
    errors_are_json(response)
