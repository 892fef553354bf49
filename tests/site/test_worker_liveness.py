"""The real worker, mailer and beat (docker/commands) on a Redis of the test's own: each lane's
heartbeat file is touched by the worker consuming that lane; a broker that stops answering
(redis-server stopped with SIGSTOP: it keeps accepting connections and answers nothing) gets
the silent workers restarted by their supervisors, and once it answers again both lanes
consume again; and a slow mail server holds up only the mail lane."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from games.models import Outbox
from games.services import game_create, game_start, seat_join
from pirates_site.celery import app as celery_app
from tests import realservers
from tests.notifications.smtp_sink import wait_until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.celery_worker, pytest.mark.slow]

COMMANDS = realservers.ROOT / "docker" / "commands"
HEALTHCHECK = realservers.ROOT / "docker" / "healthcheck.py"
LANES = ("worker", "mailer")


@dataclass
class Stack:
    tmp: Path
    env: dict[str, str]
    redis: realservers.RedisServer
    queue: str

    @property
    def mail_queue(self) -> str:
        return f"{self.queue}-mail"

    def log(self, lane: str) -> Path:
        return self.tmp / f"{lane}.log"

    def text(self, lane: str) -> str:
        return self.log(lane).read_text(errors="replace")

    def lane_queue(self, lane: str) -> str:
        return self.queue if lane == "worker" else self.mail_queue

    def heartbeat(self, lane: str) -> Path:
        return Path(self.env["VAR_DIR"]) / f"worker-heartbeat-{self.lane_queue(lane)}"

    def count(self, lane: str, pattern: str) -> int:
        return len(re.findall(pattern, self.text(lane)))

    def touched_since(self, lane: str, moment: float) -> bool:
        try:
            return self.heartbeat(lane).stat().st_mtime > moment
        except FileNotFoundError:
            return False

    def healthy(self, lane: str) -> bool:
        check = subprocess.run([sys.executable, str(HEALTHCHECK), lane], env=self.env, timeout=30,
                               capture_output=True)
        return check.returncode == 0

    def ping(self, lane: str) -> str:
        """A ping to ``lane``'s queue; the token its worker logs as answered."""
        token = uuid.uuid4().hex
        celery_app.send_task("games.ping", args=[token], queue=self.lane_queue(lane), ignore_result=True)
        return f"pong:{token}"


@pytest.fixture
def stack(tmp_path: Path, transactional_db: None) -> Iterator[Stack]:
    problem = realservers.redis_server_problem()
    if problem:
        pytest.skip(problem)
    queue = f"live-{uuid.uuid4().hex[:8]}"
    with ExitStack() as stack, realservers.own_redis(tmp_path / "redis") as redis_server:
        env = dict(os.environ)
        env.update(
            DJANGO_DEBUG="1",
            DATABASE_URL=realservers.shared_test_database_url(),
            REDIS_URL=redis_server.url,
            CELERY_QUEUE=queue,
            VAR_DIR=str(tmp_path / "var"),
            WORKER_CONCURRENCY="1",
            MAIL_WORKER_CONCURRENCY="1",
            # A heartbeat every second, a worker silent for 6 s is restarted.
            WORKER_HEARTBEAT_SECONDS="1",
            WORKER_LIVENESS_MAX_AGE="6",
            SWEEP_INTERVAL_SECONDS="30",
            OUTBOX_RELAY_SECONDS="1",
            BOT_MOVE_DELAY_SECONDS="0",
            TURN_EMAIL_GRACE_SECONDS="0",
            PYTHONUNBUFFERED="1",
        )
        for name in ("CELERY_BROKER_URL", "CELERY_MAIL_QUEUE", "CELERY_RESULT_BACKEND"):
            env.pop(name, None)
        stack.enter_context(realservers.celery_broker(redis_server.url))  # the test publishes there
        try:
            yield Stack(tmp_path, env, redis_server, queue)
        finally:
            stack.close()
            _resume(redis_server)  # a failed run may have left it stopped; own_redis shuts it down


def _start(stack: Stack, exits: ExitStack, *names: str) -> None:
    for name in names:
        ready = "beat: Starting" if name == "beat" else "ready."
        command = [str(COMMANDS / name)]
        exits.enter_context(realservers.started(command, stack.env, stack.log(name), ready, 90))


def _redis_pid(server: realservers.RedisServer) -> int:
    return int((server.folder / "redis.pid").read_text())


def _resume(server: realservers.RedisServer) -> None:
    pid_file = server.folder / "redis.pid"
    if pid_file.exists():
        with suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text()), signal.SIGCONT)


STOPPED = "no sign of life"
STARTED = r"supervise\[\w+\]: started pid"


def _wait_each(stack: Stack, what: str, condition: Callable[[str], bool], timeout: float) -> None:
    for lane in LANES:
        wait_until(partial(condition, lane), timeout, f"{what} ({lane})")


def _wait_grows(stack: Stack, pattern: str, before: dict[str, int], what: str, timeout: float) -> None:
    _wait_each(stack, what, lambda lane: stack.count(lane, pattern) > before[lane], timeout)


def _wait_answered(stack: Stack, pongs: dict[str, str], what: str, timeout: float) -> None:
    _wait_each(stack, what, lambda lane: pongs[lane] in stack.text(lane), timeout)


def _wait_touched(stack: Stack, since: float, what: str, timeout: float) -> None:
    _wait_each(stack, what, lambda lane: stack.touched_since(lane, since), timeout)


def test_each_lane_is_consumed_and_a_hung_broker_gets_the_workers_restarted(stack: Stack) -> None:
    with ExitStack() as exits:
        started = time.time()
        _start(stack, exits, "worker", "mailer", "beat")
        # Each lane's file is touched by the worker consuming that lane (beat's heartbeats).
        _wait_each(stack, "a heartbeat task", lambda lane: "Task games.heartbeat" in stack.text(lane), 60)
        _wait_touched(stack, started, "a heartbeat file", 60)
        for lane in LANES:
            assert f"queue {stack.lane_queue(lane)}" in stack.heartbeat(lane).read_text()
            assert stack.healthy(lane)
        # The lanes are separate: each worker answers the pings of its own queue only.
        pongs = {lane: stack.ping(lane) for lane in LANES}
        _wait_answered(stack, pongs, "a ping answered", 30)
        assert pongs["mailer"] not in stack.text("worker") and pongs["worker"] not in stack.text("mailer")

        redis_pid = _redis_pid(stack.redis)
        for round_ in (1, 2):  # the same recovery twice in a row
            stops = {lane: stack.count(lane, STOPPED) for lane in LANES}
            starts = {lane: stack.count(lane, STARTED) for lane in LANES}
            os.kill(redis_pid, signal.SIGSTOP)
            try:
                # Redis accepts connections and answers nothing: no heartbeat reaches a worker,
                # so each is stopped by its supervisor once its file is older than the max-age.
                _wait_grows(stack, STOPPED, stops, f"the supervisor to stop it, round {round_}", 90)
                assert not any(stack.healthy(lane) for lane in LANES)
            finally:
                os.kill(redis_pid, signal.SIGCONT)
            resumed = time.time()
            _wait_grows(stack, STARTED, starts, f"started again, round {round_}", 90)
            # Consuming again: a new ping answered on each lane, and fresh heartbeats.
            pongs = {lane: stack.ping(lane) for lane in LANES}
            _wait_answered(stack, pongs, f"a ping answered after the broker came back, round {round_}", 120)
            _wait_touched(stack, resumed, f"a fresh heartbeat, round {round_}", 60)
            assert all(stack.healthy(lane) for lane in LANES)
        for lane in LANES:
            assert f"supervise[{lane}]: no sign of life in {stack.heartbeat(lane)}" in stack.text(lane)


@pytest.fixture
def slow_mail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMAIL_BACKEND", "tests.notifications.helpers.SlowDummyBackend")
    monkeypatch.setenv("SLOW_MAIL_SECONDS", "30")


def test_a_slow_mail_server_holds_up_only_the_mail_lane(slow_mail: None, stack: Stack) -> None:
    """Each email takes 30 s: the bot-move lane answers meanwhile (with one shared lane and
    its slots busy sending, it waited for the mail server)."""
    with ExitStack() as exits:
        _start(stack, exits, "worker", "mailer", "beat")
        people = [User.objects.create_user(n, f"{n}@example.test", "a-long-password-1") for n in "xyz"]
        game = game_create(creator=people[0], rules_id="pirates", players=3)
        for person in people[1:]:
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=people[0])  # a turn email, on the mail lane
        wait_until(lambda: "Task games.notify_turn" in stack.text("mailer"), 60, "the mailer's email")
        turn = Outbox.objects.filter(game=game, kind=Outbox.Kind.TURN)
        assert turn.exclude(status=Outbox.Status.DONE).exists()  # being sent, slowly
        pong = stack.ping("worker")
        wait_until(lambda: pong in stack.text("worker"), 25, "the main lane to answer while mail is slow")
        assert turn.exclude(status=Outbox.Status.DONE).exists(), "the email finished first: nothing was shown"
        assert "Task games.notify_turn" not in stack.text("worker")
        wait_until(lambda: not turn.exclude(status=Outbox.Status.DONE).exists(), 90, "the email to be sent")
        # Busy for 30 s, five times the 6 s max-age, with its only slot taken: not taken for
        # a hung worker (the running task's lane is kept alive from the event loop), so the
        # email was sent once, by the mailer's first process.
        assert STOPPED not in stack.text("mailer")
        assert stack.count("mailer", STARTED) == 1
        assert stack.count("mailer", r"Task games.notify_turn\[[^]]+\] succeeded") == 1
