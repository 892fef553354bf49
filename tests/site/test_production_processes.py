"""The production process commands (docker/commands/*) run natively with DEBUG off against the
real PostgreSQL and Redis: /healthz reports both healthy and a task sent through the broker
is executed by the worker while beat runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from pirates_site.celery import app as celery_app
from tests import realservers

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.celery_worker, pytest.mark.slow]


def _production_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_DEBUG="0",
        SECRET_KEY="ci-" + uuid.uuid4().hex * 2,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=realservers.shared_test_database_url(),
        REDIS_URL=realservers.redis_url(),
        VAR_DIR=str(tmp_path / "var"),
        WEB_CONCURRENCY="2",
        WORKER_CONCURRENCY="1",
        # Beat's sweep every second, so the test sees beat -> broker -> worker within seconds.
        SWEEP_INTERVAL_SECONDS="1",
    )
    env.pop("CELERY_BROKER_URL", None)
    return env


@pytest.mark.django_db(transaction=True)
def test_gunicorn_worker_and_beat_in_production_mode(tmp_path: Path) -> None:
    env = _production_env(tmp_path)
    port = realservers.free_port()
    env["BIND"] = f"127.0.0.1:{port}"
    commands = realservers.ROOT / "docker" / "commands"
    with (
        realservers.started([str(commands / "web")], env, tmp_path / "web.log", "Booting worker", 60),
        realservers.started([str(commands / "worker")], env, tmp_path / "worker.log", "ready.", 60) as worker,
        realservers.started([str(commands / "mailer")], env, tmp_path / "mailer.log", "ready.", 60) as mailer,
        realservers.started([str(commands / "beat")], env, tmp_path / "beat.log", "beat: Starting", 60),
    ):
        request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": "127.0.0.1"})
        body = _get_json_when_up(request)
        # Up or down only: which database and broker answer is nobody's business;
        # the task round trip below shows the worker on Redis.
        assert body == {"status": "ok", "database": {"ok": True}, "broker": {"ok": True}}

        token = uuid.uuid4().hex
        previous = celery_app.conf.task_always_eager
        celery_app.conf.task_always_eager = False
        try:
            # Not inside a task, whatever an earlier eager test left behind in Celery's task stack.
            sent = celery_app.send_task("games.ping", args=[token])
            reply = sent.get(timeout=30, disable_sync_subtasks=False)
        finally:
            celery_app.conf.task_always_eager = previous
        assert reply == f"pong:{token}"
        # The worker's output reaches its log through its supervisor: give the line a moment.
        realservers.wait_for_log(tmp_path / "worker.log", "games.ping", worker, 10)

        # Beat schedules the sweep and the outbox relay; the worker runs them.
        realservers.wait_for_log(tmp_path / "worker.log", "Task games.sweep", worker, 30)
        realservers.wait_for_log(tmp_path / "worker.log", "Task games.relay", worker, 30)
        assert "Sending due task sweep (games.sweep)" in (tmp_path / "beat.log").read_text()
        # Beat's heartbeat is fresh: its container health check passes.
        check = [sys.executable, str(realservers.ROOT / "docker" / "healthcheck.py"), "beat"]
        assert subprocess.run(check, env=env, timeout=30).returncode == 0
        # The mailer consumes the mail lane (beat sends each lane its heartbeat), and both
        # workers' heartbeat files are fresh: their container health checks pass.
        realservers.wait_for_log(tmp_path / "mailer.log", "Task games.heartbeat", mailer, 60)
        for lane in ("worker", "mailer"):
            check = [sys.executable, str(realservers.ROOT / "docker" / "healthcheck.py"), lane]
            assert subprocess.run(check, env=env, timeout=30).returncode == 0, lane

        # Production pages are served with security headers; plain HTTP is sent to HTTPS.
        home = urllib.request.Request(f"http://127.0.0.1:{port}/", headers={"Host": "127.0.0.1"})
        opener = urllib.request.build_opener(_NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as redirect:
            opener.open(home, timeout=10)
        assert redirect.value.code == 301
        assert redirect.value.headers["Location"].startswith("https://")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _get_json_when_up(request: urllib.request.Request) -> dict[str, Any]:
    import time

    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                data = json.loads(response.read())
                assert isinstance(data, dict)
                return data
        except (ConnectionError, urllib.error.URLError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
