"""The worker's resilience: the worker and beat run under a supervisor
that starts them again when they die; a worker killed with SIGKILL comes back and what it was
doing is published again after its outbox lease; the worker survives a Redis restart and the
loss of its database connection; beat's heartbeat file feeds its health check."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import User

from games import tasks
from games.models import Notification, Outbox
from games.services import game_create, game_start, seat_join
from pirates_site import beat
from pirates_site.celery import app as celery_app
from pirates_site.supervise import Supervisor
from tests import realservers
from tests.conftest import CeleryWorker
from tests.notifications.smtp_sink import wait_until

ROOT = realservers.ROOT
COMMANDS = ROOT / "docker" / "commands"
STARTED = re.compile(r"supervise\[(?:worker|mailer)\]: started pid (\d+)")


# ---------------------------------------------------------------------------------------------
# The supervisor itself (no servers)


def test_supervisor_restarts_a_dying_child_with_growing_pauses() -> None:
    crash = [sys.executable, "-c", "import sys; sys.exit(3)"]
    supervisor = Supervisor("crash", crash, min_delay=0.01, max_delay=0.04, healthy_after=60, max_restarts=4)
    assert supervisor.run() == 3
    assert supervisor.restarts == 4
    assert supervisor.delays == [0.01, 0.02, 0.04, 0.04]


def test_supervisor_starts_from_the_shortest_pause_after_a_healthy_run() -> None:
    short = [sys.executable, "-c", "import time; time.sleep(0.3)"]
    supervisor = Supervisor("short", short, min_delay=0.01, max_delay=1, healthy_after=0.2, max_restarts=2)
    supervisor.run()
    assert supervisor.delays == [0.01, 0.01]


def _supervised(tmp_path: Path, child: str) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp_path / "supervise.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "pirates_site" / "supervise.py"), "--name", "worker",
             "--min-delay", "0.1", "--", sys.executable, "-c", child],
            stdout=out, stderr=subprocess.STDOUT,
        )
    return process, log


def _child_pids(log: Path) -> list[int]:
    return [int(pid) for pid in STARTED.findall(log.read_text())]


def test_a_child_killed_with_sigkill_is_started_again_and_sigterm_stops_both(tmp_path: Path) -> None:
    sleeper = "\n".join([
        "import signal, sys, time",
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))",
        "print('child %s' % 'listening', flush=True)",  # the log shows the command too
        "time.sleep(90)",
    ])
    process, log = _supervised(tmp_path, sleeper)
    try:
        first = wait_until(lambda: _child_pids(log), 10, "the first child")[0]
        wait_until(lambda: "child listening" in log.read_text(), 10, "the first child to be ready")
        os.kill(first, signal.SIGKILL)
        pids = wait_until(lambda: len(_child_pids(log)) == 2 and _child_pids(log), 10, "a second child")
        wait_until(lambda: log.read_text().count("child listening") == 2, 10, "the second child to be ready")
        assert pids[0] == first and pids[1] != first
        assert "exited with status -9" in log.read_text()
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0, log.read_text()
        assert not realservers.process_alive(pids[1])
        assert "stopped (exit status 0)" in log.read_text()
    finally:
        realservers.stop(process)


# ---------------------------------------------------------------------------------------------
# Beat's heartbeat


def test_beat_health_check_reads_the_heartbeat_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    monkeypatch.delenv("BEAT_HEARTBEAT_FILE", raising=False)
    assert beat.heartbeat_file() == tmp_path / "beat-heartbeat"
    check = [sys.executable, str(ROOT / "docker" / "healthcheck.py"), "beat"]
    env = {**os.environ, "VAR_DIR": str(tmp_path)}
    never = subprocess.run(check, env=env, timeout=30, capture_output=True, text=True)
    assert never.returncode == 1 and "no heartbeat file" in never.stderr
    beat.heartbeat_file().touch()
    assert subprocess.run(check, env=env, timeout=30).returncode == 0
    os.utime(beat.heartbeat_file(), (time.time() - 120, time.time() - 120))
    stale = subprocess.run(check, env=env, timeout=30, capture_output=True, text=True)
    assert stale.returncode == 1 and "no heartbeat in" in stale.stderr


# ---------------------------------------------------------------------------------------------
# The real worker and beat (docker/commands), killed and cut off from Redis


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_DEBUG="1",
        DATABASE_URL=realservers.shared_test_database_url(),
        VAR_DIR=str(tmp_path / "var"),
        WORKER_CONCURRENCY="1",
        OUTBOX_RELAY_SECONDS="1",
        SWEEP_INTERVAL_SECONDS="30",
        BOT_MOVE_DELAY_SECONDS="0",
    )
    env.update(extra)
    env.pop("CELERY_BROKER_URL", None)
    return env


def _worker_started_times(log: Path) -> int:
    return log.read_text(errors="replace").count(" ready.")


def _noticed_outage(log_since: str) -> bool:
    """Whether a worker's log says it lost Redis: Celery's consumer reports the lost broker
    connection or failed reconnects, or the supervisor reports the worker's exit."""
    text = log_since.lower()
    signs = ("broker", "cannot connect", "connection refused", "exited with status")
    return any(sign in text for sign in signs)


def _ping(token: str, queue: str | None = None) -> None:
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        celery_app.send_task("games.ping", args=[token], ignore_result=True, queue=queue)
    finally:
        celery_app.conf.task_always_eager = previous


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.celery_worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_task_comes_back_and_the_task_is_published_again(tmp_path: Path) -> None:
    """A SIGKILLed worker stayed dead, and its acks-late tasks were parked for
    the broker's visibility timeout (an hour)."""
    # Each email takes 4 s to send, so the kill lands mid-send. Emails are the mailer's (the
    # mail lane); the worker runs the relay that publishes them. The killed sender's claim on
    # the email runs out after 8 s (then the republished task takes it over); its retries
    # while the claim is fresh come a second apart.
    env = _env(tmp_path, OUTBOX_LEASE_SECONDS="3", SLOW_MAIL_SECONDS="4",
               EMAIL_BACKEND="tests.notifications.helpers.SlowDummyBackend",
               EMAIL_CLAIM_SECONDS="8", EMAIL_RETRY_BASE_SECONDS="1", EMAIL_RETRY_MAX_SECONDS="2")
    log = tmp_path / "mailer.log"
    with (
        realservers.started([str(COMMANDS / "worker")], env, tmp_path / "worker.log", "ready.", 60),
        realservers.started([str(COMMANDS / "mailer")], env, log, "ready.", 60) as worker,
        realservers.started([str(COMMANDS / "beat")], env, tmp_path / "beat.log", "beat: Starting", 60),
        realservers.celery_broker(realservers.redis_url()),  # not eager: through the worker
    ):
        people = [User.objects.create_user(n, f"{n}@example.test", "a-long-password-1") for n in "xyz"]
        game = game_create(creator=people[0], rules_id="pirates", players=3)
        for person in people[1:]:
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=people[0])  # its commit nudges the relay: a turn email
        realservers.wait_for_log(log, "Task games.notify_turn", worker, 30)
        # The email is being sent: its notification is claimed (committed before the send).
        wait_until(lambda: Notification.objects.filter(game=game, claimed_at__isnull=False).exists(),
                   30, "the turn email's claim")
        celery_pid = _child_pids(log)[0]
        os.kill(celery_pid, signal.SIGKILL)

        wait_until(lambda: "exited with status -9" in log.read_text(), 30, "the supervisor to see the kill")
        wait_until(lambda: _worker_started_times(log) >= 2, 60, "the worker to be ready again")
        token = uuid.uuid4().hex
        _ping(token, settings.CELERY_MAIL_QUEUE)
        wait_until(lambda: f"pong:{token}" in log.read_text(), 30, "the restarted mailer to consume")

        # The lost task's row is published again after its 3 s lease (beat's relay, every
        # second), not after the broker's visibility timeout, and the email is sent once.
        row = Outbox.objects.get(game=game, kind=Outbox.Kind.TURN)
        wait_until(lambda: Outbox.objects.get(pk=row.pk).status == Outbox.Status.DONE, 60, "the row done")
        row.refresh_from_db()
        assert row.attempts >= 2
        notes = Notification.objects.filter(game=game, kind=Notification.Kind.TURN)
        assert [(n.key, n.sent_at is not None) for n in notes] == [("1", True)]


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.celery_worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_worker_comes_back_to_consuming_after_a_redis_restart(tmp_path: Path) -> None:
    """The worker could die when Redis stopped, and nothing restarted it."""
    problem = realservers.redis_server_problem()
    if problem:
        pytest.skip(problem)
    with realservers.own_redis(tmp_path / "redis") as redis_server:
        env = _env(tmp_path, REDIS_URL=redis_server.url)
        log = tmp_path / "worker.log"
        with (
            realservers.started([str(COMMANDS / "worker")], env, log, "ready.", 60),
            realservers.celery_broker(redis_server.url),
        ):
            before = uuid.uuid4().hex
            _ping(before)
            wait_until(lambda: f"pong:{before}" in log.read_text(), 30, "the first ping")

            redis_server.stop()
            # The worker notices: it loses its broker connection (and reconnects, or dies and
            # is started again once Redis is back).
            wait_until(lambda: _noticed_outage(log.read_text().split(f"pong:{before}", 1)[1]),
                       60, "the worker to notice the broker is gone")
            redis_server.start()
            # Published as soon as Redis answers, maybe before the worker is back: it waits
            # in the queue (append-only, as in production) until the worker consumes it.
            after = uuid.uuid4().hex
            _ping(after)
            wait_until(lambda: f"pong:{after}" in log.read_text(), 90, "a ping after the restart")


@pytest.fixture
def celery_worker_env() -> dict[str, str]:
    # Each email takes 3 s, so the database can drop the worker's connection mid-task.
    return {"SLOW_MAIL_SECONDS": "3", "EMAIL_BACKEND": "tests.notifications.helpers.SlowDummyBackend"}


@pytest.mark.postgres
@pytest.mark.celery_worker
@pytest.mark.django_db(transaction=True)
def test_a_task_retries_when_the_database_drops_its_connection(celery_worker: CeleryWorker) -> None:
    """A PostgreSQL restart failed turn-email tasks for good."""

    people = [User.objects.create_user(n, f"{n}@example.test", "a-long-password-1") for n in "xyz"]
    game = game_create(creator=people[0], rules_id="pirates", players=3)
    for person in people[1:]:
        seat_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, by=people[0])
    wait_until(lambda: "Task games.notify_turn" in celery_worker.text(), 30, "the turn email task")
    # It is sending (claimed, and no transaction is open while it does).
    wait_until(lambda: Notification.objects.filter(game=game, claimed_at__isnull=False).exists(),
               30, "the turn email's claim")

    # What a database restart does to the connection of a task in progress. The worker logs in
    # as the service's role (when there is one), and only a member of that role (or a superuser)
    # may end its connections: so the worker's own login ends them.
    with psycopg.connect(realservers.shared_test_database_url(), autocommit=True) as own:
        (terminated,) = own.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname ="
            " current_database() AND usename = current_user AND pid <> pg_backend_pid()"
        ).fetchone() or (0,)
    assert terminated >= 1
    done = Outbox.objects.filter(game=game, kind=Outbox.Kind.TURN, status=Outbox.Status.DONE)
    wait_until(done.exists, 60, "the email after a retry")
    # Dropped mid-send, the connection is met by the recording of the send, which tries again
    # on a new one; dropped before the send, it fails the task, which retries.
    text = celery_worker.text()
    assert "as sent failed; trying again" in text or "Retry in" in text
    note = Notification.objects.get(game=game, kind=Notification.Kind.TURN)
    assert note.key == "1" and note.sent_at is not None and note.claimed_at is None


@pytest.mark.celery_worker
@pytest.mark.postgres
def test_the_worker_keeps_its_database_connection_from_one_task_to_the_next(
    celery_worker: CeleryWorker,
) -> None:
    """Celery's Django fixup closed the worker's database connection around every task, so
    each turn email began with a new PostgreSQL backend: the worker keeps its connection from
    task to task as a web process keeps it from request to request (CONN_MAX_AGE); a broken
    one is still replaced (the test above)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (ours,) = cursor.fetchone()

    def worker_backends() -> set[int]:
        with psycopg.connect(realservers.shared_test_database_url(as_owner=True), autocommit=True) as look:
            rows = look.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND pid <> %s",
                [ours],
            ).fetchall()
        return {pid for (pid,) in rows}

    seen = []
    for _ in range(3):
        tasks.sweep.delay().get(timeout=60, disable_sync_subtasks=False)
        celery_worker.wait_idle(60)  # past the task's end, where Celery used to close it
        seen.append(worker_backends())
    assert seen[0], "the worker held no database connection after its task"
    assert seen[0] == seen[1] == seen[2], f"the worker's connections changed between tasks: {seen}"


class _Message:
    """What the broker watch reads of kombu's message."""

    def __init__(self, tag: str = "c1", no_ack: tuple[str, ...] = ()) -> None:
        self.acknowledged = False
        self.delivery_info = {"consumer_tag": tag}
        self.channel = type("Channel", (), {"no_ack_consumers": set(no_ack)})()


def test_the_broker_watch_reports_a_settle_the_broker_refused_once() -> None:
    """An ack Celery asked for that the broker has not taken SETTLE_SECONDS later is reported
    (the worker then reconnects); one the broker took, and one for a consumer that acks
    nothing, are not; each is forgotten once looked at."""
    from pirates_site import broker_watch

    taken, refused, no_ack = _Message(), _Message(), _Message("quiet", no_ack=("quiet",))
    broker_watch._settling[:] = [(100.0, "ack taken", taken), (100.0, "ack refused", refused),
                                 (100.0, "ack no-ack", no_ack)]
    taken.acknowledged = True
    try:
        assert broker_watch.unsettled(now=100.0 + broker_watch.SETTLE_SECONDS / 2) == []
        assert broker_watch.unsettled(now=100.0 + broker_watch.SETTLE_SECONDS) == ["ack refused"]
        assert broker_watch.unsettled(now=200.0) == []
        assert broker_watch._settling == []
    finally:
        broker_watch._settling.clear()
