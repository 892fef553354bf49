"""The settings of one lane, as shell assignments for the process commands to ``eval``:

    eval "$(python -m pirates_site.lane_env worker)"     # or: mailer

checks the configuration (one clear line and exit status 2 when it is broken) and prints
``queue``, ``heartbeat_file`` and ``liveness_max_age`` of that lane, shell-quoted, so the
commands take the queue names and defaults from settings rather than repeating them.
(A module of its own: ``pirates_site.lanes`` is imported with the package, and ``-m`` on it
would run a second copy.)
"""

from __future__ import annotations

import shlex
import sys

from pirates_site import lanes


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] not in ("worker", "mailer"):
        sys.stderr.write("usage: python -m pirates_site.lane_env worker|mailer\n")
        return 2
    from pirates_site.startup import load_settings_or_exit

    load_settings_or_exit()
    from django.conf import settings

    queue = settings.CELERY_TASK_DEFAULT_QUEUE if argv[1] == "worker" else settings.CELERY_MAIL_QUEUE
    values = {
        "queue": queue,
        "heartbeat_file": str(lanes.heartbeat_file(settings.VAR_DIR, queue)),
        "liveness_max_age": str(settings.WORKER_LIVENESS_MAX_AGE),
    }
    for name, value in values.items():
        print(f"{name}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
