"""The web entry point prepares each worker as it starts: task publishing, so a worker's first
move does not pay for Celery's imports (without needing the broker up), and the garbage
collector, so its pauses stay out of the moves it serves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from tests.realservers import ROOT

PROBE = (
    "import sys; import pirates_site.wsgi; "
    "print('games.tasks' in sys.modules, 'kombu.transport.redis' in sys.modules)"
)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the probe runs


def test_worker_start_loads_tasks_and_transport_even_with_the_broker_down() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    env["REDIS_URL"] = f"redis://127.0.0.1:{_closed_port()}/0"
    env["DJANGO_SETTINGS_MODULE"] = "pirates_site.settings"
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


GC_PROBE = (
    "import gc, sys; import pirates_site.wsgi; "
    "print(gc.get_freeze_count() > 50000, gc.get_threshold()[0], 'games.api.views' in sys.modules)"
)


def test_worker_start_freezes_what_it_loaded_and_collects_less_often() -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL"}}
    env["DJANGO_SETTINGS_MODULE"] = "pirates_site.settings"
    result = subprocess.run(
        [sys.executable, "-c", GC_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "5000", "True"]
