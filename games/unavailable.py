"""A database outage answers 503 with ``Retry-After``, never 500.

A PostgreSQL restart breaks every persistent connection, and requests meet it as Django's
``OperationalError`` or ``InterfaceError`` wherever they first touch the database: in a view,
in DRF's authentication, in a middleware (the player's time zone), in a template. Each of
those places turns it into the same answer, marked as an outage:

- a view's exception: ``DatabaseUnavailableMiddleware.process_exception``;
- an API view's: DRF's handler sees it first (``games.api.exceptions``);
- anything else (a middleware): ``server_error``, the site's ``handler500``, which looks at
  the exception being handled.

``DatabaseUnavailableMiddleware`` (first in ``MIDDLEWARE``) then runs a GET, HEAD or OPTIONS
request once more with fresh connections, as a restart is usually over by then (and
``CONN_HEALTH_CHECKS`` replaces a broken connection at the next request anyway). Anything else
is answered as it is: the API with its JSON error ``unavailable``, the site with a short page
(``templates/503.html``) rendered without the request, so that no context processor queries
the database that is not there.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from csp.utils import build_policy
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.template.loader import render_to_string
from django.views.defaults import server_error as django_server_error

log = logging.getLogger(__name__)

LOST = (OperationalError, InterfaceError)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Seconds a client is asked to wait: a database restart takes a few.
RETRY_AFTER = 5
DETAIL = "The database is unavailable for a moment. Try again in a few seconds."
# Set on a response that answers an outage, so the middleware knows to run the request again.
MARK = "database_unavailable"


def is_lost(exc: BaseException | None) -> bool:
    return isinstance(exc, LOST)


def _mark(response: HttpResponseBase) -> HttpResponseBase:
    setattr(response, MARK, True)
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def is_marked(response: HttpResponseBase) -> bool:
    return bool(getattr(response, MARK, False))


def api_body() -> dict[str, str]:
    return {"error": "unavailable", "detail": DETAIL}


def mark_api_response(response: HttpResponseBase) -> HttpResponseBase:
    """For DRF's handler: its 503 is an outage answer like the others."""
    return _mark(response)


def unavailable_response(request: HttpRequest) -> HttpResponseBase:
    """The 503: the API's JSON error under /api/, the friendly page elsewhere."""
    if request.path.startswith("/api/"):
        return _mark(JsonResponse(api_body(), status=503))
    page = HttpResponse(render_to_string("503.html", {"retry_after": RETRY_AFTER}), status=503)
    # Made in a middleware (handler500), the page passes no CSP or framing middleware: its
    # own headers, the site's policy (the CSP middleware keeps a header already set).
    page["Content-Security-Policy"] = build_policy()
    page["X-Frame-Options"] = "DENY"
    return _mark(page)


def _forget_connections() -> None:
    """Close every connection that is not inside a transaction: the next query opens anew."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            try:
                connection.close()
            except LOST:
                log.debug("closing a broken connection failed", exc_info=True)


def server_error(request: HttpRequest) -> HttpResponseBase:
    """``handler500``: an outage met outside a view (a middleware) is a 503 too."""
    exc = sys.exc_info()[1]
    if is_lost(exc):
        log.warning("database unavailable for %s %s: %s", request.method, request.path, exc)
        return unavailable_response(request)
    return django_server_error(request)


class DatabaseUnavailableMiddleware:
    """First in ``MIDDLEWARE``: runs a safe request whose answer was an outage once more."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if is_marked(response) and request.method in SAFE_METHODS:
            log.info("database unavailable for %s %s; trying once more", request.method, request.path)
            _forget_connections()
            response = self.get_response(request)
        if is_marked(response):
            _forget_connections()
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if not is_lost(exception):
            return None
        log.warning("database unavailable for %s %s: %s", request.method, request.path, exception)
        return unavailable_response(request)
