"""Fault injection against the production processes.

One stack (PostgreSQL, Redis with append-only persistence, an SMTP server, gunicorn, the
Celery worker, the mail worker where the checkout has one, and beat, all on ports and
folders of their own) serves the whole module; each test breaks one part more than once while
clients play people's games and games against bots, lets it recover, and checks what the
service promises:

- no committed move was answered with an error;
- every bot game moves again, and every person waiting for their turn is emailed, within a
  minute of the fault ending, with no one restarting anything by hand;
- exactly one turn email per waiting turn (after a database crash between the mail server's
  accept and the commit, a second copy is tolerated only as the same message: one Message-ID);
- every event replays (``manage.py replay_check``, the hash chain included).

Each fault writes one row of figures to ``artifacts/fault-figures.json`` (load, client 5xx,
committed moves answered with an error, recovery seconds, emails per waiting turn, stalled
games, replay_check, and the fault's own figures), also when its promises fail: the row is
written first, the test fails after. CI prints the file.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import realservers
from tests.faults.harness import (
    GameUnderTest,
    HoldingSink,
    OwnPostgres,
    OwnRedis,
    Phase,
    Row,
    Smtp,
    Stack,
    faults_problem,
    percentile,
    recording,
    wait_for,
)

pytestmark = [pytest.mark.faults, pytest.mark.slow]

RECOVERY_LIMIT = 60.0
# A person thinks up to this long before each move: turns left longer than the take-back
# grace (2 s in this stack) are emailed, so mail is being sent while people play.
THINK = 4.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    problem = faults_problem()
    if problem:
        pytest.skip(f"[faults] {problem}")
    root = tmp_path_factory.mktemp("faults")
    os.chmod(root, 0o755)
    sink = HoldingSink()
    smtp = Smtp(sink, realservers.free_port())
    pg, redis = OwnPostgres(), OwnRedis(root)
    the_stack = Stack(root=root, sink=sink, smtp=smtp, pg=pg, redis=redis)
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


def _games(stack: Stack, fault: str, people: int = 2, bots: int = 2) -> list[GameUnderTest]:
    """``people`` games of three people and ``bots`` games of one person and two bots."""
    return [stack.new_game(f"{fault} people {i}") for i in range(people)] + [
        stack.new_game(f"{fault} bots {i}", bots=2) for i in range(bots)
    ]


def _running(stack: Stack, games: list[GameUnderTest], fault: str) -> list[GameUnderTest]:
    """``games`` with each finished one replaced by a new game of the same kind."""
    fresh = []
    for number, game in enumerate(games):
        detail = next(iter(game.seats.values())).get(f"/api/games/{game.id}/")
        if detail.ok and detail.body["status"] != "active":
            game = stack.new_game(f"{fault} again {number}", bots=len(game.bots))
        fresh.append(game)
    return fresh


def _load(stack: Stack, row: Row, games: list[GameUnderTest]) -> None:
    row.clients = len(stack.players)
    row.games = max(row.games, len(games))


class BotWaits:
    """The longest a bot game waited for its bot during a phase, from the clients' polls
    (at most one poll round per second)."""

    def __init__(self, stack: Stack, games: list[GameUnderTest]) -> None:
        self.stack, self.games = stack, [game for game in games if game.bots]
        self.first_seen: dict[tuple[int, int], float] = {}
        self.longest = 0.0
        self.polled = 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if now - self.polled < 1:
            return
        self.polled = now
        for game in self.games:
            detail = next(iter(game.seats.values())).get(f"/api/games/{game.id}/")
            if detail.ok and detail.body["status"] == "active" and set(detail.body["to_act"]) & game.bots:
                since = self.first_seen.setdefault((game.id, detail.body["seq"]), now)
                self.longest = max(self.longest, now - since)


def _kill_and_recover(stack: Stack, names: list[str], row: Row, games: list[GameUnderTest],
                      rng: random.Random, phase: Phase) -> None:
    """SIGKILL the Celery processes of ``names`` while people play; their supervisors must
    start them again."""
    before = {name: stack.ready_count(name) for name in names}
    for name in names:
        killed = stack.kill_supervised(name)
        row.expect(bool(killed), f"found no {name} process to kill")
        row.extra["processes_killed"] = int(row.extra.get("processes_killed", 0)) + len(killed)
    killed_at = time.monotonic()
    row.moves_tried += stack.play(games, 4, rng, think=THINK)  # moves keep coming meanwhile
    for name in names:
        stack.wait_ready(name, before[name], RECOVERY_LIMIT)
        row.extra.setdefault(f"seconds_until_{name}_back", []).append(round(time.monotonic() - killed_at, 1))
    stack.check_recovery(games, row, back_at=time.monotonic(), since=phase)


def test_worker_killed(stack: Stack) -> None:
    """The worker's Celery processes (and the mail worker's, where there is one) die as under
    the kernel's OOM killer, twice; their supervisors start them again and nothing is lost."""
    rng = random.Random(3)
    names: list[str] = [name for name in ("worker", "mailer") if name in stack.processes]
    with recording(f"{' and '.join(names)} killed (SIGKILL), twice") as row:
        games = _games(stack, "worker", people=1, bots=3)
        _load(stack, row, games)
        phase = Phase(stack)
        for _ in range(2):
            row.repeats += 1
            row.moves_tried += stack.play(games, 3, rng, think=THINK)
            _kill_and_recover(stack, names, row, games, rng, phase)
            stack.heal(games, row)


def _beat_sent(stack: Stack, name: str, entry: str) -> int:
    text = stack.log(name).read_text(errors="replace") if stack.log(name).exists() else ""
    return text.count(f"Sending due task {entry} ")


def _beat_sends_again(stack: Stack, entry: str, before: int) -> bool:
    """Whether beat sends ``entry`` a few more times within 30 s (it is due every 2 s here)."""
    return wait_for(lambda: _beat_sent(stack, "beat", entry) > before + 2, time.monotonic() + 30)


def test_beat_killed(stack: Stack) -> None:
    """Beat's Celery process dies; its supervisor starts it again and the periodic relay and
    sweep go on (beat logs each entry it sends)."""
    rng = random.Random(8)
    with recording("beat killed (SIGKILL), twice") as row:
        games = _games(stack, "beat")
        _load(stack, row, games)
        phase = Phase(stack)
        for _ in range(2):
            row.repeats += 1
            row.moves_tried += stack.play(games, 3, rng, think=THINK)
            sent = {entry: _beat_sent(stack, "beat", entry) for entry in ("outbox-relay", "sweep")}
            _kill_and_recover(stack, ["beat"], row, games, rng, phase)
            for entry, before in sent.items():
                row.expect(_beat_sends_again(stack, entry, before), f"the restarted beat sent no {entry}")
            stack.heal(games, row)


def test_two_beats_at_once(stack: Stack) -> None:
    """A second beat (a deployment mistake: two beat containers) runs beside the first for a
    while: each relay and sweep then runs twice as often, yet nothing happens twice."""
    rng = random.Random(9)
    with recording("two beats at once, twice for 10 s") as row:
        games = _games(stack, "two beats")
        _load(stack, row, games)
        phase = Phase(stack)
        for _ in range(2):
            row.repeats += 1
            before = stack.bot_moves(games)
            stack.start("beat2", command="beat", env={"VAR_DIR": str(stack.root / "var-beat2")})
            started = _beat_sent(stack, "beat2", "outbox-relay")
            row.moves_tried += stack.play(games, 10, rng, think=THINK)
            row.expect(_beat_sent(stack, "beat2", "outbox-relay") > started, "the second beat sent no relay")
            stack.stop("beat2")
            stack.check_recovery(games, row, back_at=time.monotonic(), since=phase)
            row.extra["bot_moves"] = int(row.extra.get("bot_moves", 0)) + stack.bot_moves(games) - before
        ids = ",".join(str(game.id) for game in games)
        published = stack.query(f"SELECT kind, count(*) FROM games_outbox WHERE game_id IN ({ids}) "
                                "AND attempts > 1 GROUP BY kind")
        row.extra["outbox_rows_published_more_than_once"] = {kind: int(n) for kind, n in published}


def test_smtp_down_then_back(stack: Stack) -> None:
    rng = random.Random(2)
    with recording("SMTP down for 10 s, twice") as row:
        games = _games(stack, "smtp")
        _load(stack, row, games)
        phase = Phase(stack)
        for _ in range(2):
            row.repeats += 1
            stack.smtp.down()
            row.moves_tried += stack.play(games, 10, rng, think=THINK)  # sends fail and are retried
            stack.smtp.up()
            stack.check_recovery(games, row, back_at=time.monotonic(), since=phase)
            stack.heal(games, row)


def test_postgres_crashes_while_mail_is_sent(stack: Stack) -> None:
    """``pg_ctl -m immediate`` (a crash: no shutdown checkpoint, connections cut) five times,
    each right after the mail server took a turn email and before it said "accepted": the
    sender cannot record the send before the database is gone, the duplicate window. The row
    says how many turns were then emailed twice and whether the copies share their Message-ID
    (they must: the same notification is the same message)."""
    rng = random.Random(4)
    with recording("PostgreSQL crashed (pg_ctl -m immediate) 5 times while mail is sent") as row:
        games = _games(stack, "postgres", people=3, bots=2)
        _load(stack, row, games)
        phase = Phase(stack)
        answers_500 = 0
        caught_mid_send = 0
        for _ in range(5):
            row.repeats += 1
            games = _running(stack, games, "postgres")
            arrived = stack.turn_email_arrived()
            # Each message is held 2 s before "250 accepted": the crash comes in that window.
            stack.sink.hold = 2.0
            try:
                row.moves_tried += stack.play(games, 30, rng, think=THINK, until=arrived)
                caught_mid_send += arrived()
                stack.pg.stop("immediate")
            finally:
                stack.sink.hold = 0.0
            outage = Phase(stack)
            row.moves_tried += stack.play(games, 2, rng, think=THINK)  # no database: refused
            answers_500 += sum(status == 500 for status in stack.answers[outage.answers:])
            stack.pg.start()
            stack.check_recovery(games, row, back_at=time.monotonic(), since=phase, crash_duplicates=True)
            stack.heal(games, row)
        row.extra["crashes_while_an_email_awaited_its_accept"] = caught_mid_send
        row.extra["answers_500_while_down"] = answers_500
        row.expect(caught_mid_send == row.repeats,
                   f"only {caught_mid_send} of {row.repeats} crashes came while an email was sent")
        # A database outage is answered 503 (try again), never 500 (our fault).
        row.expect(answers_500 == 0, f"{answers_500} requests answered 500 while PostgreSQL was down")


@pytest.mark.parametrize("seconds", [5, 20, 45])
def test_redis_stopped(stack: Stack, seconds: int) -> None:
    """Redis (broker, results, shared cache) stopped ``seconds`` s, three times, while people
    play: moves commit and answer; once it is back, bots move and turns are emailed again
    without anyone restarting a worker."""
    rng = random.Random(seconds)
    with recording(f"Redis stopped for {seconds} s, 3 times") as row:
        # Three bot games keep tasks running in the worker when Redis goes (acks then fail).
        games = _games(stack, f"redis {seconds}", people=2, bots=3)
        _load(stack, row, games)
        phase = Phase(stack)
        for _ in range(3):
            row.repeats += 1
            games = _running(stack, games, f"redis {seconds}")
            row.moves_tried += stack.play(games, 2, rng, think=THINK)
            stack.redis.stop()
            row.moves_tried += stack.play(games, seconds, rng, think=THINK)
            stack.redis.start()
            stack.check_recovery(games, row, back_at=time.monotonic(), since=phase)
            stack.heal(games, row)


def _refused_settles(stack: Stack) -> int:
    return stack.log_count("mailer", "Couldn't ack", "Couldn't reject")


def _redis_stopped_mid_send(stack: Stack, games: list[GameUnderTest], rng: random.Random,
                            row: Row) -> tuple[float, float]:
    """Plays until both mail processes are sending (to a mail server answering each command
    1.5 s late), stops Redis, and starts it again once the sends have ended and an ack was
    refused (or after a minute). Returns when Redis came back: (monotonic, wall clock)."""
    refused = _refused_settles(stack)
    stack.smtp.delay = 1.5  # a send takes about ten seconds
    stopped = False
    try:
        row.moves_tried += stack.play(games, 90, rng, think=THINK, until=lambda: stack.smtp.sessions >= 2)
        both_busy = stack.smtp.sessions >= 2
        stack.redis.stop()
        stopped = True
        wait_for(lambda: stack.smtp.sessions == 0 and _refused_settles(stack) > refused,
                 time.monotonic() + 60)
    finally:
        stack.smtp.delay = 0.0
        if stopped:
            stack.redis.start()
    row.extra.setdefault("tries", []).append(
        {"both_busy": both_busy, "acks_refused": _refused_settles(stack) - refused})
    return time.monotonic(), time.time()


def test_redis_stopped_while_the_mailer_sends(stack: Stack) -> None:
    """Redis stopped while both processes of the mail worker are inside a send to a slow mail
    server, three times: the sends end while Redis is down, so the broker refuses their acks
    ("Couldn't ack"). Once Redis is back the mail worker consumes again by itself, not once its
    supervisor has found it idle and restarted it, and every waiting turn is emailed."""
    rng = random.Random(11)
    beat_file = next((stack.root / "var").glob("worker-heartbeat-*-mail"))
    with recording("Redis stopped while every mail process sends, 3 times") as row:
        games = _games(stack, "busy mailer", people=4, bots=0)
        _load(stack, row, games)
        phase = Phase(stack)
        refused_before = _refused_settles(stack)
        for _ in range(3):
            row.repeats += 1
            games = _running(stack, games, "busy mailer")
            row.expect(stack.mail_quiet(games, 60), "turn emails still pending before the outage")
            stops = stack.liveness_stops("mailer")
            back_at, back_wall = _redis_stopped_mid_send(stack, games, rng, row)
            # Consuming again: a heartbeat (or a task) of the mail lane taken after Redis is back.
            consumed = wait_for(lambda: beat_file.stat().st_mtime > back_wall,  # noqa: B023
                                back_at + RECOVERY_LIMIT)
            row.expect(consumed, f"the mail worker took nothing {RECOVERY_LIMIT:.0f} s after Redis was back")
            row.expect(stack.liveness_stops("mailer") == stops,
                       "the mail worker sat idle after Redis was back until its supervisor restarted it")
            stack.check_recovery(games, row, back_at=back_at, since=phase)
        row.expect(_refused_settles(stack) > refused_before,
                   "no ack was refused in three tries: the fault never happened")


NOISE = 0.08  # seconds


def test_smtp_tarpit(stack: Stack) -> None:
    """A mail server answering every command 8 s late, for 60 s, while people play: moves
    are answered as fast as in the same games' 60 s just before without it (p99 within 1.5
    times), bot games keep moving (at least half as many bot moves), and once the server is
    normal every waiting turn is emailed."""
    rng = random.Random(7)
    seconds = 60.0  # a send (greeting, EHLO, MAIL, RCPT, DATA, the message, QUIT) takes 56 s
    with recording(f"SMTP tarpit: each command answered after 8 s, for {seconds:.0f} s") as row:
        figures: dict[str, dict[str, Any]] = {}
        games: list[GameUnderTest] = []
        for name in ("baseline", "tarpit"):
            # Each phase sends its own mail: the baseline's is out before the tarpit begins.
            row.expect(stack.mail_quiet(games, 60), f"turn emails still pending before the {name}")
            # Each phase plays new games: the phases' bot moves are compared, and games a
            # phase old have fewer moves left (when the bots kept up, some end in the next).
            games = _games(stack, f"tarpit {name}", people=3, bots=3)
            _load(stack, row, games)
            phase = Phase(stack)
            bots_before = stack.bot_moves(games)
            waits = BotWaits(stack, games)
            stack.smtp.delay = 8.0 if name == "tarpit" else 0.0
            try:
                moves = stack.play(games, seconds, rng, think=THINK, watch=waits)
            finally:
                stack.smtp.delay = 0.0
            back = time.monotonic()
            latencies = [a.seconds for a in stack.attempts[phase.attempts:]]
            figures[name] = {
                "moves_tried": moves,
                "submit_p50_s": round(percentile(latencies, 50), 3),
                "submit_p99_s": round(percentile(latencies, 99), 3),
                "slowest_submits_s": [round(x, 3) for x in sorted(latencies)[-5:]],
                "bot_moves": stack.bot_moves(games) - bots_before,
                "longest_wait_for_a_bot_s": round(waits.longest, 1),
            }
            row.moves_tried += moves
            if name == "tarpit":
                row.repeats += 1
                stack.check_recovery(games, row, back_at=back, since=phase)
                stack.heal(games, row)
        row.extra.update(figures)
        base, slow = figures["baseline"], figures["tarpit"]
        # The promise is p99 within 1.5 times the baseline's. Submits take tens of
        # milliseconds here, so a busy CI machine's scheduling alone can move one p99 by more
        # than half; NOISE (a hundredth of one tarpit reply) keeps that from failing a correct
        # build, while a submit that waited on the mail server even once per hundred (8 s)
        # still fails it. The raw ratio is in the figures.
        slow["p99_ratio_to_baseline"] = round(slow["submit_p99_s"] / max(base["submit_p99_s"], 1e-6), 2)
        row.expect(slow["submit_p99_s"] <= 1.5 * base["submit_p99_s"] + NOISE,
                   f"submit p99 {slow['submit_p99_s']} s in the tarpit, {base['submit_p99_s']} s without")
        row.expect(slow["bot_moves"] >= 0.5 * base["bot_moves"],
                   f"bots moved {slow['bot_moves']} times in the tarpit, {base['bot_moves']} without")


def test_wrong_state_in_the_shared_cache(stack: Stack) -> None:
    """Another game's cached state copied under a game's key is never used: the table shown
    and the moves accepted are those of the game's own log."""
    rng = random.Random(5)
    spectator = stack.players[2]
    with recording("wrong state under a game's cache key") as row:
        # Two games at seq 0 whose first players differ. The first player is drawn from each
        # game's seed (P-SET-4), so each new game matches all the earlier ones with chance 1/3.
        seen: list[tuple[GameUnderTest, list[int]]] = []
        for number in range(12):
            game = stack.new_game(f"cache {number}")
            to_act = spectator.get(f"/api/games/{game.id}/").body["to_act"]
            other = next((g for g, first in seen if first != to_act), None)
            if other is not None:
                first_a, first_b = other, game
                break
            seen.append((game, to_act))
        else:
            pytest.fail("twelve games in a row had the same first player")
        _load(stack, row, [first_a, first_b])
        phase = Phase(stack)
        row.repeats = 1
        a, b = (spectator.get(f"/api/games/{g.id}/").body for g in (first_a, first_b))
        assert a["seq"] == b["seq"] and a["to_act"] != b["to_act"], (a, b)
        keys = stack.redis.cli("--scan", "--pattern", "*").split()
        entries = {key: stack.redis.cli("--raw", "get", key) for key in keys if "state" in key}
        assert len(entries) >= 2, keys
        # Every state entry gets the value of another: whichever belongs to B lands on A's key.
        values = list(entries.values())
        for key, value in zip(entries, values[1:] + values[:1], strict=True):
            stack.redis.cli("set", key, value.rstrip("\n"))
        row.extra["entries_swapped"] = len(entries)
        after_a = spectator.get(f"/api/games/{first_a.id}/").body
        row.expect(after_a["view"] == a["view"], "a GET showed a table that is not the game's own")
        # The seat to act in B tries, in A, a move that is legal for it in B.
        wrong_seat = b["to_act"][0]
        legal_in_b = first_b.seats[wrong_seat].get(f"/api/games/{first_b.id}/").body["legal_actions"]
        answer = first_a.seats[wrong_seat].post(
            f"/api/games/{first_a.id}/actions/",
            {"action": legal_in_b[0], "expected_seq": a["seq"], "idempotency_key": "wrong-seat"},
        )
        row.expect(answer.status in (400, 403, 409), f"a move legal only in B answered {answer.status} in A")
        row.expect(spectator.get(f"/api/games/{first_a.id}/").body["seq"] == a["seq"],
                   "a move legal only in another game was appended")
        row.moves_tried += stack.play([first_a, first_b], 3, rng)
        stack.check_recovery([first_a, first_b], row, back_at=time.monotonic(), since=phase)


def test_database_restored_behind_running_service(stack: Stack, tmp_path: Path) -> None:
    """Dump, play on (the caches now hold states of the lost history), restore the dump, play
    on past the old seqs: every move is judged by the restored log, never by a stale cache."""
    rng = random.Random(6)
    with recording("database restored behind the running service") as row:
        games = _games(stack, "restore", people=3, bots=1)
        _load(stack, row, games)
        row.repeats = 1
        row.moves_tried += stack.play(games, 2, rng)
        dump = tmp_path / "app.dump"
        stack.pg.dump(dump)
        row.moves_tried += stack.play(games, 4, rng)
        stack.pg.restore(dump)
        # Turns of the lost history were emailed; the restored history emails its own again.
        phase = Phase(stack)
        row.moves_tried += stack.play(games, 6, rng)
        stack.check_recovery(games, row, back_at=time.monotonic(), since=phase)
        # The last test: every game the module played replays, not only this test's.
        row.replay(stack.replay_check())

