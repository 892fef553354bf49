"""Celery beat with a heartbeat file, and the health check that reads it.

Beat runs no tasks, so ``celery inspect ping`` cannot see it. Instead its scheduler touches a
file after every tick (a tick sends whatever is due, then beat sleeps until the next entry is
due: with the outbox relay every few seconds, a few seconds at most). A beat that hangs or
died stops touching it:

    celery -A pirates_site beat -S pirates_site.beat:HeartbeatScheduler   (docker/commands/beat)
    python pirates_site/beat.py                                           (the health check)

The check exits 0 when the file changed within ``BEAT_HEARTBEAT_MAX_AGE`` seconds (60), 1
otherwise. It is run by path, so it imports neither Django nor the project's settings: the
file is ``BEAT_HEARTBEAT_FILE``, else ``beat-heartbeat`` in ``VAR_DIR`` (default ``var/``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler

ROOT = Path(__file__).resolve().parent.parent


def heartbeat_file() -> Path:
    explicit = os.environ.get("BEAT_HEARTBEAT_FILE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("VAR_DIR") or ROOT / "var") / "beat-heartbeat"


def beat_is_alive(max_age: float, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    try:
        return now - heartbeat_file().stat().st_mtime <= max_age
    except OSError:
        return False


class HeartbeatScheduler(PersistentScheduler):
    """Beat's usual scheduler (its schedule kept in a file) that also touches the heartbeat."""

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval = float(super().tick(*args, **kwargs))
        path = heartbeat_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return interval


def main() -> int:
    max_age = float(os.environ.get("BEAT_HEARTBEAT_MAX_AGE") or 60)
    if beat_is_alive(max_age):
        return 0
    print(f"beat: no heartbeat in {heartbeat_file()} within {max_age:.0f}s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
