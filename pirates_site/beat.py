"""Celery beat's scheduler with a heartbeat file.

Beat runs no tasks, so no task can prove it alive (and the workers' remote control, which
``celery inspect ping`` used, is off). Instead its scheduler touches a file after every tick
(a tick sends whatever is due, then beat sleeps until the next entry is due: with the outbox
relay every few seconds, a few seconds at most). A beat that hangs or has
died stops touching it, ``docker/healthcheck.py beat`` says so, and its supervisor
(``docker/commands/beat``) restarts it. Beat also sends the workers' heartbeat tasks
(``games.heartbeat``, see pirates_site/lanes.py):

    celery -A pirates_site beat -S pirates_site.beat:HeartbeatScheduler   (docker/commands/beat)

The file is ``BEAT_HEARTBEAT_FILE``, else ``beat-heartbeat`` in ``VAR_DIR`` (default ``var/``):
read from the environment, as the health check does, which loads nothing of the project.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from celery.beat import PersistentScheduler

ROOT = Path(__file__).resolve().parent.parent


def heartbeat_file() -> Path:
    explicit = os.environ.get("BEAT_HEARTBEAT_FILE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("VAR_DIR") or ROOT / "var") / "beat-heartbeat"


class HeartbeatScheduler(PersistentScheduler):
    """Beat's usual scheduler (its schedule kept in a file) that also touches the heartbeat."""

    def tick(self, *args: Any, **kwargs: Any) -> float:
        interval = float(super().tick(*args, **kwargs))
        path = heartbeat_file()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        return interval
