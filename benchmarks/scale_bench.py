"""The service on a database at scale against an empty one, in the same run.

    SCALE_DATABASE_URL=postgres://app:app@127.0.0.1:5432/app_scale .venv/bin/python benchmarks/scale_bench.py

SCALE_DATABASE_URL names a database built by ``benchmarks/scale_db.py`` (a million events and
more). The empty database is ``<that name>_empty`` (EMPTY_DATABASE_URL to choose another): it
is dropped and created again at each run, so it holds only what this benchmark puts in it.

In each database the same throwaway players and games are set up through the services (in a
subprocess per database: Django is set up once per process): games to move in, and a long
game (LONG_EVENTS events) to replay, and OPEN_GAMES (100) open public games, the newest, so
the lobby and the API list the same open games from both databases. Then one gunicorn per
database serves on loopback and a single client asks both, alternately, for each figure, so
both see the same machine:

- submit: POST /api/games/<id>/actions/ (a legal move of the player to act);
- game GET: GET /api/games/<id>/ as that player;
- lobby: GET /games/ (the site's lobby: the player's games and open public games);
- games API: GET /api/games/ (the player's games and open games);
- replay: GET /games/<id>/replay/ of the long game.

Each figure's p50 and p99 are printed for both databases with the ratio scale/empty (target
≤ 1.2), and, for information, the lobby of the busiest player of the scale database. Settings:
SAMPLES (500 per figure and database), LONG_EVENTS (300), WEB_CONCURRENCY (2). Takes about
six minutes plus the empty database's migration.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("WEB_CONCURRENCY", "2")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from api_bench import (
    HOST,
    ROOT,
    Players,
    Timings,
    free_port,
    gunicorn,
    play_through_services,
    setup_django,
    start_game,
)

# A p99 is the fifth-slowest of 500 samples: of 200 it was the second, and one hiccup of the
# machine in either database moved a ratio by a quarter.
SAMPLES = int(os.environ.get("SAMPLES", "500"))
LONG_EVENTS = int(os.environ.get("LONG_EVENTS", "300"))
TARGET = 1.2
MOVE_GAMES = max(6, SAMPLES // 30)  # a game takes a hundred moves or so before it ends
OPEN_GAMES = 100
RULE_SETS = ("pirates", "pirates-classic", "libertalia", "captain-lucky")
FIGURES = ("submit", "game GET", "lobby", "games API", "replay")


class Fetcher:
    """One keep-alive connection sending a token (API) or a session cookie (pages)."""

    def __init__(self, port: int, token: str = "", session: str = "") -> None:
        self.port = port
        self.headers = {"Accept": "application/json" if token else "text/html"}
        if token:
            self.headers["Authorization"] = f"Token {token}"
        if session:
            self.headers["Cookie"] = f"sessionid={session}"
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes, float]:
        payload = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers)
        if payload is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
            started = time.perf_counter()
            try:
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
            except (http.client.HTTPException, ConnectionError):
                self.close()
                if attempt == 2:
                    raise
                continue
            elapsed = time.perf_counter() - started
            if response.will_close:
                self.close()
            return response.status, data, elapsed
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, body: Any = None) -> tuple[Any, float]:
        status, data, elapsed = self.request(method, path, body)
        if status >= 400:
            raise RuntimeError(f"{method} {path} answered {status}: {data[:300]!r}")
        return json.loads(data), elapsed

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# ---- setup, in a subprocess per database --------------------------------------------------------


def _session_for(user: Any) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return str(client.cookies["sessionid"].value)


def prepare() -> None:
    """Migrate DATABASE_URL, set up the benchmark's players and games, print them as JSON."""
    env = {"DJANGO_SETTINGS_MODULE": "pirates_site.settings", "LOG_LEVEL": "WARNING"}
    setup_django({**env, **{k: v for k, v in os.environ.items() if k not in env}})
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.authtoken.models import Token

    call_command("migrate", interactive=False, verbosity=0)
    run = os.urandom(3).hex()
    made = Players(run)
    players = made.take(3)
    host = made.take(1)[0]
    # Open games, the newest of the site, so both databases list the same ones: the lobby
    # shows a page of them and the API its LIMIT, whatever else the database holds.
    from games import services

    for i in range(OPEN_GAMES):
        services.game_create(creator=host, rules_id=RULE_SETS[i % 4], players=4, title=f"open {i}")
    games = [start_game(players, "pirates") for _ in range(MOVE_GAMES)]
    long_game = start_game(players, "pirates")
    long_events = play_through_services(long_game, LONG_EVENTS, seed=1)
    tokens = {str(user.pk): Token.objects.get_or_create(user=user)[0].key for user in players}
    busiest: dict[str, Any] | None = None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT user_id, COUNT(*) FROM games_seat WHERE user_id IS NOT NULL "
            "GROUP BY user_id ORDER BY 2 DESC, 1 LIMIT 1"
        )
        row = cursor.fetchone()
    from django.contrib.auth.models import User

    if row is not None and row[1] > MOVE_GAMES + 1:
        user = User.objects.get(pk=row[0])
        busiest = {
            "name": user.username,
            "games": row[1],
            "session": _session_for(user),
            "token": Token.objects.get_or_create(user=user)[0].key,
        }
    print(
        json.dumps(
            {
                "games": [g.game_id for g in games],
                "seat_tokens": [{str(seat): token for seat, token in g.tokens.items()} for g in games],
                "long_game": long_game.game_id,
                "long_events": long_events,
                "token": tokens[str(players[0].pk)],
                "session": _session_for(players[0]),
                "busiest": busiest,
            }
        )
    )


def run_prepares(urls: dict[str, str]) -> dict[str, dict[str, Any]]:
    """``prepare`` for each database, in parallel subprocesses."""
    processes = {}
    for name, url in urls.items():
        env = {
            **os.environ,
            "DATABASE_URL": url,
            "DJANGO_DEBUG": "0",
            "SECRET_KEY": SECRET,
            "ALLOWED_HOSTS": f"{HOST},localhost",
            "SECURE_SSL_REDIRECT": "0",
        }
        processes[name] = subprocess.Popen(
            [sys.executable, __file__, "--prepare"], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
    setups = {}
    for name, process in processes.items():
        out, _ = process.communicate()
        if process.returncode:
            raise RuntimeError(f"setting up the {name} database failed ({process.returncode})")
        setups[name] = dict(json.loads(out.strip().splitlines()[-1]))
    return setups


SECRET = "scale-bench-" + os.urandom(16).hex()


def _with_name(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def recreate(url: str) -> str:
    """Drop and create the database ``url`` names, connected to its server's ``postgres``;
    returns the server's settings that a submit's p99 follows (README, "Scale benchmark")."""
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(_with_name(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
        shown = [
            f"{setting}={conn.execute(f'SHOW {setting}').fetchone()[0]}"  # type: ignore[index]
            for setting in ("wal_compression", "full_page_writes", "fsync", "synchronous_commit")
        ]
    return ", ".join(shown)


# ---- measuring -------------------------------------------------------------------------------------


class Site:
    """One database's server, its benchmark players and where it is in its games."""

    def __init__(self, name: str, port: int, setup: dict[str, Any]) -> None:
        self.name = name
        self.setup = setup
        self.api = Fetcher(port, token=setup["token"])
        self.page = Fetcher(port, session=setup["session"])
        self.seats = [
            {int(s): Fetcher(port, token=t) for s, t in tokens.items()} for tokens in setup["seat_tokens"]
        ]
        self.game = 0
        busiest = setup.get("busiest")
        self.busiest = Fetcher(port, session=busiest["session"]) if busiest else None
        self.rng = random.Random(7)

    def move(self, timings: Timings) -> None:
        """GET the current game as the player to act (timed), then submit a legal move (timed)."""
        while self.game < len(self.setup["games"]):
            game_id = self.setup["games"][self.game]
            detail, _ = self.api.json("GET", f"/api/games/{game_id}/")
            if detail["status"] != "active":
                self.game += 1
                continue
            mover = self.seats[self.game][detail["to_act"][0]]
            detail, seconds = mover.json("GET", f"/api/games/{game_id}/")
            timings.add(f"{self.name} game GET", seconds)
            body = {"action": self.rng.choice(detail["legal_actions"]), "expected_seq": detail["seq"]}
            _, seconds = mover.json("POST", f"/api/games/{game_id}/actions/", body)
            timings.add(f"{self.name} submit", seconds)
            return
        raise RuntimeError(f"{self.name}: every benchmark game has ended; raise MOVE_GAMES")

    def get(self, timings: Timings, figure: str) -> None:
        if figure == "lobby":
            status, _, seconds = self.page.request("GET", "/games/")
        elif figure == "games API":
            status, _, seconds = self.api.request("GET", "/api/games/")
        elif figure == "replay":
            status, _, seconds = self.page.request("GET", f"/games/{self.setup['long_game']}/replay/")
        elif figure == "busiest lobby" and self.busiest is not None:
            status, _, seconds = self.busiest.request("GET", "/games/")
        else:
            return
        if status != 200:
            raise RuntimeError(f"{self.name} {figure}: status {status}")
        timings.add(f"{self.name} {figure}", seconds)


def measure(sites: list[Site], samples: int) -> Timings:
    timings = Timings()
    warm = Timings()
    for site in sites:  # every worker has served each kind before anything is timed
        for _ in range(10):
            site.move(warm)
            for figure in ("lobby", "games API", "replay", "busiest lobby"):
                site.get(warm, figure)
    for i in range(samples):
        # Alternate which database goes first, so neither always follows the other.
        order = sites if i % 2 == 0 else sites[::-1]
        for site in order:
            site.move(timings)
        for figure in ("lobby", "games API", "replay", "busiest lobby"):
            for site in order:
                site.get(timings, figure)
    return timings


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--prepare":
        prepare()
        return 0
    scale_url = os.environ.get("SCALE_DATABASE_URL", "")
    if not scale_url.startswith(("postgres://", "postgresql://")):
        print("scale_bench: set SCALE_DATABASE_URL to a database built by benchmarks/scale_db.py.")
        return 2
    empty_url = os.environ.get("EMPTY_DATABASE_URL") or _with_name(
        scale_url, urlsplit(scale_url).path.lstrip("/") + "_empty"
    )
    began = time.perf_counter()
    server = recreate(empty_url)
    setups = run_prepares({"empty": empty_url, "scale": scale_url})
    print(
        f"scale_bench: setup in {time.perf_counter() - began:.0f} s (long game: "
        f"{setups['scale']['long_events']} events); {SAMPLES} samples per figure and database; "
        f"server: {server}"
    )
    var = Path(tempfile.mkdtemp(prefix="scale-bench-"))
    venv_bin = str(Path(sys.executable).parent)
    # DEBUG off serves hashed static files from the manifest, which collectstatic writes.
    static_env = {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": HOST,
        "STATIC_ROOT": str(var / "static"),
        "DATABASE_URL": empty_url,
    }
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        env=static_env,
        cwd=ROOT,
        check=True,
    )
    with ExitStack() as stack:
        sites = []
        for name, url in (("empty", empty_url), ("scale", scale_url)):
            port = free_port()
            env = {
                **os.environ,
                "DATABASE_URL": url,
                "DJANGO_DEBUG": "0",
                "SECRET_KEY": SECRET,
                "ALLOWED_HOSTS": f"{HOST},localhost",
                "SECURE_SSL_REDIRECT": "0",
                "VAR_DIR": str(var / name),
                "STATIC_ROOT": str(var / "static"),
                "LOG_LEVEL": "WARNING",
                "DJANGO_SETTINGS_MODULE": "pirates_site.settings",
                "BOT_MOVE_DELAY_SECONDS": "3600",
                "PATH": f"{venv_bin}:{os.environ.get('PATH', '')}",
                "THROTTLE_RATES": "game_create=off,invitation=off,login=off",
            }
            stack.enter_context(gunicorn(env, port, var / f"{name}.log"))
            sites.append(Site(name, port, setups[name]))
        timings = measure(sites, SAMPLES)
    print(
        f"  {'figure':<14} {'empty p50':>10} {'empty p99':>10} {'scale p50':>10} {'scale p99':>10} "
        f"{'p50 ratio':>10} {'p99 ratio':>10}"
    )
    worst = 0.0
    for figure in FIGURES:
        e50, e99 = timings.pct(f"empty {figure}", 50), timings.pct(f"empty {figure}", 99)
        s50, s99 = timings.pct(f"scale {figure}", 50), timings.pct(f"scale {figure}", 99)
        worst = max(worst, s99 / e99)
        print(
            f"  {figure:<14} {e50:8.2f}ms {e99:8.2f}ms {s50:8.2f}ms {s99:8.2f}ms {s50 / e50:10.2f} "
            f"{s99 / e99:10.2f}"
        )
    busiest = setups["scale"].get("busiest")
    if busiest:
        print(
            f"  busiest player's lobby ({busiest['name']}, {busiest['games']} games): "
            f"p50 {timings.pct('scale busiest lobby', 50):.2f} ms, "
            f"p99 {timings.pct('scale busiest lobby', 99):.2f} ms"
        )
    print(
        f"scale_bench: worst p99 ratio {worst:.2f} (target ≤ {TARGET}); {time.perf_counter() - began:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
