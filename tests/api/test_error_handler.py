"""The exception handler turns every kind of failure into {"error", "detail"} JSON."""

from __future__ import annotations

import pytest
from django.http import Http404
from rest_framework import exceptions
from rest_framework.test import APIRequestFactory

from games.api.exceptions import exception_handler
from games.services.errors import StaleSeq

factory = APIRequestFactory()


@pytest.mark.parametrize(
    ("exc", "status", "code"),
    [
        (StaleSeq("moved on", current_seq=7), 409, "stale_seq"),
        (exceptions.ParseError("bad"), 400, "malformed_json"),
        (exceptions.ValidationError({"players": ["Required."]}), 400, "invalid"),
        (exceptions.NotAuthenticated(), 401, "not_authenticated"),
        (exceptions.PermissionDenied(), 403, "forbidden"),
        (exceptions.NotFound(), 404, "not_found"),
        (Http404("gone"), 404, "not_found"),
        (exceptions.MethodNotAllowed("PUT"), 405, "method_not_allowed"),
        (exceptions.Throttled(wait=3), 429, "throttled"),
        (RuntimeError("boom"), 500, "server_error"),
    ],
)
def test_every_error_is_json_with_a_code(exc: Exception, status: int, code: str) -> None:
    response = exception_handler(exc, {"request": factory.get("/api/games/")})
    assert response is not None and response.status_code == status
    assert response.data["error"] == code and isinstance(response.data["detail"], str)


def test_stale_seq_carries_the_current_seq_and_validation_names_the_field() -> None:
    stale = exception_handler(StaleSeq("moved on", current_seq=7), {})
    assert stale.data == {"error": "stale_seq", "detail": "moved on", "current_seq": 7}
    invalid = exception_handler(exceptions.ValidationError({"players": ["Required."]}), {})
    assert invalid.data["detail"] == "players: Required."
    throttled = exception_handler(exceptions.Throttled(wait=3), {})
    assert throttled["Retry-After"] == "3"
