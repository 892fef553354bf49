"""The Celery lanes (queues) and the heartbeat files that prove a worker consumes its lane.

Two lanes: the main queue (``CELERY_QUEUE``: bot moves, the relay, the sweep) and the mail
queue (``CELERY_MAIL_QUEUE``: every task that sends an email, routed by task name in
settings), so a slow mail server slows only mail. ``docker/commands/worker`` consumes the
first, ``docker/commands/mailer`` the second.

A worker proves that it consumes, not only that its process is alive: beat sends
``games.heartbeat`` to each lane every ``WORKER_HEARTBEAT_SECONDS``, and whenever a worker
starts a task from a lane (the heartbeat or any other) it touches
``$VAR_DIR/worker-heartbeat-<queue>``. Its supervisor (``--liveness-file``) restarts a worker
whose file has gone stale, and ``docker/healthcheck.py worker|mailer`` reads the same file.

``python -m pirates_site.lane_env worker|mailer`` prints a lane's settings for the process
commands.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

# A queue name becomes part of a file name, a Redis key and the filesystem broker's message
# file names: letters, digits, "_", "-" and "." (not first, so never "." or "..").
QUEUE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")

# A process touches a lane's file at most this often (a busy worker starts many tasks).
_TOUCH_EVERY = 1.0
_touched: dict[str, float] = {}


def check_queue_name(setting: str, name: str) -> str:
    """``name`` if it is a usable queue name, else ValueError naming ``setting``."""
    if not QUEUE_NAME.fullmatch(name):
        raise ValueError(
            f"{setting} must be 1 to 100 letters, digits, '_', '-' or '.', not starting with '.' or '-'"
            f" (got {name!r})"
        )
    return name


def heartbeat_file(var_dir: Path, queue: str) -> Path:
    return Path(var_dir) / f"worker-heartbeat-{check_queue_name('queue', queue)}"


def record(var_dir: Path, queue: str, *, force: bool = False) -> bool:
    """Touch ``queue``'s heartbeat file: replaced atomically (a temporary file renamed over
    it), so a reader never sees a half-written one, and a fresh inode and mtime each time,
    which works the same natively and on a container's volume. Whether it was written (a
    touch less than a second after this process's last one is skipped unless ``force``)."""
    path = heartbeat_file(var_dir, queue)
    now = time.monotonic()
    if not force and now - _touched.get(str(path), float("-inf")) < _TOUCH_EVERY:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # readable like a file touched by hand (mkstemp makes it 0600)
        with os.fdopen(fd, "w") as out:
            out.write(f"{time.time():.3f} pid {os.getpid()} queue {queue}\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _touched[str(path)] = now
    return True
