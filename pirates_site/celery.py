"""The Celery application. Tasks live in games/tasks.py; beat runs the periodic sweep."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task
from celery.signals import task_postrun, task_prerun
from celery.worker import state

from pirates_site import lanes
from pirates_site.broker_watch import BrokerWatch
from pirates_site.loop_timer import EverySecond
from pirates_site.startup import load_settings_or_exit

# A worker or beat started with a broken configuration says so in one line and exits.
load_settings_or_exit()

app = Celery("pirates_site", task_cls="pirates_site.broker_watch:WatchedTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


class BusyLanes(EverySecond):
    """A worker whose every pool slot is running a task takes no new message, heartbeats
    included, and must not be taken for a hung one: a slow mail server can hold an email for
    longer than the liveness max-age. So every second, from the worker's event loop, while
    all slots are taken, the lanes of the running tasks are recorded as alive. From the
    event loop on purpose: a worker whose main thread is blocked (the hang this guards
    against) runs no timers, and one with a free slot proves itself only by taking the next
    heartbeat. Not for the solo pool: its task blocks the loop, so no timer runs anyway."""

    requires = ("celery.worker.components:Hub", "celery.worker.components:Pool")

    @staticmethod
    def tick(w: Any) -> None:
        running = list(state.active_requests)
        if not running or len(running) < (w.concurrency or 1):
            return
        from django.conf import settings

        for request in running:
            queue = (request.delivery_info or {}).get("routing_key")
            if queue and lanes.QUEUE_NAME.fullmatch(queue):
                lanes.record(settings.VAR_DIR, queue)


app.steps["worker"].add(BusyLanes)
app.steps["worker"].add(BrokerWatch)


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
@task_postrun.connect
def _close_old_connections(task: Task | None = None, **kwargs: Any) -> None:
    """Before and after each task, what Django does before and after each request: close a
    database connection only if it is older than CONN_MAX_AGE or broken
    (``close_old_connections``; CONN_HEALTH_CHECKS then checks a kept one at its next use).
    Celery's own closing is off (CELERY_DB_REUSE_MAX in the settings): it reconnected for
    every task. Not for a task run in-process (eager): that is inside someone's request or
    transaction."""
    if task is None or task.request.is_eager:
        return
    from django.db import close_old_connections

    close_old_connections()


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
