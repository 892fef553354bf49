"""``manage.py replay_check``: replay every started game from seq 1, ignoring snapshots and
caches, and compare with what is stored: every snapshot of the game and the read columns
(seq, status, to_act, result). It also verifies the hash chain (engine/chain.py): every
event's stored hash must be the hash of its content and the stored hash before it, and the
game row's head must be the last event's hash. Prints each difference; exits 1 if there is any.

Snapshots are a shortcut and the read columns a copy; the log is the truth. This command is
how we know the shortcut and the copy still agree with it (after a rule change, a migration,
or a manual fix in the database).
"""

from __future__ import annotations

import json
import resource
import time
from argparse import ArgumentParser
from collections.abc import Iterator
from itertools import groupby
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import QuerySet

from engine.chain import GENESIS, event_hash
from games.models import Event, Game, Snapshot
from games.read.state import apply_events, new_game_state, rules_for

BAR_WIDTH = 30
# Games per batch, and rows per fetch of the events' and snapshots' server-side cursors.
BATCH = 200
CHUNK = 2000


def _plain(text: str) -> str:
    return text


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_difference(stored: Any, replayed: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``path: stored … replayed …``."""
    if isinstance(stored, dict) and isinstance(replayed, dict):
        for key in sorted(set(stored) | set(replayed), key=str):
            if key not in stored or key not in replayed or stored[key] != replayed[key]:
                return _first_difference(stored.get(key), replayed.get(key), f"{path}.{key}")
    if isinstance(stored, list) and isinstance(replayed, list) and len(stored) == len(replayed):
        for i, (a, b) in enumerate(zip(stored, replayed, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{i}]")
    return f"{path or '(whole state)'}: stored {_short(stored)}, replayed {_short(replayed)}"


def check_game(
    game: Game, events: list[Event] | None = None, snapshots: list[Snapshot] | None = None
) -> Iterator[str]:
    """Every difference between ``game``'s stored copies and a replay of its log from seq 1.
    ``events`` and ``snapshots`` (in seq order) are the game's, when the caller read them
    already; otherwise they are read here."""
    label = f"game {game.pk}"
    if events is None:
        events = list(Event.objects.filter(game=game).order_by("seq"))
    if snapshots is None:
        snapshots = list(Snapshot.objects.filter(game=game).order_by("seq"))
    if not events or events[0].kind != Event.Kind.GAME_STARTED or events[0].seq != 1:
        yield f"{label}: the log does not start with game_started at seq 1"
        return
    seqs = [event.seq for event in events]
    if seqs != list(range(1, len(events) + 1)):
        missing = sorted(set(range(1, seqs[-1] + 1)) - set(seqs))
        yield f"{label}: the log has gaps (missing seq {', '.join(map(str, missing[:10]))})"
        return
    yield from _check_chain(game, label, events)
    rules = rules_for(game)
    by_seq = {s.seq: s for s in snapshots}
    try:
        state = new_game_state(game, events[0])
    except Exception as exc:
        yield f"{label} seq 1: the game cannot be set up again: {exc}"
        return
    # The states after the last two events: a take-back returns to the one before its move.
    recent: dict[int, object] = {1: state}
    for event in events:
        if event.seq > 1:
            try:
                if event.kind == Event.Kind.TAKE_BACK:
                    state = recent[int(event.payload["takes_back"]) - 1]
                else:
                    state = apply_events(rules, state, [event])
                recent = {event.seq - 1: recent.get(event.seq - 1), event.seq: state}
            except Exception as exc:
                yield f"{label} seq {event.seq}: the replay fails: {exc}"
                return
        snapshot = by_seq.pop(event.seq, None)
        if snapshot is None:
            continue
        if snapshot.rules_version != game.rules_version:
            yield (
                f"{label} seq {event.seq}: snapshot is for rules version {snapshot.rules_version}, "
                f"the game plays version {game.rules_version}"
            )
            continue
        replayed = rules.dump(state)
        if snapshot.state != replayed:
            where = _first_difference(snapshot.state, replayed)
            yield f"{label} seq {event.seq}: snapshot differs from the replay at {where}"
    for seq in sorted(by_seq):
        yield f"{label} seq {seq}: a snapshot exists past the end of the log (last seq {events[-1].seq})"
    yield from _check_columns(game, label, events[-1].seq, rules.to_act(state), rules.result(state))


def _check_chain(game: Game, label: str, events: list[Event]) -> Iterator[str]:
    """Each link on its own (against the stored hash before it), so a changed event is named
    alone rather than with every event after it; then the head."""
    prev = GENESIS
    for event in events:
        expected = event_hash(
            prev, seq=event.seq, kind=event.kind, seat=event.seat, payload=event.payload, actor=event.actor
        )
        if event.hash != expected:
            yield (
                f"{label} seq {event.seq}: the hash chain is broken: stored hash {event.hash or '(none)'}, "
                f"its content and the previous hash give {expected} (this event or its hash was altered)"
            )
        prev = event.hash
    if game.head != events[-1].hash:
        yield (
            f"{label}: column head is {game.head or '(none)'}, the last event (seq {events[-1].seq}) "
            f"has hash {events[-1].hash or '(none)'}"
        )


def _check_columns(game: Game, label: str, last_seq: int, to_act: list[int], result: Any) -> Iterator[str]:
    if game.status == Game.Status.ABORTED:
        expected_status, to_act, result = Game.Status.ABORTED, [], None
    else:
        expected_status = Game.Status.FINISHED if result is not None else Game.Status.ACTIVE
    expected = {"seq": last_seq, "status": expected_status, "to_act": to_act, "result": result}
    stored = {"seq": game.seq, "status": game.status, "to_act": list(game.to_act), "result": game.result}
    for column, value in expected.items():
        if stored[column] != value:
            yield f"{label}: column {column} is {_short(stored[column])}, the replay gives {_short(value)}"


class Command(BaseCommand):
    help = (
        "Replay every started game from seq 1, compare with its snapshots and read columns, "
        "and verify its hash chain."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--game", type=int, action="append", help="check only this game id (repeatable)")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
        parser.add_argument(
            "--batch", type=int, default=BATCH, help=f"games read per batch (default {BATCH})"
        )

    def _progress(self, done: int, total: int) -> None:
        """One bar redrawn in place on a terminal; a line per tenth otherwise (logs, CI)."""
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} games"
        if self.stderr.isatty():
            self.stderr.write("\r" + bar + ("\n" if done == total else ""), style_func=_plain, ending="")
            self.stderr.flush()
        elif done == total or (done * 10 // total) != ((done - 1) * 10 // total):
            self.stderr.write(bar, style_func=_plain)

    def handle(self, *args: Any, **options: Any) -> None:
        batch = options["batch"]
        if batch < 1:
            raise CommandError("--batch must be at least 1.")
        began = time.perf_counter()
        games = Game.objects.filter(seq__gte=1)
        if options["game"]:
            games = games.filter(pk__in=options["game"])
        total = games.count()
        show_progress = not options["no_progress"]
        # Only counts are kept: every difference is printed as it is found, so memory stays
        # flat however many games (or problems) the database holds.
        problems = bad_games = done = events_seen = 0
        for game, events, snapshots in stream_games(games, batch):
            done += 1
            events_seen += len(events)
            found = list(check_game(game, events, snapshots))
            if found:
                bad_games += 1
                if show_progress and done > 1 and self.stderr.isatty():
                    self.stderr.write("", style_func=_plain)
                for line in found:
                    self.stdout.write(f"DIFFERENCE {line}")
                problems += len(found)
            if show_progress:
                self._progress(done, total)
        seconds = time.perf_counter() - began
        # ru_maxrss is in kilobytes on Linux.
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        # The summary goes to stderr also without the progress bar: what it cost to check.
        self.stderr.write(
            f"replay_check: {done} game(s), {events_seen} event(s) in {seconds:.1f} s, "
            f"peak RSS {peak_mb:.0f} MB",
            style_func=_plain,
        )
        if problems:
            raise CommandError(
                f"{problems} difference(s) in {bad_games} of {done} game(s); the log is the truth.",
                returncode=1,
            )
        self.stdout.write(
            f"OK: {done} game(s) replayed from seq 1; every snapshot and read column matches, "
            "every hash chain holds."
        )


def _by_game(rows: Iterator[Any]) -> Iterator[tuple[int, list[Any]]]:
    """(game id, its rows) from rows ordered by game id."""
    for game_id, group in groupby(rows, key=lambda row: row.game_id):
        yield game_id, list(group)


def stream_games(
    games: QuerySet[Game], batch: int = BATCH
) -> Iterator[tuple[Game, list[Event], list[Snapshot]]]:
    """Each game of ``games`` (in id order) with its events and snapshots, in seq order.

    Games are read ``batch`` at a time by id (keyset, never an OFFSET), and the events and
    snapshots of each batch through server-side cursors in chunks, so at most one batch of
    game rows and one game's log are held at once, however large the database. A game is
    checked as of its row: events and snapshots appended after it was read are left out (a
    move made meanwhile is not a difference)."""
    last = 0
    while True:
        rows = list(games.filter(pk__gt=last).order_by("pk")[:batch])
        if not rows:
            return
        last = rows[-1].pk
        ids = [game.pk for game in rows]
        with transaction.atomic():
            # Inside a transaction the cursors need no WITH HOLD copy of the whole result.
            events = _by_game(
                Event.objects.filter(game_id__in=ids).order_by("game_id", "seq").iterator(chunk_size=CHUNK)
            )
            snapshots = _by_game(
                Snapshot.objects.filter(game_id__in=ids).order_by("game_id", "seq").iterator(chunk_size=CHUNK)
            )
            pending_events = next(events, None)
            pending_snapshots = next(snapshots, None)
            for game in rows:
                own_events: list[Event] = []
                own_snapshots: list[Snapshot] = []
                while pending_events is not None and pending_events[0] < game.pk:
                    pending_events = next(events, None)
                if pending_events is not None and pending_events[0] == game.pk:
                    own_events = [e for e in pending_events[1] if e.seq <= game.seq]
                    pending_events = next(events, None)
                while pending_snapshots is not None and pending_snapshots[0] < game.pk:
                    pending_snapshots = next(snapshots, None)
                if pending_snapshots is not None and pending_snapshots[0] == game.pk:
                    own_snapshots = [s for s in pending_snapshots[1] if s.seq <= game.seq]
                    pending_snapshots = next(snapshots, None)
                yield game, own_events, own_snapshots
