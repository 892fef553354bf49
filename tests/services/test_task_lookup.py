"""The first task lookups of a web process may come from several threads at once (a threaded
server's first requests): each finds its task, none sees the tasks modules half imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREADS = 8
FIRST_LOOKUPS = f"""
import threading

import django

django.setup()
from games.outbox import RELAY_TASK, task_named

barrier = threading.Barrier({THREADS})
found = []


def look():
    barrier.wait()
    try:
        found.append(task_named(RELAY_TASK).name)
    except Exception as error:
        found.append(type(error).__name__)


threads = [threading.Thread(target=look) for _ in range({THREADS})]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(" ".join(found))
"""


def test_threads_looking_up_a_task_at_once_in_a_new_process_all_find_it() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pirates_site.settings"}
    # Fresh processes, several of them: the race is in each process's first lookups.
    for _ in range(4):
        run = subprocess.run(
            [sys.executable, "-c", FIRST_LOOKUPS],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["games.relay"] * THREADS, run.stdout
