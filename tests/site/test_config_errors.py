"""A broken setting gives one clear error line, not a traceback wall."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.realservers import ROOT


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_DEBUG"}}
    base.pop("DATABASE_URL", None)
    base.update(env)
    return subprocess.run(args, cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)


def _one_clear_line(result: subprocess.CompletedProcess[str], words: str) -> str:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert lines[0].startswith("Configuration error:")
    assert words in lines[0]
    return lines[0]


def test_production_without_secret_key() -> None:
    result = _run([sys.executable, "manage.py", "check"], DJANGO_DEBUG="0", ALLOWED_HOSTS="example.org")
    _one_clear_line(result, "SECRET_KEY must be set")


def test_production_without_allowed_hosts() -> None:
    result = _run([sys.executable, "manage.py", "check"], DJANGO_DEBUG="0", SECRET_KEY="x" * 50)
    _one_clear_line(result, "ALLOWED_HOSTS must be set")


def test_malformed_boolean() -> None:
    result = _run([sys.executable, "manage.py", "check"], DJANGO_DEBUG="maybe")
    _one_clear_line(result, "DJANGO_DEBUG='maybe' is not a boolean")


def test_unreachable_database() -> None:
    result = _run(
        [sys.executable, "manage.py", "migrate"],
        DATABASE_URL="postgres://app:app@127.0.0.1:1/app",
        DB_CONNECT_TIMEOUT="2",
    )
    line = _one_clear_line(result, "cannot reach the database at 127.0.0.1")
    assert "DATABASE_URL" in line


def test_celery_worker_refuses_broken_config() -> None:
    result = _run([sys.executable, "-m", "celery", "-A", "pirates_site", "worker"], DJANGO_DEBUG="0")
    _one_clear_line(result, "SECRET_KEY must be set")


@pytest.mark.parametrize("command", ["web", "worker", "beat"])
def test_production_commands_refuse_broken_config(command: str) -> None:
    result = _run(
        [str(ROOT / "docker" / "commands" / command)],
        DJANGO_DEBUG="0",
        BIND="127.0.0.1:0",
        WEB_CONCURRENCY="1",
    )
    assert result.returncode != 0
    assert "Configuration error: SECRET_KEY must be set" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_throttle_rate() -> None:
    """A throttle rate the throttles could not read stops start-up, not a log-in."""
    result = _run([sys.executable, "manage.py", "check"], THROTTLE_RATES="login=5")
    _one_clear_line(result, "THROTTLE_RATES: 'login=5' should be SCOPE=N/second|minute|hour|day")


def test_visibility_timeout_must_outlast_the_longest_email_retry() -> None:
    """A waiting email retry would otherwise be handed out again by Redis."""
    result = _run(
        [sys.executable, "manage.py", "check"], CELERY_VISIBILITY_TIMEOUT="600", EMAIL_RETRY_MAX_SECONDS="600"
    )
    _one_clear_line(result, "CELERY_VISIBILITY_TIMEOUT must be longer than EMAIL_RETRY_MAX_SECONDS")


@pytest.mark.parametrize(
    ("env", "words"),
    [
        ({"EMAIL_CLAIM_SECONDS": "0"}, "EMAIL_CLAIM_SECONDS must be at least 1"),
        ({"EMAIL_HOST": "smtp.example.org", "EMAIL_TIMEOUT": "10", "EMAIL_CLAIM_SECONDS": "20"},
         "three times EMAIL_TIMEOUT"),
        ({"EMAIL_CLAIM_SECONDS": "soon"}, "EMAIL_CLAIM_SECONDS='soon' is not a whole number"),
    ],
)
def test_an_email_claim_shorter_than_a_send_is_refused(env: dict[str, str], words: str) -> None:
    """A claim that runs out while its sender still talks to the mail server sends twice."""
    _one_clear_line(_run([sys.executable, "manage.py", "check"], **env), words)
