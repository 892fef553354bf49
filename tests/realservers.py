"""Finding and starting the real servers some tests need (PostgreSQL, Redis, Celery, Chromium).

Locally a test that needs a missing server skips with a reason. CI sets
REQUIRE_REAL_SERVERS=1, and then such a skip fails the run (see conftest.py).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
REAL_SERVER_MARKERS = ("postgres", "redis", "celery_worker", "smtp", "browser", "faults", "postfix")


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "")


def redis_problem() -> str | None:
    url = redis_url()
    if not url:
        return "needs a Redis server: set REDIS_URL (.ci/run does)"
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping()
    except Exception as exc:
        return f"Redis at {url} does not answer: {exc}"
    return None


def postgres_problem() -> str | None:
    from django.db import connection

    if connection.vendor != "postgresql":
        return "needs PostgreSQL: set DATABASE_URL=postgres://… (.ci/run does)"
    return None


def postfix_problem() -> str | None:
    if shutil.which("postfix", path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") is None:
        return "needs Postfix: install postfix (apt-get install postfix swaks; .ci/run does)"
    if os.geteuid() != 0:
        return "needs root: it starts a Postfix instance of its own and runs its pipe as another user"
    return None


FULL_CHROMIUMS = ("chromium", "chromium-browser", "google-chrome")


def _first_found(variable: str, names: tuple[str, ...]) -> str | None:
    candidate = os.environ.get(variable)
    if candidate and Path(candidate).exists():
        return candidate
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_path() -> str | None:
    """CHROMIUM_PATH, else the first Chromium found. The headless shell comes first: the same
    Chromium without the desktop browser around it, it costs about half the CPU a page load
    costs the full browser in headless mode (Debian's chromium-headless-shell: 0.08 against
    0.15 CPU seconds for a bare page, 0.25 against 0.43 for a game's table)."""
    return _first_found("CHROMIUM_PATH", ("chromium-headless-shell", *FULL_CHROMIUMS))


def full_chromium_path() -> str | None:
    """CHROMIUM_FULL_PATH, else the first desktop Chromium found: for what the headless shell
    leaves out, the Notification API."""
    return _first_found("CHROMIUM_FULL_PATH", FULL_CHROMIUMS)


def browser_problem() -> str | None:
    if chromium_path() is None:
        return ("needs Chromium: apt-get install chromium-headless-shell (or chromium), or set CHROMIUM_PATH "
                "(.ci/run does)")
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "needs the playwright package"
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def service_role() -> tuple[str, str] | None:
    """The service's own database role and its password, when the tests have one: the role
    migrations grant the service's privileges to (DATABASE_SERVICE_ROLE, which owns no table)
    and DATABASE_SERVICE_PASSWORD, the tests' way to log in as it (.ci/run sets both)."""
    from django.conf import settings

    role = settings.DATABASE_SERVICE_ROLE
    return (role, os.environ.get("DATABASE_SERVICE_PASSWORD", "")) if role else None


def service_role_problem() -> str | None:
    if service_role() is None:
        return (
            "needs the service's database role: set DATABASE_SERVICE_ROLE (a role that owns no table) "
            "and DATABASE_SERVICE_PASSWORD (.ci/run does)"
        )
    return None


def shared_test_database_url(*, as_owner: bool = False) -> str:
    """The URL of the database the tests are using right now (the test database), for another
    process: as the service's role when there is one (so real servers run as production runs
    them, unable to change the event log), else, or ``as_owner``, as the tests' own role."""
    from django.db import connection

    s = connection.settings_dict
    if connection.vendor != "postgresql":
        raise RuntimeError("only a PostgreSQL test database can be shared with another process")
    role = None if as_owner else service_role()
    login = role or (s.get("USER"), s.get("PASSWORD"))
    user = quote(str(login[0] or ""), safe="")
    password = quote(str(login[1] or ""), safe="")
    auth = f"{user}:{password}@" if password else f"{user}@"
    return f"postgres://{auth}{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


def wait_for_log(path: Path, needle: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        if needle in text:
            return
        if process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode} before {needle!r}:\n{text[-3000:]}")
        time.sleep(0.1)
    text = path.read_text(errors="replace") if path.exists() else ""
    raise RuntimeError(f"no {needle!r} after {timeout:.0f}s:\n{text[-3000:]}")


def stop(process: subprocess.Popen[bytes], grace: float = 10) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextmanager
def started(
    command: list[str],
    env: Mapping[str, str],
    log: Path,
    ready: str,
    timeout: float = 30,
    ready_file: Path | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """Starts ``command`` with its output in ``log``, waits for ``ready`` in it (or in
    ``ready_file`` when the program writes its own log), and stops it afterwards."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=dict(env), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        try:
            wait_for_log(ready_file or log, ready, process, timeout)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n--- output ---\n{log.read_text(errors='replace')[-2000:]}") from None
        yield process
    finally:
        stop(process)


def celery_worker_command(logfile: Path) -> list[str]:
    """One worker for both lanes (the main queue and the mail queue, as settings name them),
    so a test that starts one worker gets its bot moves and its emails."""
    from django.conf import settings

    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "pirates_site",
        "worker",
        "--pool=solo",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel=INFO",
        f"--queues={settings.CELERY_TASK_DEFAULT_QUEUE},{settings.CELERY_MAIL_QUEUE}",
        f"--logfile={logfile}",
    ]


_TASK_LINE = re.compile(r"Task ([\w.]+)\[([0-9a-f-]+)\] (received|succeeded|retry|raised|failed)")


def celery_idle(worker_log: str) -> bool:
    """Whether nothing owed now is still to happen, for a worker whose log (``--loglevel=INFO``)
    is ``worker_log``: no outbox row is due and unpublished, the broker holds no message waiting
    for the worker's queues, and every task the worker received has ended (a retry ends one
    attempt; its next attempt is received again) — except the relay's nudges, which wait for a
    row that is due later and only publish rows."""
    import redis
    from django.conf import settings
    from django.utils import timezone

    from games.models import Outbox

    received: dict[str, int] = {}
    ended: dict[str, int] = {}
    for name, task_id, what in _TASK_LINE.findall(worker_log):
        if name == "games.relay":
            continue
        counts = received if what == "received" else ended
        counts[task_id] = counts.get(task_id, 0) + 1
    if any(ended.get(task_id, 0) < count for task_id, count in received.items()):
        return False
    if Outbox.objects.filter(status=Outbox.Status.PENDING, due_at__lte=timezone.now()).exists():
        return False
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_MAIL_QUEUE)
        # kombu keeps one list per queue and priority (``<queue>`` and ``<queue>\x06\x16<n>``).
        waiting = sum(
            client.llen(key) for queue in queues for key in client.scan_iter(match=f"{queue}*", count=100)
            if client.type(key) == b"list"
        )
        return waiting == 0
    finally:
        client.close()


@contextmanager
def celery_broker(url: str, *, eager: bool = False) -> Iterator[None]:
    """This process's Celery app publishes to ``url`` (a private Redis, or a port where nothing
    listens) for the duration, not eagerly unless ``eager``; then everything is as before."""
    from pirates_site.celery import app

    names = ("broker_url", "broker_transport_options", "task_always_eager")
    saved = {name: app.conf[name] for name in names}
    # What settings give a Redis broker where it matters here: one connection attempt per
    # publish, short socket timeouts.
    options = {"max_retries": 0, "socket_connect_timeout": 2, "socket_timeout": 5}
    app.conf.update(broker_url=url, broker_transport_options=options, task_always_eager=eager)
    _drop_broker_pools(app)
    try:
        yield
    finally:
        app.conf.update(saved)
        _drop_broker_pools(app)


def _drop_broker_pools(app: object) -> None:
    # Celery keeps one connection pool and one producer pool per app, taken on first use from
    # kombu's pools for the broker URL of that moment: forget them, so the next publish takes
    # those of the URL set now (kombu keeps each URL's pools, open, for when it is back).
    app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]


@dataclass
class RedisServer:
    """A Redis server of a test's own (append-only, as in production) that it may stop and
    start again on the same port with the same data."""

    port: int
    folder: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", str(self.port),
                "--dir", str(self.folder), "--appendonly", "yes", "--save", "",
                "--pidfile", str(self.folder / "redis.pid"), "--logfile", str(self.folder / "redis.log"),
            ],
            check=True,
            timeout=10,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis on {self.port} did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        subprocess.run(
            ["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True, timeout=10
        )
        deadline = time.monotonic() + 10
        while self.answers():
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis on {self.port} did not stop")
            time.sleep(0.05)

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5).ping())
        except redis.exceptions.RedisError:
            return False


def redis_server_problem() -> str | None:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        return "needs redis-server and redis-cli to start a Redis of its own"
    return None


@contextmanager
def own_redis(folder: Path) -> Iterator[RedisServer]:
    """A private Redis (see ``RedisServer``), stopped at the end whatever state it is in."""
    server = RedisServer(free_port(), folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A zombie still answers signal 0 until it is reaped; its
    /proc status says so."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())
