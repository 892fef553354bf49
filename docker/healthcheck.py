"""Container health checks: exit 0 when healthy, 1 otherwise. Standard library only (the slim
image has no curl, and a check should not load the application).

    python /app/docker/healthcheck.py          the web process: /healthz answers 200
    python /app/docker/healthcheck.py beat     Celery beat: its heartbeat file is fresh

Web: it asks the local gunicorn on the port from BIND (default 8000) and sends a Host header
taken from ALLOWED_HOSTS, because Django rejects requests for hosts it does not serve
(127.0.0.1 is usually not in ALLOWED_HOSTS). /healthz is exempt from the HTTPS redirect, so
plain HTTP is fine.

Beat: its scheduler (pirates_site.beat.HeartbeatScheduler) touches a file after every tick,
every few seconds; the check passes when the file changed within BEAT_HEARTBEAT_MAX_AGE
seconds (60). The file is BEAT_HEARTBEAT_FILE, else beat-heartbeat in VAR_DIR (the same rule
as pirates_site/beat.py; default var/ in the project root, /app/var in the image).
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _port() -> str:
    bind = os.environ.get("BIND", "0.0.0.0:8000")
    return bind.rsplit(":", 1)[1] if ":" in bind else "8000"


def _host() -> str:
    for host in os.environ.get("ALLOWED_HOSTS", "").split(","):
        host = host.strip().lstrip(".")
        if host and "*" not in host:
            return host
    return "localhost"


def web() -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{_port()}/healthz", headers={"Host": _host()})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return 0 if response.status == 200 else 1
    except (urllib.error.URLError, OSError) as exc:
        sys.stderr.write(f"healthz failed: {exc}\n")
        return 1


def beat() -> int:
    explicit = os.environ.get("BEAT_HEARTBEAT_FILE")
    path = Path(explicit) if explicit else Path(os.environ.get("VAR_DIR") or ROOT / "var") / "beat-heartbeat"
    max_age = float(os.environ.get("BEAT_HEARTBEAT_MAX_AGE") or 60)
    try:
        age = time.time() - path.stat().st_mtime
    except OSError as exc:
        sys.stderr.write(f"beat: no heartbeat file ({exc})\n")
        return 1
    if age > max_age:
        sys.stderr.write(f"beat: no heartbeat in {path} for {age:.0f}s (more than {max_age:.0f}s)\n")
        return 1
    return 0


def main(argv: list[str]) -> int:
    return beat() if argv[1:] == ["beat"] else web()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
