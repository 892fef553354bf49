"""How often one client may knock on the doors that cost us something.

- Password guessing (web log-in and ``POST /api/auth/token/``): django-axes counts failed
  log-ins per username and address and locks that pair out for a cool-off; a per-address rate
  below stops one address from trying many usernames.
- Rates per address, account or email address: DRF's throttle classes (sliding windows kept in
  the ``limits`` cache, ``settings.LIMITS_CACHE``), used by the API views directly and by the
  HTML views through ``throttle``. That cache is Redis when ``REDIS_URL`` is set and a database
  table otherwise, so every process (each gunicorn worker, each ``mail_ingest``) counts together.
- Invitations also have a daily cap per user, counted in the database by the service.

Every refusal is a 429 with ``Retry-After``: JSON ``{"error": "throttled", ...}`` under
``/api/``, a short HTML page elsewhere.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger("games.throttling")

View = Callable[..., HttpResponseBase]


def client_ip(request: Any) -> str:
    """The caller's address: ``REMOTE_ADDR``, or behind ``TRUSTED_PROXY_COUNT`` proxies the entry
    the outermost trusted proxy appended to ``X-Forwarded-For`` (entries before it are the
    client's own word and could be anything). Axes and the throttles both use this."""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    if proxies > 0:
        hops = [hop.strip() for hop in str(request.META.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
        hops = [hop for hop in hops if hop]
        if len(hops) >= proxies:
            return hops[-proxies]
    return remote


class Throttle(SimpleRateThrottle):
    """A DRF throttle that counts only the methods that do something (POST), reads its rate at
    request time (so settings can change it), and lets requests through when the cache is down:
    a Redis outage must not lock everyone out of logging in."""

    scope: str = ""
    methods = frozenset({"POST"})

    def __init__(self) -> None:
        # The shared store, looked up per throttle (DRF's class attribute is the default cache,
        # which may be per process).
        self.cache = caches[settings.LIMITS_CACHE]
        super().__init__()

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES or {}
        if self.scope not in rates:
            raise ImproperlyConfigured(f"DEFAULT_THROTTLE_RATES has no rate for {self.scope!r}")
        rate = rates[self.scope]
        return None if rate is None else str(rate)

    def get_ident(self, request: Any) -> str:
        return client_ip(request)

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        try:
            return super().allow_request(request, view)
        except (RedisError, DatabaseError) as exc:
            logger.warning("Throttle %s skipped: the cache is unreachable (%s)", self.scope, exc)
            return True

    def key_for(self, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": ident}


class LoginThrottle(Throttle):
    """Log-in attempts (web form and API token) per address, whatever the username."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.key_for(self.get_ident(request))


class AccountEmailThrottle(Throttle):
    """Requests that email a log-in link or a password reset, per address."""

    scope = "account_email"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.key_for(self.get_ident(request))


class AccountEmailAddressThrottle(Throttle):
    """The same requests per email address asked for, from wherever they come: nobody can flood
    one inbox. The address is hashed, so the cache holds no addresses."""

    scope = "account_email_address"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        data = getattr(request, "data", None) or request.POST
        address = str(data.get("email", "")).strip().lower()
        if not address:
            return None
        return self.key_for(hashlib.sha256(address.encode()).hexdigest()[:32])


class SignupThrottle(Throttle):
    """Sign-ups per address: one client cannot mint accounts to get round the per-account
    limits."""

    scope = "signup"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.key_for(self.get_ident(request))


class SignupAddressThrottle(AccountEmailAddressThrottle):
    """Sign-ups per email address given (each one emails a verification link there)."""

    scope = "signup_address"


class UserThrottle(Throttle):
    """Per signed-in account (per address for anyone else, though these views need an account)."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = request.user
        ident = f"user-{user.pk}" if user.is_authenticated else self.get_ident(request)
        return self.key_for(ident)


class VerifyEmailThrottle(UserThrottle):
    """Verification links sent again, and address changes (each emails a link), per account."""

    scope = "verify_email"


class GameCreateThrottle(UserThrottle):
    scope = "game_create"


class InvitationThrottle(UserThrottle):
    scope = "invitation"


# A user name can be at most this long (the User model's field); axes stores the name tried in
# a column of 255 characters, so a longer guess is cut rather than breaking the log-in page.
USERNAME_MAX = 150


def axes_username(request: Any, credentials: dict[str, Any] | None = None) -> str | None:
    """The user name a log-in attempt tried, as axes records and locks it: at most
    ``USERNAME_MAX`` characters (no account has a longer one)."""
    source = credentials if credentials else getattr(request, "data", None) or getattr(request, "POST", {})
    username = source.get("username") if hasattr(source, "get") else None
    return None if username is None else str(username)[:USERNAME_MAX]


def retry_after(seconds: float) -> int:
    """Whole seconds, rounded up and at least 1: ``Retry-After: 0`` would invite a retry now."""
    return max(1, math.ceil(seconds))


def in_words(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} seconds"
    minutes = math.ceil(seconds / 60)
    if minutes < 90:
        return f"{minutes} minutes"
    return f"{math.ceil(minutes / 60)} hours"


def throttled_response(request: HttpRequest, seconds: float, detail: str) -> HttpResponse:
    """The 429 for a refused request: JSON under /api/, a page for people elsewhere."""
    wait = retry_after(seconds)
    text = f"{detail} Try again in {in_words(wait)}."
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": "throttled", "detail": text, "wait": wait}, status=429)
    else:
        response = render(request, "throttled.html", {"detail": text, "wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


def refusal(
    request: HttpRequest, *classes: type[Throttle], detail: str = "Too many requests of this kind."
) -> HttpResponse | None:
    """The 429 when any of ``classes`` refuses ``request``, else None (and the request counts).

    Every throttle sees the request (a refused one counts nowhere, as in DRF); the answer waits
    for the longest of those that refuse.
    """
    waits = []
    for cls in classes:
        limiter = cls()
        if not limiter.allow_request(request, None):
            waits.append(limiter.wait() or 1.0)
    if waits:
        return throttled_response(request, max(waits), detail)
    return None


def throttle(
    *classes: type[Throttle], detail: str = "Too many requests of this kind."
) -> Callable[[View], View]:
    """Decorates a Django view with DRF throttles, as ``throttle_classes`` does for an API view:
    if any refuses, the view does not run and the answer is a 429 (``refusal``)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            refused = refusal(request, *classes, detail=detail)
            if refused is not None:
                return refused
            return view(request, *args, **kwargs)

        return wrapped

    return decorate


def lockout_seconds(request: HttpRequest, credentials: dict[str, Any] | None) -> int:
    """How long the lock-out of this username and address still runs.

    Axes sums the failures of every row that matches (one per user agent) and still lies within
    the cool-off of its last failure; rows leave oldest first, so the lock ends when the newest
    rows that still add up to the limit have aged out. Failures during a lock-out are not
    recorded (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT), so hammering does not extend it.
    """
    cool_off = get_cool_off(request) or timedelta(0)
    limit = get_failure_limit(request, credentials)
    ends = []
    for attempts in AxesDatabaseHandler().get_user_attempts(request, credentials):
        total = 0
        for attempt in attempts.order_by("-attempt_time"):
            total += attempt.failures_since_start
            if total >= limit:
                ends.append(attempt.attempt_time + cool_off)
                break
    left = (max(ends) - timezone.now()).total_seconds() if ends else cool_off.total_seconds()
    return retry_after(left)


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict[str, Any] | None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: too many wrong passwords for this account from this address."""
    return throttled_response(
        request,
        lockout_seconds(request, credentials),
        "Too many failed log-ins for this account from your address.",
    )
