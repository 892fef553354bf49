"""Where throttle counts live. With REDIS_URL set they are in Redis, shared by
every web process (a count made by one process binds the next); without it in a database table,
shared as well (tests/inbound/test_authenticity.py counts across two mail_ingest processes).
When that cache cannot be reached, the throttles let requests through instead of failing them."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from django.contrib.auth.models import User
from django.core.cache import caches
from pytest_django import Settings
from rest_framework.test import APIClient

from tests.realservers import redis_url
from tests.throttle_support import retry_after, set_rates

pytestmark = pytest.mark.django_db


def redis_cache(url: str) -> dict[str, Any]:
    config = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": "pbm",
        "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
    }
    return {"default": config, "limits": dict(config)}


def attempt(client: APIClient) -> int:
    body = {"username": "nobody", "password": "x"}
    return client.post("/api/auth/token/", body, format="json", REMOTE_ADDR="10.1.2.3").status_code


@pytest.mark.redis
def test_counts_live_in_redis_and_bind_every_process(settings: Settings) -> None:
    settings.CACHES = redis_cache(redis_url())
    set_rates(settings, login="2/minute")
    client = APIClient()
    assert [attempt(client), attempt(client)] == [400, 400]
    keys = redis.Redis.from_url(redis_url()).keys("pbm:*throttle_login_10.1.2.3")
    assert len(keys) == 1
    # Another process starts with no cache connection of its own; the count in Redis still binds it.
    caches["limits"].close()
    del caches["limits"]
    response = client.post(
        "/api/auth/token/", {"username": "a", "password": "b"}, format="json", REMOTE_ADDR="10.1.2.3"
    )
    assert retry_after(response) <= 60


def test_settings_choose_redis_when_redis_url_is_set() -> None:
    import subprocess
    import sys

    from tests.realservers import ROOT

    code = "from django.conf import settings; print(settings.CACHES['limits']['BACKEND'])"
    env = {
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "DJANGO_SETTINGS_MODULE": "pirates_site.settings",
        "PATH": "",
    }
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.stdout.strip() == "django.core.cache.backends.redis.RedisCache", shown.stderr
    env.pop("REDIS_URL")
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    # The embedded defaults: a table in the database, which every process shares too.
    assert shown.stdout.strip() == "django.core.cache.backends.db.DatabaseCache", shown.stderr


def test_an_unreachable_cache_lets_requests_through(settings: Settings) -> None:
    """Nothing listens on port 1: every count fails, and log-ins and game creation still work."""
    settings.CACHES = redis_cache("redis://127.0.0.1:1/0")
    set_rates(settings, login="1/minute")
    User.objects.create_user("anne", "anne@example.test", "sea-shanty-42")
    client = APIClient()
    codes = [attempt(client) for _ in range(3)]
    assert codes == [400, 400, 400]
    ok = client.post("/api/auth/token/", {"username": "anne", "password": "sea-shanty-42"}, format="json")
    assert ok.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {ok.json()['token']}")
    assert client.post("/api/games/", {"players": 3}, format="json").status_code == 201
