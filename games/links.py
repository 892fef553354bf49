"""Signed, expiring links that log a person in and take them to a page (from an email).

A link carries the user's id, the path to open, and a fingerprint of the user's password and
last login, so it stops working after a password change or after it was used to log in.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.utils.crypto import salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme

SALT = "games.login-link"
DEFAULT_MAX_AGE = timedelta(days=7)


def _fingerprint(user: User) -> str:
    last_login = user.last_login.replace(microsecond=0, tzinfo=None).isoformat() if user.last_login else ""
    return salted_hmac(SALT, f"{user.pk}:{user.password}:{last_login}").hexdigest()[:16]


def login_token(user: User, next_path: str) -> str:
    return signing.dumps({"u": user.pk, "n": next_path, "f": _fingerprint(user)}, salt=SALT, compress=True)


def login_url(user: User, next_path: str) -> str:
    """An absolute URL that logs ``user`` in and opens ``next_path`` (a path on this site)."""
    from django.urls import reverse

    return f"{settings.SITE_URL}{reverse('login-link', args=[login_token(user, next_path)])}"


def user_for_token(
    token: str, max_age: timedelta = DEFAULT_MAX_AGE, current_user_id: object = None
) -> tuple[User, str] | None:
    """The user and path of a valid, unexpired token; ``None`` otherwise.

    A token logs in once (logging in changes the fingerprint). Its owner, already logged in,
    can still follow it to the page it names.
    """
    try:
        data = signing.loads(token, salt=SALT, max_age=max_age)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("n"), str):
        return None
    user = get_user_model().objects.filter(pk=data["u"], is_active=True).first()
    if user is None:
        return None
    if data.get("f") != _fingerprint(user) and current_user_id != user.pk:
        return None
    next_path = data["n"]
    if not next_path.startswith("/") or not url_has_allowed_host_and_scheme(next_path, allowed_hosts=None):
        next_path = "/"
    return user, next_path
