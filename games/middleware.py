"""Refusing, before any view runs, request text that no database can store.

PostgreSQL's text and JSON types cannot hold a NUL character, and the driver raises as soon as
one reaches a query: a NUL in an invitation token in the URL, a session cookie, an API token or
a form field that a view passes on unchecked was a server error on PostgreSQL (SQLite stores it
silently). Django's form fields already refuse NULs; this covers every other way in, once.
JSON bodies of the API are checked by its parser (``games.api.parsers``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse, JsonResponse

from games.api.exceptions import error_body

PROBLEM = "The request contains a NUL character, which is not accepted anywhere."


def _has_nul(texts: Iterable[str]) -> bool:
    return any("\x00" in text for text in texts)


def _form_texts(request: HttpRequest) -> Iterable[str]:
    for key, values in request.POST.lists():
        yield key
        yield from values


def has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path:
        return True
    if _has_nul(str(value) for key, value in request.META.items() if key.startswith("HTTP_")):
        return True
    # Cookie values are unquoted when parsed: "\000" in the header is a NUL in the value.
    if _has_nul(key + value for key, value in request.COOKIES.items()):
        return True
    if _has_nul(key + "".join(values) for key, values in request.GET.lists()):
        return True
    # Form bodies of the web pages; the API reads its own bodies through its parsers, which
    # refuse NULs in JSON and pass form fields to serializer fields that refuse them too.
    return (
        request.method == "POST"
        and not request.path.startswith("/api/")
        and request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data")
        and _has_nul(_form_texts(request))
    )


class RefuseNulMiddleware:
    """A 400 for a NUL anywhere in the request (JSON under /api/, Django's 400 page elsewhere)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if has_nul(request):
            if request.path.startswith("/api/"):
                return JsonResponse(error_body("invalid", PROBLEM), status=400)
            raise BadRequest(PROBLEM)
        return self.get_response(request)
