"""Reading settings from the environment, with errors a person can act on.

Every problem found here is raised as ``ConfigError`` whose message is one line naming the
variable and what to do. The entry points (manage.py, wsgi, celery) print that line and exit
instead of showing a traceback.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured


class ConfigError(ImproperlyConfigured):
    """A setting is missing or malformed; the message says which and how to fix it."""


# The key development runs with when SECRET_KEY is not set (DJANGO_DEBUG on only). Production
# settings never take it; ``mail_ingest`` refuses to run with it (see that command).
DEV_SECRET_KEY = "dev-only-insecure-key-never-used-in-production"

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean: use 1/0, true/false, yes/no or on/off")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if not value >= 0:  # also refuses nan
        raise ConfigError(f"{name}={raw!r} must be 0 or more")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def require(name: str, why: str) -> str:
    value = os.environ.get(name, "").strip()
    if not value:
        raise ConfigError(f"{name} must be set {why}")
    return value
