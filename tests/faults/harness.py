"""The production processes on servers of their own, so a test can break one part at a time.

A ``Stack`` is what a deployment runs: PostgreSQL and Redis (append-only, as in production)
on ports and folders of their own, an SMTP server, and the process commands of
``docker/commands`` (gunicorn, the Celery worker, the mail worker when the checkout has one,
beat). A test stops, kills, restarts, slows or restores one of them while clients play, then
asks what the service promises: no committed move answered with an error, every event
replays, every waiting player emailed exactly once, every bot game moving again soon after
the fault ends. ``Row`` collects one fault's figures for ``artifacts/fault-figures.json``.

Everything listens on 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP

from tests import realservers
from tests.notifications.smtp_sink import Sink

ROOT = realservers.ROOT
COMMANDS = ROOT / "docker" / "commands"
FIGURES = ROOT / "artifacts" / "fault-figures.json"
# What each process command logs once it serves; a second beat is the beat command again.
READY = {"web": "Booting worker", "worker": "ready.", "mailer": "ready.", "beat": "beat: Starting",
         "beat2": "beat: Starting"}


def process_names() -> tuple[str, ...]:
    """The long-running commands a deployment of this checkout runs: the mail worker only
    where ``docker/commands/mailer`` exists (older checkouts send mail from the one worker)."""
    mailer = ("mailer",) if (COMMANDS / "mailer").exists() else ()
    return ("web", "worker", *mailer, "beat")


def postgres_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


def faults_problem() -> str | None:
    """Why the fault-injection suite cannot run here, or None."""
    if postgres_bin() is None:
        return "needs the PostgreSQL server binaries (apt-get install postgresql; .ci/run does)"
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        return "needs redis-server and redis-cli (apt-get install redis-server; .ci/run does)"
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        return "needs root (PostgreSQL servers of its own run as the postgres user through runuser)"
    return None


def _run(args: list[str], timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        output = done.stdout[-1500:] + done.stderr[-1500:]
        raise RuntimeError(f"{' '.join(args[:6])} … exited {done.returncode}: {output}")
    return done


class OwnPostgres:
    """A PostgreSQL server in a folder of its own, started, stopped and restored at will."""

    def __init__(self) -> None:
        binary = postgres_bin()
        assert binary is not None
        self.bin = binary
        # Not under pytest's temporary folder: that is private to root, and the server runs as
        # the postgres user, which must reach its data folder.
        holder = Path(tempfile.mkdtemp(prefix="pirates-faults-"))
        holder.chmod(0o755)
        self.dir = holder / "pg"
        self.port = realservers.free_port()
        # The same options for every start: a restart without them comes back on port 5432.
        # fsync and full-page writes guard against the machine losing power, which no test
        # does; synchronous_commit stays on (as in production): with it off, a crash
        # (``stop("immediate")``) loses transactions the service was told had committed.
        self.options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off "
            "-c full_page_writes=off -c max_connections=100"
        )

    @property
    def url(self) -> str:
        """The tables' owner (migrations, dumps and restores)."""
        return f"postgres://app:app@127.0.0.1:{self.port}/app"

    @property
    def service_url(self) -> str:
        """The service's role, which owns nothing (games/db_roles.py): what the servers log in as."""
        return f"postgres://app_service:app_service@127.0.0.1:{self.port}/app"

    def role_env(self) -> dict[str, str]:
        """Servers log in as the service role; migrate as the owner, then grants the service role."""
        return {"DATABASE_URL": self.service_url, "MIGRATE_DATABASE_URL": self.url,
                "DATABASE_SERVICE_ROLE": "app_service"}

    def _as_postgres(self, *args: str, timeout: float = 60) -> None:
        _run(["runuser", "-u", "postgres", "--", *args], timeout=timeout)

    def create(self) -> None:
        _run(["install", "-d", "-o", "postgres", "-g", "postgres", "-m", "700", str(self.dir)])
        self._as_postgres(
            str(self.bin / "initdb"), "-D", str(self.dir / "data"), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--locale=C.UTF-8", "-N",
        )
        self.start()
        self.psql("CREATE ROLE app LOGIN PASSWORD 'app' CREATEDB",
                  "CREATE ROLE app_service LOGIN PASSWORD 'app_service'", "CREATE DATABASE app OWNER app")

    def start(self) -> None:
        self._as_postgres(
            str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "log"),
            "-w", "-t", "30", "-o", self.options, "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", mode, "-w", "stop")

    def psql(self, *statements: str, database: str = "postgres") -> str:
        args = [str(self.bin / "psql"), "-q", "-X", "-At", "-h", "127.0.0.1", "-p", str(self.port),
                "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1"]
        for statement in statements:
            args += ["-c", statement]
        return _run(args).stdout

    def dump(self, path: Path) -> None:
        _run([str(self.bin / "pg_dump"), "-Fc", "-h", "127.0.0.1", "-p", str(self.port), "-U", "app",
              "-f", str(path), "app"])

    def restore(self, path: Path) -> None:
        """Put the database back as it was in ``path``, behind the running service's back."""
        self.psql("ALTER DATABASE app ALLOW_CONNECTIONS false")
        self.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'app'")
        self.psql("DROP DATABASE app", "CREATE DATABASE app OWNER app")
        _run([str(self.bin / "pg_restore"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "app",
              "-d", "app", "--no-owner", str(path)])

    def destroy(self) -> None:
        with suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.dir.parent, ignore_errors=True)


class OwnRedis:
    """A Redis server with append-only persistence (as production runs it), on a port of its own."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = realservers.free_port()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def cli(self, *args: str, check: bool = True) -> str:
        return _run(["redis-cli", "-p", str(self.port), *args], timeout=10, check=check).stdout

    def start(self) -> None:
        _run([
            "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", str(self.port),
            "--appendonly", "yes", "--save", "", "--dir", str(self.dir),
            "--pidfile", str(self.dir / "redis.pid"), "--logfile", str(self.dir / "redis.log"),
        ])
        deadline = time.monotonic() + 20
        while "PONG" not in self.cli("ping", check=False):
            if time.monotonic() > deadline:
                raise RuntimeError("Redis did not start:\n" + (self.dir / "redis.log").read_text()[-2000:])
            time.sleep(0.1)

    def stop(self) -> None:
        self.cli("shutdown", "nosave", check=False)
        deadline = time.monotonic() + 20
        while "PONG" in self.cli("ping", check=False):
            if time.monotonic() > deadline:
                raise RuntimeError("Redis did not stop")
            time.sleep(0.1)


class _SlowSMTP(SMTP):
    """aiosmtpd's server, answering every command (the greeting too) ``delay()`` seconds late:
    every reply goes through ``push``. ``sessions`` counts the connections open now."""

    def __init__(self, *args: Any, delay: Callable[[], float], sessions: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._delay = delay
        self._sessions = sessions

    def connection_made(self, transport: Any) -> None:
        self._sessions[0] += 1
        super().connection_made(transport)

    def connection_lost(self, error: Exception | None) -> None:
        self._sessions[0] -= 1
        super().connection_lost(error)

    async def push(self, status: Any) -> None:
        seconds = self._delay()
        if seconds > 0:
            await asyncio.sleep(seconds)
        await super().push(status)


class _SlowController(Controller):
    def __init__(self, *args: Any, delay: Callable[[], float], sessions: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._delay = delay
        self._sessions = sessions

    def factory(self) -> SMTP:
        return _SlowSMTP(self.handler, delay=self._delay, sessions=self._sessions, **self.SMTP_kwargs)


class Smtp:
    """An SMTP server that can be taken down, brought back on the same port, or slowed: with
    ``delay`` set it answers each command that many seconds late (a tarpit)."""

    def __init__(self, sink: Sink, port: int) -> None:
        self.sink, self.port = sink, port
        self.delay = 0.0
        self.controller: Controller | None = None
        self._sessions = [0]  # a list: the server's protocol objects count in it

    @property
    def sessions(self) -> int:
        """Connections to the server open now (a sender in the middle of a send)."""
        return self._sessions[0]

    def up(self) -> None:
        self.controller = _SlowController(self.sink, hostname="127.0.0.1", port=self.port,
                                          delay=lambda: self.delay, sessions=self._sessions)
        self.controller.start()

    def down(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@dataclass
class Answer:
    status: int  # 0: no HTTP answer at all (refused, reset, timed out)
    body: Any

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Api:
    """One player's API client (token authentication). The status of every answer (0: none)
    is appended to ``answers``, shared by all clients of a stack."""

    def __init__(self, base: str, token: str, name: str, answers: list[int] | None = None) -> None:
        self.base, self.token, self.name = base, token, name
        self.answers = answers if answers is not None else []

    def call(self, method: str, path: str, body: Any = None, timeout: float = 15) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json",
                     "Host": "127.0.0.1"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                answer = Answer(response.status, _json(response.read()))
        except urllib.error.HTTPError as error:
            answer = Answer(error.code, _json(error.read()))
        except (OSError, urllib.error.URLError):
            answer = Answer(0, None)
        self.answers.append(answer.status)
        return answer

    def get(self, path: str) -> Answer:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None) -> Answer:
        return self.call("POST", path, body if body is not None else {})


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


@dataclass
class Attempt:
    game: int
    key: str
    status: int
    seconds: float = 0.0  # how long the submit took to answer (or to fail)


@dataclass
class GameUnderTest:
    id: int
    seats: dict[int, Api]  # seat -> the client of the person in it
    bots: set[int]


class HoldingSink(Sink):
    """The in-memory SMTP sink, which can hold its "250 accepted" for ``hold`` seconds after
    it has the message: the sender's bookkeeping then happens after a fault that hits in
    between (the window in which a crash makes a sender send again)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = 0.0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        accepted = await super().handle_DATA(server, session, envelope)
        if self.hold > 0:
            await asyncio.sleep(self.hold)
        return accepted


@dataclass(frozen=True)
class Turn:
    """A person who must act now: ``address`` in ``game`` at ``seq``, whose last own move was
    at ``since`` (0: none yet). A turn email for it carries an X-Game-Seq in (since, seq]."""

    game: int
    seq: int
    since: int
    address: str


@dataclass
class Stack:
    """PostgreSQL, Redis, an SMTP server and the web, worker and beat processes."""

    root: Path
    sink: HoldingSink
    smtp: Smtp
    pg: OwnPostgres
    redis: OwnRedis
    env: dict[str, str] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    port: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    players: list[Api] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)  # every client answer's status, in order
    # The last view each person's client got of each game: (game, seat) -> body.
    seen: dict[tuple[int, int], Any] = field(default_factory=dict)

    def configure(self, extra: dict[str, str]) -> None:
        self.port = realservers.free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "EMAIL_", "PGHOST"))}
        env.update(
            DJANGO_DEBUG="0",
            SECRET_KEY="faults-" + uuid.uuid4().hex * 2,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            SECURE_SSL_REDIRECT="0",
            **self.pg.role_env(),
            REDIS_URL=self.redis.url,
            CELERY_QUEUE="faults",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=str(self.smtp.port),
            # Production's default: a slow mail server (the tarpit) answers within it, late.
            EMAIL_TIMEOUT="10",
            EMAIL_RETRY_BASE_SECONDS="1",
            EMAIL_RETRY_MAX_SECONDS="4",
            VAR_DIR=str(self.root / "var"),
            BIND=f"127.0.0.1:{self.port}",
            WEB_CONCURRENCY="2",
            WORKER_CONCURRENCY="1",
            # Beat runs the sweep and the relay every 2 s: recovery within seconds rather than
            # production's minute, at half the idle CPU of every second (0.10 against 0.18 cores
            # for the stack at rest; the stack serves the whole module).
            SWEEP_INTERVAL_SECONDS="2",
            BOT_MOVE_DELAY_SECONDS="0",
            # The strong bot thinks a tenth of production's second of CPU: a kill or an outage
            # can still catch a move under way, and the bot games of a fault keep the worker
            # busy a sixth of the time instead of most of it (at a quarter of a second, the
            # worker's thinking was most of the suite's CPU after the faults themselves).
            BOT_THINK_SECONDS="0.1",
            # A row whose task died is published again after 10 s.
            OUTBOX_RELAY_SECONDS="2",
            OUTBOX_LEASE_SECONDS="10",
            OUTBOX_REPAIR_AFTER_SECONDS="10",
            # The turn email waits for a take-back (a minute in production); 2 s keeps that
            # delayed path under the faults while the promises are checked within the limit.
            TURN_EMAIL_GRACE_SECONDS="2",
            # Beat sends each lane's worker a heartbeat task every 3 s; a worker that has not run
            # one for 20 s (hung on its broker connection) is restarted by its supervisor, as is
            # a beat that stopped ticking: so a hang is mended well within the minute the
            # promises allow (production: 15 s, 120 s and 60 s). Older checkouts ignore them.
            WORKER_HEARTBEAT_SECONDS="3",
            WORKER_LIVENESS_MAX_AGE="20",
            BEAT_HEARTBEAT_MAX_AGE="20",
            # Each test starts games of its own; the per-account creation limit is not the point.
            THROTTLE_RATES="game_create=off",
            DB_CONNECT_TIMEOUT="2",
            LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        self.env = env

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self, name: str) -> Path:
        return self.root / f"{name}.log"

    def log_count(self, name: str, *needles: str) -> int:
        """Lines of ``name``'s log holding any of ``needles``."""
        if not self.log(name).exists():
            return 0
        with self.log(name).open(errors="replace") as lines:
            return sum(1 for line in lines if any(needle in line for needle in needles))

    def liveness_stops(self, name: str) -> int:
        """Times ``name``'s supervisor stopped it for showing no sign of life (its log says so)."""
        return self.log_count(name, f"supervise[{name}]: no sign of life")

    def start(self, name: str, command: str | None = None, env: dict[str, str] | None = None) -> None:
        """Start ``docker/commands/<command>`` (default: ``name``) in a session of its own,
        logging to ``<name>.log``, and wait until it says it is ready."""
        before = self.ready_count(name)
        self.processes[name] = subprocess.Popen(
            [str(COMMANDS / (command or name))], env={**self.env, **(env or {})}, cwd=ROOT,
            stdout=self.log(name).open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.wait_ready(name, before=before)

    def stop(self, name: str) -> None:
        """SIGTERM ``name``'s whole session (its supervisor passes it on), SIGKILL after 15 s."""
        process = self.processes.pop(name)
        if process.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(15)

    def supervised_pids(self, name: str) -> list[int]:
        """The processes of ``name`` below its supervisor: the Celery main process and, for a
        worker, its pool children (all in the session the command was started in)."""
        leader = self.processes[name].pid
        found = _run(["pgrep", "-s", str(leader)], check=False).stdout.split()
        return [int(pid) for pid in found if int(pid) != leader]

    def kill_supervised(self, name: str) -> list[int]:
        """SIGKILL every process of ``name`` but its supervisor, as the kernel's OOM killer
        would; the supervisor starts the command again. Returns the pids killed."""
        killed = self.supervised_pids(name)
        for pid in killed:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return killed

    def ready_count(self, name: str) -> int:
        text = self.log(name).read_text(errors="replace") if self.log(name).exists() else ""
        return text.count(READY[name])

    def wait_ready(self, name: str, before: int, timeout: float = 90) -> None:
        """Until ``name`` has said it is ready more often than ``before`` times."""
        process = self.processes[name]

        def ready() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"{name} exited with {process.returncode}:\n"
                                     + self.log(name).read_text(errors="replace")[-3000:])
            return self.ready_count(name) > before

        wait_until(ready, timeout, f"{name} to be ready")

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(15)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    with suppress(ProcessLookupError):
                        os.killpg(process.pid, signal.SIGKILL)

    def manage(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args], env=self.env, cwd=ROOT, capture_output=True, text=True,
            timeout=timeout,
        )

    def boot(self, players: int = 3) -> None:
        migrated = subprocess.run([str(COMMANDS / "migrate")], env=self.env, cwd=ROOT, capture_output=True,
                                  text=True, timeout=300)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        for name in process_names():
            self.start(name)
        script = (
            "import json\n"
            "from django.contrib.auth.models import User\n"
            "from rest_framework.authtoken.models import Token\n"
            "from games.services.accounts import mark_verified\n"
            "out = []\n"
            f"for i in range({players}):\n"
            "    u = User.objects.create_user(f'sailor{i}', f'sailor{i}@faults.example', 'not-a-pass-1234')\n"
            "    mark_verified(u)  # game mail goes only to verified addresses\n"
            "    out.append(Token.objects.create(user=u).key)\n"
            "print(json.dumps(out))\n"
        )
        made = self.manage("shell", "-c", script)
        assert made.returncode == 0, made.stderr
        tokens = json.loads(made.stdout.strip().splitlines()[-1])
        self.players = [Api(self.base, token, f"sailor{i}", self.answers) for i, token in enumerate(tokens)]
        wait_until(lambda: self.players[0].get("/api/games/").ok, 60, "the web server to answer")

    # -- games ---------------------------------------------------------------------------

    def new_game(self, title: str, bots: int = 0) -> GameUnderTest:
        host = self.players[0]
        created = host.post("/api/games/", {"players": 3, "title": title, "bot_seats": bots, "public": True,
                                            "move_hours": 48})
        assert created.status == 201, created.body
        game_id = created.body["id"]
        for player in self.players[1 : 3 - bots]:
            joined = player.post(f"/api/games/{game_id}/join/")
            assert joined.ok, joined.body
        started = host.post(f"/api/games/{game_id}/start/")
        assert started.ok, started.body
        seats: dict[int, Api] = {}
        bot_seats: set[int] = set()
        for seat in started.body["seats"]:
            if seat["bot"]:
                bot_seats.add(seat["seat"])
            else:
                seats[seat["seat"]] = next(p for p in self.players if p.name == seat["user"])
        return GameUnderTest(game_id, seats, bot_seats)

    def move(self, game: GameUnderTest, rng: random.Random) -> Attempt | None:
        """One move by the person to act in ``game``, if a person is to act; None otherwise.

        When the service does not answer the look at the table (a 5xx, no answer), the person
        who last saw it was their turn submits from the table they saw, as a player with the
        page open would: a move is tried during every fault."""
        any_client = next(iter(game.seats.values()))
        detail = any_client.get(f"/api/games/{game.id}/")
        if detail.ok:
            if detail.body["status"] != "active":
                return None
            people = [s for s in detail.body["to_act"] if s in game.seats]
            if not people:
                return None
            mine = game.seats[people[0]].get(f"/api/games/{game.id}/")
            if mine.ok:
                self.seen[(game.id, people[0])] = mine.body
            seat = people[0]
        elif detail.status in (0, *range(500, 600)):
            seen = [s for (g, s), view in self.seen.items() if g == game.id and view["legal_actions"]]
            seat = seen[0] if seen else -1
        else:
            return None
        view = self.seen.get((game.id, seat))
        if view is None or not view["legal_actions"]:
            return None
        self.seen[(game.id, seat)] = {**view, "legal_actions": []}  # one try per view seen
        key = uuid.uuid4().hex
        began = time.monotonic()
        answer = game.seats[seat].post(
            f"/api/games/{game.id}/actions/",
            {"action": rng.choice(view["legal_actions"]), "expected_seq": view["seq"],
             "idempotency_key": key},
        )
        attempt = Attempt(game.id, key, answer.status, time.monotonic() - began)
        self.attempts.append(attempt)
        return attempt

    def play(self, games: list[GameUnderTest], seconds: float, rng: random.Random, think: float = 0.0,
             watch: Callable[[], None] | None = None, until: Callable[[], bool] | None = None) -> int:
        """Moves for the people to act, round the games, for ``seconds`` or until ``until()``
        is true; returns moves tried.

        After each move a game's person thinks a random 0 to ``think`` seconds before the next
        one: a turn that waits longer than the take-back grace is emailed, so mail is being sent
        while people play. ``watch`` is called once per round (a test's own observation)."""
        tried = 0
        deadline = time.monotonic() + seconds
        next_move = {game.id: 0.0 for game in games}
        while time.monotonic() < deadline and not (until is not None and until()):
            for game in games:
                if time.monotonic() < next_move[game.id]:
                    continue
                if self.move(game, rng) is not None:
                    tried += 1
                    next_move[game.id] = time.monotonic() + rng.uniform(0, think)
            if watch is not None:
                watch()
            time.sleep(0.05)
        return tried

    # -- what the service promises ----------------------------------------------------------

    def query(self, sql: str) -> list[list[str]]:
        out = self.pg.psql(sql, database="app")
        return [line.split("|") for line in out.splitlines() if line]

    def committed_with_error(self, since: int = 0) -> list[Attempt]:
        """Moves that were committed although the client was answered with an error (or
        nothing), from the ``since``-th attempt on."""
        failed = {a.key: a for a in self.attempts[since:] if not 200 <= a.status < 300}
        if not failed:
            return []
        keys = ",".join(f"'{k}'" for k in failed)
        committed = {row[0] for row in self.query(f"SELECT idempotency_key FROM games_event WHERE "
                                                   f"idempotency_key IN ({keys})")}
        return [failed[k] for k in committed]

    def replay_check(self, games: list[GameUnderTest] | None = None) -> subprocess.CompletedProcess[str]:
        """``manage.py replay_check`` for ``games`` (default: every game)."""
        only = [arg for game in games or [] for arg in ("--game", str(game.id))]
        return self.manage("replay_check", "--no-progress", *only)

    def waiting_turns(self, games: list[GameUnderTest]) -> list[Turn]:
        """Every person who must act now in a running game, with the seq of their last own move."""
        waiting: list[Turn] = []
        for game in games:
            detail = next(iter(game.seats.values())).get(f"/api/games/{game.id}/")
            if detail.ok and detail.body["status"] == "active":
                for seat in detail.body["to_act"]:
                    if seat in game.seats:
                        since = self.query(
                            f"SELECT coalesce(max(seq), 0) FROM games_event WHERE game_id = {game.id} "
                            f"AND seat = {int(seat)} AND kind IN ('action', 'take_back')"
                        )[0][0]
                        waiting.append(Turn(game.id, detail.body["seq"], int(since),
                                            f"{game.seats[seat].name}@faults.example"))
        return waiting

    def turn_emails(self, since: int = 0) -> Counter[tuple[int, int, str]]:
        """How many turn emails each (game, seq, address) received, from the ``since``-th message on."""
        counts: Counter[tuple[int, int, str]] = Counter()
        for key, _ in self.turn_email_ids(since):
            counts[key] += 1
        return counts

    def turn_email_ids(self, since: int = 0) -> list[tuple[tuple[int, int, str], str]]:
        """((game, seq, address), Message-ID) of each turn email from the ``since``-th message on."""
        return [
            ((int(m["X-Game-Id"]), int(m["X-Game-Seq"]), str(m["To"])), str(m["Message-ID"] or ""))
            for m in self.sink.received()[since:] if turn_email(m)
        ]

    @staticmethod
    def emails_for(turn: Turn, counts: Counter[tuple[int, int, str]]) -> int:
        """Turn emails received for ``turn``: those for its game and address since its last own move."""
        return sum(n for (game, seq, to), n in counts.items()
                   if game == turn.game and to == turn.address and turn.since < seq <= turn.seq)

    def turn_emails_pending(self, games: list[GameUnderTest]) -> int:
        """Turn-email rows of these games the outbox has not finished (queued, in flight or
        waiting for a retry): while there are none, no turn email for them is on its way."""
        if not games:
            return 0
        ids = ",".join(str(game.id) for game in games)
        return int(self.query(f"SELECT count(*) FROM games_outbox WHERE game_id IN ({ids}) "
                              "AND kind = 'turn' AND status = 'pending'")[0][0])

    def mail_quiet(self, games: list[GameUnderTest], timeout: float) -> bool:
        """Whether the outbox finished every turn email of ``games`` within ``timeout`` seconds."""
        return wait_for(lambda: self.turn_emails_pending(games) == 0, time.monotonic() + timeout)

    def turn_email_arrived(self) -> Callable[[], bool]:
        """A check: has a turn email arrived since this call?"""
        before = len(self.sink.matching(turn_email))
        return lambda: len(self.sink.matching(turn_email)) > before

    def bot_moves(self, games: list[GameUnderTest]) -> int:
        """Bot moves made so far in these games."""
        ids = ",".join(str(game.id) for game in games)
        return int(self.query(f"SELECT count(*) FROM games_event WHERE game_id IN ({ids}) "
                              "AND kind = 'bot'")[0][0])

    def stalled_bot_games(self, games: list[GameUnderTest]) -> list[int]:
        """Running games in which a bot seat is to act."""
        stalled = []
        for game in games:
            detail = next(iter(game.seats.values())).get(f"/api/games/{game.id}/")
            if detail.ok and detail.body["status"] == "active" and set(detail.body["to_act"]) & game.bots:
                stalled.append(game.id)
        return stalled

    def seconds_until_bots_move(self, games: list[GameUnderTest], limit: float = 60) -> float:
        """Seconds until no game waits for a bot (people do not move meanwhile)."""
        began = time.monotonic()
        wait_until(lambda: not self.stalled_bot_games(games), limit, "every bot game to move again")
        return time.monotonic() - began

    def check_recovery(
        self, games: list[GameUnderTest], row: Row, *, back_at: float, since: Phase,
        limit: float = 60.0, crash_duplicates: bool = False,
    ) -> None:
        """What the service promises once a fault has ended (at ``back_at``, a monotonic time),
        recorded in ``row`` rather than raised, so the figures are written whatever happens:

        - every bot game moves again, and every person waiting for their turn has a turn email,
          within ``limit`` seconds of ``back_at``, with no one restarting anything;
        - exactly one turn email per waiting turn, and no turn emailed twice since the phase
          ``since`` began; with ``crash_duplicates`` (a crash between the mail
          server's accept and the commit that records it) a turn may be emailed twice, but
          as the same message (one Message-ID);
        - no move since then was committed yet answered with an error; every event of these
          games replays.
        """
        attempts_from, emails_from = since.attempts, since.emails
        deadline = back_at + limit
        bots_moved = wait_for(lambda: not self.stalled_bot_games(games), deadline)
        stalled = self.stalled_bot_games(games)
        row.stalled_games += len(stalled)
        row.expect(bots_moved and not stalled,
                   f"bot games {stalled} still waited for a bot {limit:.0f} s after the fault ended")
        waiting = self.waiting_turns(games)

        def emailed() -> bool:
            counts = self.turn_emails(emails_from)
            return all(self.emails_for(turn, counts) >= 1 for turn in waiting)

        all_emailed = wait_for(emailed, deadline)
        if bots_moved and all_emailed:
            row.recovery.append(round(time.monotonic() - back_at, 1))
        # A duplicate would be on its way while the outbox still has a turn email pending.
        row.expect(self.mail_quiet(games, 30), "turn emails still pending 30 s after the checks")
        counts = self.turn_emails(emails_from)
        per_turn = [self.emails_for(turn, counts) for turn in waiting]
        for n in per_turn:
            row.emails_per_waiting_turn["2+" if n >= 2 else str(n)] += 1
        row.expect(all_emailed and all(n >= 1 for n in per_turn),
                   f"{per_turn.count(0)} of {len(waiting)} waiting turns had no turn email "
                   f"{limit:.0f} s after the fault ended")
        ids: dict[tuple[int, int, str], set[str]] = {}
        for key, message_id in self.turn_email_ids(emails_from):
            ids.setdefault(key, set()).add(message_id)
        # Turns emailed twice that an earlier check of this row has not counted yet.
        twice = {key: n for key, n in counts.items() if n > 1 and key not in row.emailed_twice}
        row.emailed_twice.update(twice)
        row.turns_emailed_twice += len(twice)
        distinct_ids = sum(1 for key in twice if len(ids[key]) > 1)
        row.duplicates_with_distinct_ids += distinct_ids
        if crash_duplicates:
            row.expect(distinct_ids == 0,
                       f"{distinct_ids} of {len(twice)} turns emailed twice carried two Message-IDs")
        else:
            row.expect(not twice and all(n <= 1 for n in per_turn),
                       f"{len(twice)} turns emailed twice: {sorted(twice.items())[:5]}")
        wrong = self.committed_with_error(attempts_from)
        row.committed_with_error += len(wrong)
        row.expect(not wrong, f"{len(wrong)} committed moves answered with an error: {wrong[:5]}")
        for status in self.answers[since.answers:]:
            if status >= 500 or status == 0:
                row.client_5xx[str(status) if status else "no answer"] += 1
        since.answers = len(self.answers)  # each answer counted once, also when checked again
        row.replay(self.replay_check(games))

    def heal(self, games: list[GameUnderTest], row: Row) -> None:
        """Once a test's promise failed with bot games still stuck: restart the workers by hand,
        so the next fault starts from a working service (counted in the row, never silent)."""
        if not self.stalled_bot_games(games):
            return
        row.extra["workers_restarted_by_hand"] = int(row.extra.get("workers_restarted_by_hand", 0)) + 1
        for name in ("worker", "mailer"):
            if name in self.processes:
                before = self.ready_count(name)
                self.kill_supervised(name)
                self.wait_ready(name, before, timeout=90)
        wait_for(lambda: not self.stalled_bot_games(games), time.monotonic() + 60)


class Phase:
    """Where a stack's client attempts, client answers and received emails stood when a phase
    of a test began."""

    def __init__(self, stack: Stack) -> None:
        self.attempts = len(stack.attempts)
        self.emails = len(stack.sink.received())
        self.answers = len(stack.answers)


@dataclass
class Row:
    """One fault's row of ``artifacts/fault-figures.json``. A test records what it saw in
    it and ``expect``s its promises; ``recording`` writes the row when the test ends, kept
    or broken, and only then fails the test (record first, assert after)."""

    fault: str
    clients: int = 0
    games: int = 0
    repeats: int = 0
    moves_tried: int = 0
    client_5xx: Counter[str] = field(default_factory=Counter)
    committed_with_error: int = 0
    recovery: list[float] = field(default_factory=list)
    emails_per_waiting_turn: Counter[str] = field(default_factory=Counter)
    turns_emailed_twice: int = 0
    duplicates_with_distinct_ids: int = 0
    emailed_twice: set[tuple[int, int, str]] = field(default_factory=set)
    stalled_games: int = 0
    replay_checks: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def expect(self, kept: bool, failure: str) -> bool:
        if not kept:
            self.failures.append(failure)
        return kept

    def replay(self, check: subprocess.CompletedProcess[str]) -> None:
        verdict = "ok" if check.returncode == 0 else "failed: " + (check.stdout[-300:] + check.stderr[-300:])
        self.replay_checks.append(verdict)
        self.expect(check.returncode == 0, "replay_check " + verdict)

    def figures(self) -> dict[str, Any]:
        failed = [v for v in self.replay_checks if v != "ok"]
        return {
            "fault": self.fault,
            "repeats": self.repeats,
            "load": {"clients": self.clients, "games": self.games, "moves_tried": self.moves_tried},
            "client_5xx": dict(sorted(self.client_5xx.items())),
            "committed_moves_answered_with_error": self.committed_with_error,
            "recovery_seconds": {"max": max(self.recovery, default=None), "each": self.recovery},
            "emails_per_waiting_turn": {k: self.emails_per_waiting_turn[k] for k in ("0", "1", "2+")},
            "turns_emailed_twice": self.turns_emailed_twice,
            "turns_emailed_twice_with_distinct_message_ids": self.duplicates_with_distinct_ids,
            "stalled_games": self.stalled_games,
            "replay_check": ("not run" if not self.replay_checks
                             else failed[0] if failed else f"ok ({len(self.replay_checks)} runs)"),
            "promises_kept": not self.failures,
            "failures": self.failures,
            **self.extra,
        }

    def write(self) -> None:
        FIGURES.parent.mkdir(exist_ok=True)
        # The fault tests may run in several processes at once (split by test, each with a
        # stack of its own): each row is read, added and written under a lock, so none is lost.
        with (FIGURES.parent / "fault-figures.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            everything = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
            everything[self.fault] = self.figures()
            FIGURES.write_text(json.dumps(everything, indent=2) + "\n")


@contextmanager
def recording(fault: str, clients: int = 0, games: int = 0) -> Iterator[Row]:
    """A ``Row`` for ``fault``, written when the block ends (also when it raised), then the
    test fails with every broken promise it recorded."""
    row = Row(fault, clients=clients, games=games)
    try:
        yield row
    except BaseException as exc:
        row.failures.append(f"{type(exc).__name__}: {exc}"[:600])
        raise
    finally:
        row.write()
    assert not row.failures, f"{fault}: " + "; ".join(row.failures)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` percentile (0 < q <= 100) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[max(math.ceil(q / 100 * len(ordered)) - 1, 0)]




def turn_email(message: EmailMessage) -> bool:
    return message["X-Game-Id"] is not None and str(message["Subject"]).startswith("Your turn")


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(0.25)


def wait_for(condition: Callable[[], Any], deadline: float, every: float = 0.25) -> bool:
    """Whether ``condition`` came true before ``deadline`` (a monotonic time); checked at least once."""
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
