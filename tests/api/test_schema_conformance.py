"""The endpoints of rematches, crews, player pages, ratings, webhooks and the site's other
actions (invitations, chat, take-back, resign, ``/api/me/``) answer as the OpenAPI schema says:
Schemathesis sends generated requests from a player who has a crew, a finished and rated game
and a running one, and checks each answer's status code, content type and body against the
schema, besides finding no server error (tests/api/test_schema.py checks that for every
operation, with spoiled input too)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from games.services.crews import crew_create, crew_invitation_accept, crew_invite
from tests.api.test_schema import keep_test_connection, wsgi_app
from tests.module_rows import module_rows
from tests.services.ratings_support import finish, new_game, relay_all
from tests.services.support import make_users, started_game

__all__ = ["keep_test_connection"]

FRIENDS_AND_PARITY = (
    r"^/api/(players|ratings|crews|me|invitations"
    r"|games/\{game_id\}/(rematch|answer|webhooks|invitations|chat|take-back|resign))"
)
schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app).include(path_regex=FRIENDS_AND_PARITY)


@pytest.fixture(scope="module")
def player_token(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """The token of a player with a crew, a finished and rated game and a running one, made
    once for the module's operations (tests/module_rows.py)."""
    with module_rows(django_db_blocker):
        users = make_users(3, prefix="conform")
        crew = crew_create(by=users[0], name="Gulls")
        for user in users[1:]:
            (invitation,) = crew_invite(crew_id=crew.pk, by=users[0], emails=[user.email])
            crew_invitation_accept(token=invitation.token, user=user)
        finish(new_game(users), seed=1)
        relay_all()  # the ratings side effect
        started_game(users)
        yield Token.objects.create(user=users[0]).key


@pytest.fixture
def token_header(db: None, keep_test_connection: None, player_token: str) -> dict[str, str]:
    return {"Authorization": f"Token {player_token}"}


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_answers_conform_to_the_schema(case: Any, token_header: dict[str, str]) -> None:
    response = case.call(headers=token_header)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
