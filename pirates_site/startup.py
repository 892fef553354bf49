"""One clear line instead of a traceback when the configuration is broken.

The entry points call ``load_settings_or_exit`` before doing anything else. Problems that
only show on first use (a database that does not answer) are caught by ``explain_failure``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


# EX_TEMPFAIL: the mail server keeps the message and tries again later.
EX_TEMPFAIL = 75


def _failure_status() -> int:
    """2, except for ``manage.py mail_ingest`` run by a mail server's pipe: there any other
    status than 0 and 75 bounces the reply, so a configuration error defers it (75) and no
    reply is lost while the configuration is mended."""
    if os.path.basename(sys.argv[0]) == "manage.py" and sys.argv[1:2] == ["mail_ingest"]:
        return EX_TEMPFAIL
    return 2


def _fail(message: str) -> None:
    sys.stderr.write(f"Configuration error: {message}\n")
    raise SystemExit(_failure_status())


def load_settings_or_exit() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pirates_site.settings")
    from django.conf import settings

    from pirates_site.config import ConfigError

    try:
        settings.INSTALLED_APPS  # noqa: B018 - touching a setting loads the module
    except ConfigError as exc:
        _fail(str(exc))


def database_problem(exc: BaseException) -> str | None:
    """A one-line description when ``exc`` means the database cannot be reached."""
    from django.db import OperationalError

    if isinstance(exc, OperationalError):
        from django.conf import settings

        db = settings.DATABASES["default"]
        where = db.get("HOST") or db.get("NAME")
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"cannot reach the database at {where} (check DATABASE_URL): {first_line}"
    return None


def explain_failure(run: Callable[[], T]) -> T:
    try:
        return run()
    except Exception as exc:
        problem = database_problem(exc)
        if problem is None:
            raise
        _fail(problem)
        raise  # unreachable: _fail exits


if __name__ == "__main__":
    # `python -m pirates_site.startup`: check the configuration, as the web command does before
    # starting gunicorn (whose workers would otherwise fail to boot over and over).
    load_settings_or_exit()
