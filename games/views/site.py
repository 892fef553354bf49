"""Site-wide pages: home, health check and the development outbox."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable
from functools import wraps
from typing import Any

from csp.constants import NONE, SELF, UNSAFE_INLINE
from csp.decorators import csp
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games.health import broker_status, database_status
from games.mail import outbox_entries, outbox_entry, outbox_message
from games.throttling import client_ip

log = logging.getLogger(__name__)


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Up or down, for load balancers and container health checks. Anyone can ask, so the
    answer names no server, driver or error: why a check failed goes to the log only."""
    db_ok, db_detail = database_status()
    broker_ok, broker_detail = broker_status()
    for name, ok, detail in (("database", db_ok, db_detail), ("broker", broker_ok, broker_detail)):
        if not ok:
            log.warning("healthz: the %s does not answer: %s", name, detail)
    healthy = db_ok and broker_ok
    body = {
        "status": "ok" if healthy else "unavailable",
        "database": {"ok": db_ok},
        "broker": {"ok": broker_ok},
    }
    return JsonResponse(body, status=200 if healthy else 503)


# The outbox shows every log-in link and has a reply box for every player: whoever sees it
# can play as anyone. So it answers only requests from this machine, also with DEBUG on.
OUTBOX_LOOPBACK_ONLY = (
    "The development outbox answers only requests from this machine (a loopback address such as "
    "127.0.0.1): it shows everyone's log-in links and reply boxes."
)


def is_loopback(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def dev_outbox(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Absent (404) unless DEV_OUTBOX_PAGE; refused (403, saying why) to any client that is not
    on this machine: the socket's peer and, behind trusted proxies, the client they name."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.DEV_OUTBOX_PAGE:
            raise Http404("The outbox page exists only in development.")
        if not (is_loopback(str(request.META.get("REMOTE_ADDR") or "")) and is_loopback(client_ip(request))):
            return HttpResponseForbidden(OUTBOX_LOOPBACK_ONLY, content_type="text/plain; charset=utf-8")
        return view(request, *args, **kwargs)

    return wrapped


@require_GET
@dev_outbox
def outbox_list(request: HttpRequest) -> HttpResponse:
    return render(request, "dev/outbox_list.html", {"entries": outbox_entries()})


@require_GET
@dev_outbox
def outbox_detail(request: HttpRequest, name: str) -> HttpResponse:
    entry = outbox_entry(name)
    if entry is None:
        raise Http404("No such email in the outbox.")
    return render(request, "dev/outbox_detail.html", {"entry": entry})


# What each outcome of a reply means, for the person who typed it in the reply box.
REPLY_OUTCOMES = {
    "played": "Your move was played; the confirmation is at the top of the outbox.",
    "problem": "Your reply was not played; the answer saying why is at the top of the outbox.",
    "stale": "The game had moved on; the answer is at the top of the outbox.",
    "not_running": "The game is not running; the answer is at the top of the outbox.",
    "joined": "You took the seat; the answer is at the top of the outbox.",
    "join_refused": "You could not take the seat; the answer is at the top of the outbox.",
    "sign_up": "That address has no account; the answer with the sign-up link is at the top of the outbox.",
    "duplicate": "That message was already delivered: nothing happened again.",
    "rate_limited": "Too many replies from that address for now: this one was ignored.",
}


@require_POST
@dev_outbox
def outbox_reply(request: HttpRequest, name: str) -> HttpResponse:
    """The reply box: a reply to an outbox email, as its recipient's mail client would write
    it, delivered the way a real reply is (``games.inbound.handle.receive``)."""
    from django.contrib import messages
    from django.shortcuts import redirect

    from games.inbound.compose import reply_to
    from games.inbound.handle import receive

    original = outbox_message(name)
    if original is None or not original.get("Reply-To"):
        raise Http404("No such email to reply to.")
    text = str(request.POST.get("text", ""))[:2000]
    outcome = receive(reply_to(original, text))
    note = REPLY_OUTCOMES.get(outcome.status, f"The reply was ignored ({outcome.status.replace('_', ' ')}).")
    messages.info(request, note)
    return redirect("outbox")


# An email's HTML carries inline styles (mail clients need them) and must never run anything:
# it gets a sandbox of its own and may be framed by this site's outbox page alone.
@csp(
    {
        "sandbox": [True],
        "default-src": [NONE],
        "style-src": [UNSAFE_INLINE],
        "img-src": ["data:"],
        "frame-ancestors": [SELF],
    }
)
@require_GET
@dev_outbox
def outbox_html(request: HttpRequest, name: str) -> HttpResponse:
    """The HTML part alone, shown in a sandboxed frame on the detail page."""
    entry = outbox_entry(name)
    if entry is None or entry.html is None:
        raise Http404("No HTML part.")
    response = HttpResponse(entry.html)
    response["X-Frame-Options"] = "SAMEORIGIN"
    return response


@require_GET
def login_link(request: HttpRequest, token: str) -> HttpResponse:
    """One click from an email: log in and open the page the link names."""
    from django.contrib import messages
    from django.contrib.auth import login
    from django.shortcuts import redirect

    from games.links import user_for_token

    found = user_for_token(token, current_user_id=request.user.pk if request.user.is_authenticated else None)
    if found is None:
        messages.error(request, "That link has expired or was already used. Log in to continue.")
        return redirect(settings.LOGIN_URL)
    user, next_path = found
    if not (request.user.is_authenticated and request.user.pk == user.pk):
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(next_path)
