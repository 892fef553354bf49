"""Build a PostgreSQL database at the scale of a popular site: at least 1,000,000 events.

    DATABASE_URL=postgres://app:app@127.0.0.1:5432/app_scale .venv/bin/python benchmarks/scale_db.py

It migrates the database in DATABASE_URL (which must hold no games yet), creates PLAYERS
accounts (``scale-<n>``, password ``pirates-ahoy``, each with a profile and a verified address)
and GAMES games of all four rule sets, then fills more games until the log holds at least
EVENTS events. The mix: 70% finished, 25% running (cut at a random point of their play),
5% waiting for players; 80% public. Some players play far more games than others (a few
hundred for the busiest), as on a real site.

Every game is played in-process by the engine (random bots choose every seat's move, the
people's too), written the way the services write it: a ``game_started`` event with the seed
and seats, each move with its payload from ``games.eventlog.payload`` and its hash from
``engine.chain``, the forced passes the service makes (``auto_pass`` by ``system:pass``), a
snapshot every SNAPSHOT_EVERY events and at the end, and the read columns and seats as the
last settle leaves them. So ``manage.py replay_check`` passes on the result. Rows go in with
PostgreSQL COPY, a transaction per chunk of games, from WORKERS processes at once; only
inserts (the event log is append-only), as the tables' owner.

Settings (flags or environment): --games / GAMES (20000), --events / EVENTS (1000000),
--players / PLAYERS (5000), --workers / WORKERS (2), --seed / SEED (1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

RULE_SETS = ("pirates", "pirates-classic", "libertalia", "captain-lucky")
PASSWORD = "pirates-ahoy"
CHUNK = 100  # games per COPY transaction
MOVE_TIME = timedelta(hours=48)
REMINDER_BEFORE = timedelta(hours=12)
# The mix of games by status (the rest wait for players).
FINISHED_SHARE = 0.70
RUNNING_SHARE = 0.25
PUBLIC_SHARE = 0.80

GAME_COLUMNS = (
    "id",
    "rules_id",
    "rules_version",
    "title",
    "players",
    "options",
    "fixed_deal",
    "is_public",
    "auto_start",
    "created_by_id",
    "status",
    "seed",
    "seed_sha256",
    "seq",
    "head",
    "to_act",
    "result",
    "move_time",
    "reminder_before",
    "timeout_policy",
    "deadline",
    "reminder_at",
    "created_at",
    "started_at",
    "finished_at",
    "updated_at",
)
SEAT_COLUMNS = (
    "game_id",
    "position",
    "user_id",
    "bot",
    "colour",
    "joined_at",
    "must_act",
    "consecutive_timeouts",
    "replaced_by_bot",
)
EVENT_COLUMNS = (
    "game_id",
    "seq",
    "kind",
    "seat",
    "payload",
    "actor",
    "idempotency_key",
    "created_at",
    "hash",
)
SNAPSHOT_COLUMNS = ("game_id", "seq", "rules_version", "state", "created_at")


@dataclass
class Built:
    """The rows of a chunk of games, in COPY column order."""

    games: list[tuple[Any, ...]] = field(default_factory=list)
    seats: list[tuple[Any, ...]] = field(default_factory=list)
    events: list[tuple[Any, ...]] = field(default_factory=list)
    snapshots: list[tuple[Any, ...]] = field(default_factory=list)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def player_index(rng: random.Random, players: int) -> int:
    """A player for a seat, skewed so a few play a great deal (the busiest a few hundred
    games of 20,000) and most a handful."""
    return min(players - 1, int(players * rng.random() ** 2))


def build_game(game_id: int, index: int, seed: int, user_ids: list[int], now: datetime, out: Built) -> int:
    """Play game number ``index`` and add its rows to ``out``; returns its number of events."""
    import engine
    from engine.bots import choose_action
    from engine.chain import GENESIS, event_hash
    from games.eventlog import payload as event_payload

    snapshot_every = _snapshot_every()
    rng = random.Random(f"scale:{seed}:{index}")
    rules = engine.get_rules(rng.choice(RULE_SETS))
    players = rng.choice(list(rules.player_counts))
    roll = rng.random()
    status = (
        "finished"
        if roll < FINISHED_SHARE
        else "active"
        if roll < FINISHED_SHARE + RUNNING_SHARE
        else "lobby"
    )
    is_public = rng.random() < PUBLIC_SHARE
    bots = 0 if rng.random() < 0.6 else rng.randint(1, players - 1)
    people: list[int] = []
    while len(people) < players - bots:
        candidate = user_ids[player_index(rng, len(user_ids))]
        if candidate not in people:
            people.append(candidate)
    creator = people[0]
    created = now - timedelta(days=365 * rng.random() ** 1.5, seconds=rng.randint(0, 86400))
    title = rng.choice(["", "", "", f"Voyage {index}", f"Friday crew {index % 97}"])
    if status == "lobby":
        joined = people[: rng.randint(1, max(1, players - bots - 1))]
        seats: list[tuple[int, int | None, str]] = [(p, user, "") for p, user in enumerate(joined)]
        seats += [(p, None, "random") for p in range(players - bots, players)]
        out.games.append(
            (
                game_id,
                rules.id,
                rules.version,
                title,
                players,
                "{}",
                False,
                is_public,
                False,
                creator,
                "lobby",
                "",
                "",
                0,
                "",
                "[]",
                None,
                MOVE_TIME,
                REMINDER_BEFORE,
                "bot",
                None,
                None,
                created,
                None,
                None,
                created,
            )
        )
        out.seats.extend((game_id, p, user, bot, "", created, False, 0, False) for p, user, bot in seats)
        return 0

    game_seed = f"{rng.getrandbits(128):032x}"
    state = rules.new_game(players=players, seed=game_seed, options={})
    # Seating as drawn at the start: the people and bots in a shuffled order.
    ordered: list[tuple[int | None, str]] = [(user, "") for user in people] + [(None, "random")] * bots
    rng.shuffle(ordered)
    drawn = rules.view(state, None).get("colours")
    colours = (
        list(drawn) if isinstance(drawn, list) and len(drawn) == players else rules.seat_colours(players)
    )
    names = {user: f"scale-{user}" for user in people}
    started_at = created + timedelta(minutes=rng.randint(5, 600))
    events: list[tuple[int, str, int | None, dict[str, Any], str]] = []
    snapshots: list[tuple[int, Any]] = []
    rows_actor: list[str] = []
    seq = 0
    head = GENESIS

    def append(kind: str, seat: int | None, data: dict[str, Any], actor: str) -> None:
        nonlocal seq, head
        seq += 1
        head = event_hash(head, seq=seq, kind=kind, seat=seat, payload=data, actor=actor)
        events.append((seq, kind, seat, data, head))
        rows_actor.append(actor)

    def settle(current: Any) -> Any:
        """As ``games.services.play.settle``: a snapshot every SNAPSHOT_EVERY events and at the
        end, and the forced passes (P-TURN-1) made at once by the system."""
        while True:
            result = rules.result(current)
            if seq % snapshot_every == 0 or result is not None:
                snapshots.append((seq, rules.dump(current)))
            if result is not None:
                return current
            forced = next(
                ((s, a) for s in rules.to_act(current) if (a := rules.forced_action(current, s)) is not None),
                None,
            )
            if forced is None:
                return current
            step = rules.step(current, forced[0], dict(forced[1]))
            append("auto_pass", forced[0], event_payload(step, dict(forced[1])), "system:pass")
            current = step.state

    seats_payload = [
        {"seat": p, "user": names[user] if user is not None else None, "bot": bot or None}
        for p, (user, bot) in enumerate(ordered)
    ]
    append(
        "game_started",
        None,
        {
            "rules": rules.id,
            "version": rules.version,
            "players": players,
            "seed": game_seed,
            "options": {},
            "seats": seats_payload,
        },
        f"user:{creator}",
    )
    state = settle(state)
    # A running game stops somewhere along its course; a finished one plays to the end.
    stop_at = rng.randint(2, 120) if status == "active" else 10**9
    while rules.result(state) is None and seq < stop_at:
        seat = rules.to_act(state)[0]
        action = choose_action(rules, state, seat, "random", rng)
        step = rules.step(state, seat, action)
        user, bot = ordered[seat]
        if user is None:
            append("bot", seat, event_payload(step, action), f"bot:{bot}")
        else:
            append("action", seat, event_payload(step, action), f"user:{user}")
        state = settle(step.state)
    result = rules.result(state)
    status = "finished" if result is not None else "active"
    to_act = [] if result is not None else rules.to_act(state)
    # The moves spread over the game's days; a running game's last move is recent.
    end = (
        now - timedelta(minutes=rng.randint(1, 48 * 60))
        if status == "active"
        else min(now, started_at + timedelta(days=rng.uniform(1, 40)))
    )
    step_time = (end - started_at) / max(1, seq)
    times = [started_at + step_time * i for i in range(seq)]
    deadline = end + MOVE_TIME if status == "active" else None
    reminder = deadline - REMINDER_BEFORE if deadline is not None else None
    out.games.append(
        (
            game_id,
            rules.id,
            rules.version,
            title,
            players,
            "{}",
            False,
            is_public,
            False,
            creator,
            status,
            game_seed,
            hashlib.sha256(game_seed.encode()).hexdigest(),
            seq,
            head,
            _json(to_act),
            _json(result) if result is not None else None,
            MOVE_TIME,
            REMINDER_BEFORE,
            "bot",
            deadline,
            reminder if reminder is not None and reminder > now else None,
            created,
            started_at,
            end if status == "finished" else None,
            end,
        )
    )
    out.seats.extend(
        (game_id, p, user, bot, colours[p], created, p in to_act, 0, False)
        for p, (user, bot) in enumerate(ordered)
    )
    out.events.extend(
        (game_id, s, kind, seat, _json(data), rows_actor[s - 1], "", times[s - 1], digest)
        for s, kind, seat, data, digest in events
    )
    out.snapshots.extend((game_id, s, rules.version, _json(dumped), times[s - 1]) for s, dumped in snapshots)
    return seq


def _snapshot_every() -> int:
    from django.conf import settings

    return int(settings.SNAPSHOT_EVERY)


def copy_rows(cursor: Any, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
    """COPY ``rows`` into ``table`` through the psycopg 3 cursor under Django's wrapper."""
    if not rows:
        return
    raw = getattr(cursor, "cursor", cursor)
    with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def load_chunk(
    first_id: int, indexes: range, seed: int, user_ids: list[int], now: datetime
) -> tuple[int, int]:
    """Build games ``indexes`` (ids from ``first_id``) and COPY them in one transaction.
    Returns (games, events)."""
    from django.db import connection, transaction

    out = Built()
    events = 0
    for offset, index in enumerate(indexes):
        events += build_game(first_id + offset, index, seed, user_ids, now, out)
    with transaction.atomic(), connection.cursor() as cursor:
        copy_rows(cursor, "games_game", GAME_COLUMNS, out.games)
        copy_rows(cursor, "games_seat", SEAT_COLUMNS, out.seats)
        copy_rows(cursor, "games_event", EVENT_COLUMNS, out.events)
        copy_rows(cursor, "games_snapshot", SNAPSHOT_COLUMNS, out.snapshots)
    return len(indexes), events


def _worker_chunk(job: tuple[int, int, int, int, list[int], datetime]) -> tuple[int, int]:
    first_id, start, stop, seed, user_ids, now = job
    return load_chunk(first_id, range(start, stop), seed, user_ids, now)


def create_players(count: int, now: datetime) -> list[int]:
    """``count`` accounts with profiles and verified addresses, by COPY; returns their ids."""
    from django.contrib.auth.hashers import make_password
    from django.db import connection, transaction

    # One hash for all: hashing 5,000 passwords would take minutes and prove nothing.
    password = make_password(PASSWORD)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM auth_user")
        first = int(cursor.fetchone()[0]) + 1
        ids = list(range(first, first + count))
        joined = [now - timedelta(days=400 * random.Random(i).random()) for i in ids]
        copy_rows(
            cursor,
            "auth_user",
            (
                "id",
                "password",
                "is_superuser",
                "username",
                "first_name",
                "last_name",
                "email",
                "is_staff",
                "is_active",
                "date_joined",
            ),
            [
                (i, password, False, f"scale-{i}", "", "", f"scale-{i}@example.com", False, True, j)
                for i, j in zip(ids, joined, strict=True)
            ],
        )
        copy_rows(
            cursor,
            "games_playerprofile",
            ("user_id", "display_name", "notify", "timezone", "confirm_moves", "rate_private_games"),
            [(i, f"Captain {i}" if i % 3 else "", "none", "UTC", bool(i % 2), False) for i in ids],
        )
        copy_rows(
            cursor,
            "games_verifiedaddress",
            ("user_id", "address", "verified_at"),
            [(i, f"scale-{i}@example.com", j) for i, j in zip(ids, joined, strict=True)],
        )
        _reset_identity(cursor, "auth_user")
    return ids


def _reset_identity(cursor: Any, table: str) -> None:
    cursor.execute(
        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT COALESCE(MAX(id), 1) FROM {table}))"
    )


def next_game_id() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM games_game")
        return int(cursor.fetchone()[0]) + 1


def _jobs(
    first_id: int, start: int, stop: int, seed: int, user_ids: list[int], now: datetime
) -> Iterator[tuple[int, int, int, int, list[int], datetime]]:
    for begin in range(start, stop, CHUNK):
        end = min(stop, begin + CHUNK)
        yield first_id + begin - start, begin, end, seed, user_ids, now


def build(
    *,
    games: int,
    events: int,
    players: int,
    workers: int,
    seed: int,
    now: datetime | None = None,
    progress: Any = None,
) -> tuple[int, int]:
    """Create the players and at least ``games`` games, more until the log has ``events``
    events. ``workers`` 0 builds in this process on Django's connection (and in its
    transaction, as the tests do). Returns (games, events)."""
    from django.db import connection, connections, transaction

    now = now or datetime.now(UTC)
    report = progress or (lambda text: None)
    user_ids = create_players(players, now)
    report(f"{players} players created")
    first_id = next_game_id()
    made_games = made_events = 0
    began = time.perf_counter()
    target = games
    while made_games < target or made_events < events:
        if made_games >= target:
            # Extend by the share still missing, judged by the average so far.
            per_game = made_events / max(1, made_games)
            target = made_games + max(CHUNK, int((events - made_events) / max(1.0, per_game)) + 1)
        jobs = list(_jobs(first_id + made_games, made_games, target, seed, user_ids, now))
        if workers:
            connections.close_all()
            context = multiprocessing.get_context("fork")
            with context.Pool(workers) as pool:
                for count, evs in pool.imap_unordered(_worker_chunk, jobs):
                    made_games += count
                    made_events += evs
                    rate = made_events / max(1e-9, time.perf_counter() - began)
                    report(f"{made_games} games, {made_events} events ({rate:,.0f} events/s)")
        else:
            for job in jobs:
                count, evs = _worker_chunk(job)
                made_games += count
                made_events += evs
    with transaction.atomic(), connection.cursor() as cursor:
        for table in ("games_game", "games_seat", "games_event", "games_snapshot"):
            _reset_identity(cursor, table)
    return made_games, made_events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=int(os.environ.get("GAMES", "20000")))
    parser.add_argument("--events", type=int, default=int(os.environ.get("EVENTS", "1000000")))
    parser.add_argument("--players", type=int, default=int(os.environ.get("PLAYERS", "5000")))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WORKERS", "2")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SEED", "1")))
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        print("scale_db: DATABASE_URL must name a PostgreSQL database (postgres://user:pass@host:port/name).")
        return 2
    if args.games < 1 or args.players < 8 or args.workers < 0 or args.events < 0:
        print(
            "scale_db: --games must be at least 1, --players at least 8, --workers and --events not negative."
        )
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pirates_site.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    from games.models import Game

    began = time.perf_counter()
    call_command("migrate", interactive=False, verbosity=0)
    if Game.objects.exists():
        print(f"scale_db: the database {url.rsplit('/', 1)[-1]} already has games; give an empty one.")
        return 2
    print(f"scale_db: building into {url.rsplit('@', 1)[-1]} with {args.workers} worker(s)", flush=True)

    def report(text: str) -> None:
        print(f"  [{time.perf_counter() - began:7.1f} s] {text}", flush=True)

    games, events = build(
        games=args.games,
        events=args.events,
        players=args.players,
        workers=args.workers,
        seed=args.seed,
        progress=report,
    )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute("SELECT status, COUNT(*) FROM games_game GROUP BY status ORDER BY status")
        mix = ", ".join(f"{status} {count}" for status, count in cursor.fetchall())
        cursor.execute("SELECT COUNT(*) FROM games_snapshot")
        snapshots = cursor.fetchone()[0]
        cursor.execute("SELECT pg_size_pretty(pg_database_size(current_database()))")
        size = cursor.fetchone()[0]
    print(
        f"scale_db: {games} games ({mix}), {events} events, {snapshots} snapshots, {args.players} players; "
        f"database {size}; {time.perf_counter() - began:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
