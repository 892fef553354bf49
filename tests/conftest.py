"""Shared test setup: real-server markers, eager Celery by default, a real worker on demand."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import realservers

# Emptying the test database between transactional tests is one TRUNCATE of every table, which
# the event log's trigger refuses (games/migrations/0010). The suite runs as the tables' owner,
# which may switch that trigger off: the flush does so inside its own transaction, and only it.
NO_TRUNCATE_TRIGGER = "games_event_no_truncate"


def _flush_past_the_truncate_trigger() -> None:
    from django.db.backends.postgresql.operations import DatabaseOperations

    plain = DatabaseOperations.sql_flush

    def sql_flush(self: DatabaseOperations, style: Any, tables: Any, **kwargs: Any) -> list[str]:
        statements: list[str] = plain(self, style, tables, **kwargs)
        if "games_event" not in tables or not statements:
            return statements
        table = self.quote_name("games_event")
        trigger = self.quote_name(NO_TRUNCATE_TRIGGER)
        return [
            f"ALTER TABLE {table} DISABLE TRIGGER {trigger}",
            *statements,
            f"ALTER TABLE {table} ENABLE TRIGGER {trigger}",
        ]

    DatabaseOperations.sql_flush = sql_flush  # type: ignore[method-assign,assignment]


_flush_past_the_truncate_trigger()


def _problem_for(marker: str) -> str | None:
    if marker == "postgres":
        return realservers.postgres_problem()
    if marker in ("redis", "celery_worker"):
        return realservers.redis_problem()
    if marker == "browser":
        return realservers.browser_problem()
    if marker == "postfix":
        return realservers.postfix_problem()
    if marker == "faults":
        from tests.faults.harness import faults_problem

        return faults_problem()
    return None  # smtp: the tests start their own SMTP server


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker in realservers.REAL_SERVER_MARKERS:
        if item.get_closest_marker(marker) is not None:
            problem = _problem_for(marker)
            if problem:
                pytest.skip(f"[{marker}] {problem}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    needs_real = any(item.get_closest_marker(m) is not None for m in realservers.REAL_SERVER_MARKERS)
    if report.skipped and needs_real and os.environ.get("REQUIRE_REAL_SERVERS") == "1":
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"REQUIRE_REAL_SERVERS=1 but this real-server test skipped: {reason}"


@contextmanager
def celery_eager() -> Iterator[None]:
    """Tasks run in-process unless a test starts a real worker."""
    from pirates_site.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


@pytest.fixture(autouse=True)
def _celery_eager() -> Iterator[None]:
    with celery_eager():
        yield


@contextmanager
def accounts_verified() -> Iterator[None]:
    """Accounts a test makes directly (``create_user``) have verified their address, as the
    accounts ``createuser`` makes do: the suite is about games, not addresses. Sign-up through
    the site still starts unverified (the view says so), and ``tests.accounts.unverified_user``
    makes an unverified account explicitly."""
    from django.contrib.auth import get_user_model
    from django.db.models.signals import post_save

    def verify(sender: Any, instance: Any, created: bool, raw: bool = False, **kwargs: Any) -> None:
        if created and not raw and instance.email:
            from games.services.accounts import mark_verified

            mark_verified(instance)

    model = get_user_model()
    uid = f"tests-accounts-verified-{id(verify)}"
    post_save.connect(verify, sender=model, dispatch_uid=uid)
    try:
        yield
    finally:
        post_save.disconnect(sender=model, dispatch_uid=uid)


@pytest.fixture(autouse=True)
def _accounts_verified_by_default() -> Iterator[None]:
    with accounts_verified():
        yield


@pytest.fixture(autouse=True)
def _turn_emails_without_grace(settings: Any) -> None:
    """Turn emails wait a grace period for take-backs; tests that do not test that
    send them at once (a real worker would otherwise hold them for a minute)."""
    settings.TURN_EMAIL_GRACE_SECONDS = 0


# Django's default hasher runs PBKDF2 a million times: half a CPU second for every account a
# test makes, more than most tests take otherwise. No test is about the hasher; the servers a
# test starts as processes check no password (their people come with tokens or links).
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings: Any) -> None:
    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS


# Strong bots think this many CPU seconds per move in tests: a bot game stays quick, and the
# search still runs (its first iterations are never cut by the clock, engine/search.py).
TEST_BOT_THINK_SECONDS = "0.02"


@pytest.fixture(autouse=True)
def _bots_think_briefly(settings: Any) -> None:
    settings.BOT_THINK_SECONDS = float(TEST_BOT_THINK_SECONDS)


# What the settings fixtures above set for each test, for setups shared by a module's tests
# (tests/module_rows.py), which run before any test's fixtures.
TEST_SETTINGS: dict[str, Any] = {
    "TURN_EMAIL_GRACE_SECONDS": 0,
    "PASSWORD_HASHERS": FAST_PASSWORD_HASHERS,
    "BOT_THINK_SECONDS": float(TEST_BOT_THINK_SECONDS),
}


_LIMITS_PREFIXES = iter(range(1, 10**9))


@pytest.fixture(autouse=True)
def _throttle_counts_reset(settings: Any) -> Iterator[None]:
    """Throttle counts live in the shared "limits" cache (Redis when REDIS_URL is set, else a
    database table, so they outlive a test) and other things in the default cache: every test
    starts and ends with none. The limits cache gets a key prefix of its own per test (its
    table cannot be emptied before a test may touch the database); in Redis the keys go after."""
    limits = dict(settings.CACHES[settings.LIMITS_CACHE])
    limits["KEY_PREFIX"] = f"{limits.get('KEY_PREFIX', '')}-t{next(_LIMITS_PREFIXES)}"
    settings.CACHES = {**settings.CACHES, settings.LIMITS_CACHE: limits}
    _forget_throttle_counts("default")
    yield
    _forget_throttle_counts("default")
    if settings.LIMITS_CACHE in settings.CACHES:
        _forget_throttle_counts(settings.LIMITS_CACHE, database=False)


def _forget_throttle_counts(alias: str, *, database: bool = True) -> None:
    """Empties the cache ``alias``; in Redis only its prefix's keys go, never the whole db."""
    from django.conf import settings
    from django.core.cache import caches

    config: dict[str, Any] = settings.CACHES[alias]
    if not str(config["BACKEND"]).endswith("RedisCache"):
        if database or not str(config["BACKEND"]).endswith("DatabaseCache"):
            caches[alias].clear()
        return
    import redis

    client = redis.Redis.from_url(config["LOCATION"], socket_timeout=1, socket_connect_timeout=1)
    try:
        keys = list(client.scan_iter(match=f"{config.get('KEY_PREFIX', '')}:*", count=1000))
        if keys:
            client.delete(*keys)
    except redis.RedisError:
        pass  # no Redis: the throttles let everything through, so there is nothing to reset
    finally:
        client.close()


@dataclass
class CeleryWorker:
    log: Path

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def idle(self) -> bool:
        """Whether the worker has nothing owed now left to do (``realservers.celery_idle``):
        what proves that nothing more will come, without sleeping."""
        return realservers.celery_idle(self.text())

    def wait_idle(self, timeout: float) -> None:
        """Wait until the worker is idle at two looks in a row (a message between the broker's
        pop and the worker's log line looks idle once)."""
        deadline = time.monotonic() + timeout
        looks = 0
        while looks < 2:
            if time.monotonic() > deadline:
                tail = self.text()[-1500:]
                raise AssertionError(f"the worker still had work after {timeout:.0f}s:\n{tail}")
            looks = looks + 1 if self.idle() else 0
            time.sleep(0.1)


@pytest.fixture
def celery_worker_env() -> dict[str, str]:
    """Extra environment for the ``celery_worker`` process (for example EMAIL_HOST/EMAIL_PORT of
    a test's SMTP server, or BOT_MOVE_DELAY_SECONDS=0). Override this fixture in a test module."""
    return {}


@pytest.fixture
def celery_worker(
    transactional_db: None, tmp_path: Path, celery_worker_env: dict[str, str]
) -> Iterator[CeleryWorker]:
    """A real Celery worker process on Redis, sharing the test database.

    Tests using it must be ``@pytest.mark.celery_worker`` (and ``postgres``): the worker is a
    separate process, so it sees only committed rows of a PostgreSQL test database. Its
    environment is the test's plus ``celery_worker_env``.
    """
    from pirates_site.celery import app

    env = dict(os.environ)
    env.update(
        DATABASE_URL=realservers.shared_test_database_url(),
        DJANGO_DEBUG="1",
        VAR_DIR=str(tmp_path / "worker-var"),
        CELERY_TASK_ALWAYS_EAGER="0",
        # Turn emails wait a grace period for take-backs; a test's worker sends them at once.
        TURN_EMAIL_GRACE_SECONDS="0",
        # The strong bot thinks briefly, as in-process tests (``_bots_think_briefly``).
        BOT_THINK_SECONDS=TEST_BOT_THINK_SECONDS,
    )
    env.update(celery_worker_env)
    log = tmp_path / "celery-worker.log"
    app.conf.task_always_eager = False
    command = realservers.celery_worker_command(log)
    try:
        with realservers.started(command, env, tmp_path / "worker.out", "ready.", 60, ready_file=log):
            yield CeleryWorker(log)
    finally:
        app.conf.task_always_eager = True
