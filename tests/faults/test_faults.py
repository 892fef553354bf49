"""Fault injection against the production processes (issue: reliability).

One stack (PostgreSQL, Redis with append-only persistence, an SMTP server, gunicorn, the
Celery worker and beat, all on ports and folders of their own) serves the whole module; each
test breaks one part while clients play, lets it recover, and checks what the service
promises:

- no committed move was answered with an error;
- every event replays (``manage.py replay_check``, the hash chain included);
- every person waiting for their turn got exactly one turn email for it;
- every bot game moves again within a minute of recovery.

The figures of each fault (errors seen by clients, seconds to recover, emails per waiting
turn, stalled games) are written to ``artifacts/fault-figures.json``; CI prints them.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests import realservers
from tests.faults.harness import (
    GameUnderTest,
    OwnPostgres,
    OwnRedis,
    Stack,
    faults_problem,
    wait_until,
)
from tests.notifications.smtp_sink import Sink

pytestmark = [pytest.mark.faults, pytest.mark.slow]

FIGURES = realservers.ROOT / "artifacts" / "fault-figures.json"
RECOVERY_LIMIT = 60.0


class Smtp:
    """An SMTP server that can be taken down and brought back on the same port."""

    def __init__(self, sink: Sink, port: int) -> None:
        self.sink, self.port = sink, port
        self.controller: Controller | None = None

    def up(self) -> None:
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def down(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    problem = faults_problem()
    if problem:
        pytest.skip(f"[faults] {problem}")
    root = tmp_path_factory.mktemp("faults")
    os.chmod(root, 0o755)
    sink = Sink()
    smtp = Smtp(sink, realservers.free_port())
    pg, redis = OwnPostgres(), OwnRedis(root)
    the_stack = Stack(root=root, sink=sink, smtp_port=smtp.port, pg=pg, redis=redis)
    the_stack.smtp = smtp  # type: ignore[attr-defined]
    smtp.up()
    try:
        pg.create()
        redis.start()
        the_stack.configure({})
        the_stack.boot()
        yield the_stack
    finally:
        the_stack.stop_all()
        smtp.down()
        redis.stop()
        pg.destroy()


def _record(fault: str, figures: dict[str, Any]) -> None:
    FIGURES.parent.mkdir(exist_ok=True)
    everything = json.loads(FIGURES.read_text()) if FIGURES.exists() else {}
    everything[fault] = figures
    FIGURES.write_text(json.dumps(everything, indent=2, sort_keys=True) + "\n")


def _games(stack: Stack, fault: str, people: int = 2, bots: int = 2) -> list[GameUnderTest]:
    return [stack.new_game(f"{fault} people {i}") for i in range(people)] + [
        stack.new_game(f"{fault} bots {i}", bots=2) for i in range(bots)
    ]


def _errors(stack: Stack, since: int) -> dict[str, int]:
    counts = Counter(str(a.status) for a in stack.attempts[since:] if not 200 <= a.status < 300)
    return dict(sorted(counts.items()))


def _promises(
    stack: Stack, games: list[GameUnderTest], figures: dict[str, Any], since: int = 0
) -> None:
    """What every fault must leave behind, with the figures for the note. Emails count from
    the ``since``-th message the SMTP server received."""
    began = time.monotonic()
    figures["seconds_until_bot_games_move"] = round(stack.seconds_until_bots_move(games, RECOVERY_LIMIT), 1)
    figures["stalled_bot_games"] = len(stack.stalled_bot_games(games))
    assert figures["stalled_bot_games"] == 0

    waiting = stack.waiting_turns(games)
    wait_until(lambda: all(stack.turn_emails(since)[turn] >= 1 for turn in waiting), RECOVERY_LIMIT,
               "a turn email for every waiting player")
    figures["seconds_until_waiting_players_emailed"] = round(time.monotonic() - began, 1)
    time.sleep(3)  # a duplicate would arrive now
    counts = stack.turn_emails(since)
    figures["emails_per_waiting_turn"] = sorted(Counter(counts[turn] for turn in waiting).items())
    figures["turns_emailed_twice"] = sum(1 for n in counts.values() if n > 1)
    assert all(counts[turn] == 1 for turn in waiting), {t: counts[t] for t in waiting}
    assert figures["turns_emailed_twice"] == 0

    wrong = stack.committed_with_error()
    figures["committed_moves_answered_with_error"] = len(wrong)
    assert wrong == []
    check = stack.replay_check()
    figures["replay_check"] = "ok" if check.returncode == 0 else check.stdout[-500:] + check.stderr[-500:]
    assert check.returncode == 0, check.stdout + check.stderr


def test_redis_stopped_during_moves(stack: Stack) -> None:
    rng = random.Random(1)
    games = _games(stack, "redis")
    stack.play(games, 4, rng)
    first = len(stack.attempts)
    stack.redis.stop()
    moves = stack.play(games, 8, rng)
    stack.redis.start()
    figures: dict[str, Any] = {"moves_tried_during_outage": moves, "client_errors": _errors(stack, first)}
    stack.play(games, 3, rng)
    _promises(stack, games, figures)
    _record("redis stopped for 8 s during moves", figures)
    assert figures["client_errors"] == {}, "a move during the Redis outage was answered with an error"


def test_smtp_down_then_back(stack: Stack) -> None:
    rng = random.Random(2)
    games = _games(stack, "smtp")
    smtp = stack.smtp  # type: ignore[attr-defined]
    smtp.down()
    first = len(stack.attempts)
    moves = stack.play(games, 6, rng)
    waiting_during = len(stack.waiting_turns(games))
    time.sleep(6)  # sends fail and are retried meanwhile
    smtp.up()
    figures: dict[str, Any] = {"moves_tried_while_down": moves, "client_errors": _errors(stack, first),
                               "turns_waiting_while_down": waiting_during}
    _promises(stack, games, figures)
    _record("SMTP down for 12 s", figures)
    assert figures["client_errors"] == {}


def test_worker_killed(stack: Stack) -> None:
    rng = random.Random(3)
    games = _games(stack, "worker", people=1, bots=3)
    stack.play(games, 3, rng)
    before = stack.ready_count("worker")
    worker = stack.processes["worker"]
    # SIGKILL every process of the worker but its supervisor: the Celery main process and its
    # pool children die as they would under the kernel's OOM killer.
    children = subprocess.run(["pgrep", "-s", str(worker.pid)], capture_output=True, text=True).stdout.split()
    killed = [int(pid) for pid in children if int(pid) != worker.pid]
    for pid in killed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    first = len(stack.attempts)
    moves = stack.play(games, 4, rng)  # moves keep coming while the worker is gone
    began = time.monotonic()
    stack.wait_ready("worker", before, RECOVERY_LIMIT)
    figures: dict[str, Any] = {
        "processes_killed": len(killed),
        "seconds_until_worker_back": round(time.monotonic() - began, 1),
        "moves_tried_while_gone": moves,
        "client_errors": _errors(stack, first),
    }
    _promises(stack, games, figures)
    _record("worker killed (SIGKILL)", figures)
    assert killed, "found no worker process to kill"
    assert figures["client_errors"] == {}


def test_postgres_restarted(stack: Stack) -> None:
    rng = random.Random(4)
    games = _games(stack, "postgres")
    stack.play(games, 3, rng)
    first = len(stack.attempts)
    stack.pg.stop("fast")
    moves = stack.play(games, 5, rng)  # refused: nothing can commit without the database
    stack.pg.start()
    figures: dict[str, Any] = {"moves_tried_while_down": moves, "client_errors": _errors(stack, first)}
    began = time.monotonic()
    wait_until(lambda: stack.players[0].get("/api/games/").ok, RECOVERY_LIMIT, "the API to answer again")
    figures["seconds_until_api_answers"] = round(time.monotonic() - began, 1)
    stack.play(games, 3, rng)
    _promises(stack, games, figures)
    _record("PostgreSQL restarted (down 5 s)", figures)


def test_wrong_state_in_the_shared_cache(stack: Stack) -> None:
    """Another game's cached state copied under a game's key is never used: the table shown
    and the moves accepted are those of the game's own log."""
    rng = random.Random(5)
    first_a, first_b = stack.new_game("cache a"), stack.new_game("cache b")
    spectator = stack.players[2]
    for _ in range(20):  # two games at the same seq whose next seats differ
        a, b = (spectator.get(f"/api/games/{g.id}/").body for g in (first_a, first_b))
        if a["seq"] == b["seq"] and a["to_act"] != b["to_act"]:
            break
        behind = first_a if a["seq"] < b["seq"] or a["to_act"] == b["to_act"] else first_b
        stack.move(behind, rng)
    else:
        pytest.fail("could not bring two games to the same seq with different seats to act")
    keys = stack.redis.cli("--scan", "--pattern", "*").split()
    entries = {key: stack.redis.cli("--raw", "get", key) for key in keys if "state" in key}
    assert len(entries) >= 2, keys
    # Every state entry gets the value of another: whichever belongs to game B lands on A's key.
    values = list(entries.values())
    for key, value in zip(entries, values[1:] + values[:1], strict=True):
        stack.redis.cli("set", key, value.rstrip("\n"))
    after_a = spectator.get(f"/api/games/{first_a.id}/").body
    assert after_a["view"] == a["view"], "a GET showed a table that is not the game's own"
    # The seat to act in B tries, in A, a move that is legal for it in B.
    wrong_seat = b["to_act"][0]
    legal_in_b = first_b.seats[wrong_seat].get(f"/api/games/{first_b.id}/").body["legal_actions"]
    answer = first_a.seats[wrong_seat].post(
        f"/api/games/{first_a.id}/actions/",
        {"action": legal_in_b[0], "expected_seq": a["seq"], "idempotency_key": "wrong-seat"},
    )
    assert answer.status in (400, 403, 409), answer.body
    assert spectator.get(f"/api/games/{first_a.id}/").body["seq"] == a["seq"]
    figures: dict[str, Any] = {"entries_swapped": len(entries), "table_shown": "the game's own"}
    stack.play([first_a, first_b], 3, rng)
    check = stack.replay_check()
    assert check.returncode == 0, check.stdout + check.stderr
    assert stack.committed_with_error() == []
    _record("wrong state under a game's cache key", figures)


def test_database_restored_behind_running_service(stack: Stack, tmp_path: Path) -> None:
    """Dump, play on (the caches now hold states of the lost history), restore the dump, play
    on past the old seqs: every move is judged by the restored log, never by a stale cache."""
    rng = random.Random(6)
    games = _games(stack, "restore", people=3, bots=1)
    stack.play(games, 3, rng)
    dump = tmp_path / "app.dump"
    stack.pg.dump(dump)
    stack.play(games, 6, rng)
    stack.pg.restore(dump)
    # Turns of the lost history were emailed; the restored history emails its own turns again.
    emails_from = len(stack.sink.received())
    first = len(stack.attempts)
    moves = stack.play(games, 10, rng)
    figures: dict[str, Any] = {"moves_after_restore": moves, "client_errors": _errors(stack, first)}
    _promises(stack, games, figures, since=emails_from)
    _record("database restored behind the running service", figures)
