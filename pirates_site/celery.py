"""The Celery application. Tasks live in games/tasks.py; beat runs the periodic sweep."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task
from celery.signals import task_prerun

from pirates_site import lanes
from pirates_site.startup import load_settings_or_exit

# A worker or beat started with a broken configuration says so in one line and exits.
load_settings_or_exit()

app = Celery("pirates_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _prepare_broker_folders(sender: Celery, **kwargs: object) -> None:
    """The filesystem broker needs its folders before the first message."""
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        folder = options.get(key)
        if folder:
            os.makedirs(folder, exist_ok=True)
    backend = str(sender.conf.result_backend or "")
    if backend.startswith("file://"):
        os.makedirs(backend[len("file://") :], exist_ok=True)


@task_prerun.connect
def _record_consumed(task: Task | None = None, **kwargs: Any) -> None:
    """A worker that starts a task from a lane has consumed it just now: touch that lane's
    heartbeat file too (at most once a second), so a worker whose slots are all busy working
    through a backlog, with the heartbeats queued behind it, still counts as consuming.
    Nothing for tasks run in-process (eager), which come from no queue."""
    if task is None or task.request.is_eager:
        return
    queue = (task.request.delivery_info or {}).get("routing_key")
    if not queue or not lanes.QUEUE_NAME.fullmatch(queue):
        return
    from django.conf import settings

    lanes.record(settings.VAR_DIR, queue)
