"""Container health checks: exit 0 when healthy, 1 otherwise. Standard library only (the slim
image has no curl, and a check should not load the application).

    python /app/docker/healthcheck.py          the web process: /healthz answers 200
    python /app/docker/healthcheck.py beat     Celery beat: its heartbeat file is fresh
    python /app/docker/healthcheck.py worker   the main lane's worker: it consumes its queue
    python /app/docker/healthcheck.py mailer   the mail lane's worker: the same for mail

Web: it asks the local gunicorn on the port from BIND (default 8000) and sends a Host header
taken from ALLOWED_HOSTS, because Django rejects requests for hosts it does not serve
(127.0.0.1 is usually not in ALLOWED_HOSTS). /healthz is exempt from the HTTPS redirect, so
plain HTTP is fine.

Beat: its scheduler (pirates_site.beat.HeartbeatScheduler) touches a file after every tick,
every few seconds; the check passes when the file changed within BEAT_HEARTBEAT_MAX_AGE
seconds (60). The file is BEAT_HEARTBEAT_FILE, else beat-heartbeat in VAR_DIR (the same rule
as pirates_site/beat.py; default var/ in the project root, /app/var in the image).

Worker and mailer: beat sends a heartbeat task to each lane's queue every
WORKER_HEARTBEAT_SECONDS (15) and the worker consuming it touches
$VAR_DIR/worker-heartbeat-<queue> (for that task and every other it starts). The check passes
when the file changed within WORKER_LIVENESS_MAX_AGE seconds (120), the age after which the
worker's supervisor restarts it. The queue is CELERY_QUEUE (default pirates) for the worker,
CELERY_MAIL_QUEUE (default CELERY_QUEUE plus "-mail") for the mailer: the defaults of
pirates_site/settings.py, repeated here because a health check loads nothing of the project
(tests/site/test_lanes.py keeps the two in step). A worker that has never consumed, or has
stopped, fails; `celery inspect ping` cannot be used, as the remote control is off.
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


def _var_dir() -> Path:
    return Path(os.environ.get("VAR_DIR") or ROOT / "var")


def _fresh(who: str, path: Path, max_age: float) -> int:
    try:
        age = time.time() - path.stat().st_mtime
    except OSError as exc:
        sys.stderr.write(f"{who}: no heartbeat file ({exc})\n")
        return 1
    if age > max_age:
        sys.stderr.write(f"{who}: no heartbeat in {path} for {age:.0f}s (more than {max_age:.0f}s)\n")
        return 1
    return 0


def beat() -> int:
    explicit = os.environ.get("BEAT_HEARTBEAT_FILE")
    path = Path(explicit) if explicit else _var_dir() / "beat-heartbeat"
    return _fresh("beat", path, float(os.environ.get("BEAT_HEARTBEAT_MAX_AGE") or 60))


def worker_queue(lane: str) -> str:
    queue = os.environ.get("CELERY_QUEUE") or "pirates"
    return queue if lane == "worker" else os.environ.get("CELERY_MAIL_QUEUE") or f"{queue}-mail"


def worker_heartbeat_file(lane: str) -> Path:
    return _var_dir() / f"worker-heartbeat-{worker_queue(lane)}"


def worker(lane: str) -> int:
    max_age = float(os.environ.get("WORKER_LIVENESS_MAX_AGE") or 120)
    return _fresh(lane, worker_heartbeat_file(lane), max_age)


def main(argv: list[str]) -> int:
    what = argv[1:]
    if what == ["beat"]:
        return beat()
    if what in (["worker"], ["mailer"]):
        return worker(what[0])
    if what:
        sys.stderr.write(f"usage: {argv[0]} [beat|worker|mailer] (nothing: the web process)\n")
        return 1
    return web()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
