"""One shape for every API error: ``{"error": "<code>", "detail": "<message>"}``.

Service errors carry their own code, status and extras (a stale ``expected_seq`` adds
``current_seq``); DRF's own exceptions, Django's 404 and its refusals of unreadable bodies
(too large: 413) are mapped to codes here, a lost database connection is a 503 ``unavailable``
with ``Retry-After``, and an unexpected exception becomes a logged JSON 500 instead of an HTML
page.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games import unavailable
from games.services.errors import ServiceError, Throttled
from games.throttling import in_words, retry_after

logger = logging.getLogger("games.api")

# DRF exception class → the stable code clients can switch on.
_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.ParseError, "malformed_json"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "authentication_failed"),
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
    (exceptions.ValidationError, "invalid"),
)


def error_body(code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": code, "detail": detail, **extra}


def _first_message(detail: Any, path: str = "") -> str:
    """The first message of a (possibly nested) DRF error detail, prefixed with its field."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else (f"{path}.{key}" if path else str(key))
            return _first_message(value, name)
        return "Invalid input."
    if isinstance(detail, list):
        return _first_message(detail[0], path) if detail else "Invalid input."
    return f"{path}: {detail}" if path else str(detail)


def _api_exception_body(exc: exceptions.APIException) -> dict[str, Any]:
    code = next((name for cls, name in _CODES if isinstance(exc, cls)), None)
    if isinstance(exc, exceptions.ValidationError):
        return error_body("invalid", _first_message(exc.detail), fields=exc.detail)
    if isinstance(exc, exceptions.ParseError):
        return error_body("malformed_json", f"The request body is not valid JSON: {exc.detail}")
    if isinstance(exc, exceptions.Throttled):
        wait = retry_after(getattr(exc, "wait", None) or 1)
        detail = f"Too many requests of this kind. Try again in {in_words(wait)}."
        return error_body("throttled", detail, wait=wait)
    return error_body(code or str(exc.default_code), str(exc.detail))


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """``REST_FRAMEWORK["EXCEPTION_HANDLER"]``."""
    if isinstance(exc, ServiceError):
        set_rollback()
        wait = exc.extra.get("wait") if isinstance(exc, Throttled) else None
        return Response(
            error_body(exc.code, exc.detail, **exc.extra),
            status=exc.status,
            headers={"Retry-After": str(wait)} if wait is not None else None,
        )
    if unavailable.is_lost(exc):
        # The database went away (a restart): a 503 the client may retry, not a 500. The
        # site's middleware runs a GET once more before answering it (games/unavailable.py).
        set_rollback()
        logger.warning("database unavailable in %s: %s", getattr(context.get("request"), "path", "?"), exc)
        response = Response(unavailable.api_body(), status=status.HTTP_503_SERVICE_UNAVAILABLE)
        unavailable.mark_api_response(response)
        return response
    if isinstance(exc, RequestDataTooBig):
        # Django's own size check (DATA_UPLOAD_MAX_MEMORY_SIZE), met when the body is read.
        return Response(
            error_body("too_large", "The request body is too large."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, SuspiciousOperation | BadRequest):
        # Too many form fields or files, a malformed multipart body: the request's fault.
        return Response(error_body("bad_request", "The request could not be read."), status=400)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, exceptions.APIException):
        headers: dict[str, str] = {}
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            headers["Retry-After"] = str(retry_after(wait))
        set_rollback()
        return Response(_api_exception_body(exc), status=exc.status_code, headers=headers)
    request = context.get("request")
    logger.exception("Unhandled error in %s", getattr(request, "path", "an API view"), exc_info=exc)
    set_rollback()
    return Response(
        error_body("server_error", "Something went wrong on our side; it has been logged."),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any URL under /api/ that matches no endpoint (whatever the method: it changes nothing)."""
    return JsonResponse(
        error_body("not_found", f"No API endpoint at /{request.path.lstrip('/')}."), status=404
    )
