"""Rebuilding a game's state from its log: latest snapshot at or before a seq, then replay.

Two caches stand in front of that, both filled only when the transaction that appended the
event commits (a rolled-back move never leaves a state behind):

- this process's LRU of recent states, keyed by (game, seed hash, seq);
- ``SharedStates``: the latest state of each running game in Redis (when REDIS_URL is set),
  for every web and worker process. Without it, a move or a GET that lands on another
  process than the previous move would rebuild from the last snapshot. A Redis that fails is
  logged and treated as a miss (and left alone for a while): it costs speed, never a move.

Snapshots and caches are only shortcuts; ``replay_from_start`` ignores them, and the
``replay_check`` command compares the replay with the snapshots for every game.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from threading import Lock
from typing import Any

from django.conf import settings
from django.db import transaction

import engine
from engine.base import Rules
from games.models import Event, Game, Snapshot

log = logging.getLogger(__name__)

_CACHE_SIZE = 512
# States are immutable values and events never change, so a state for (game, seed, seq) is
# valid forever; the seed (128 secret random bits per game) tells apart games that reuse an id.
_cache: OrderedDict[tuple[int, str, int], Any] = OrderedDict()
_cache_lock = Lock()


def rules_for(game: Game) -> Rules[Any]:
    return engine.get_rules(game.rules_id, game.rules_version)


def _local_get(key: tuple[int, str, int]) -> Any | None:
    with _cache_lock:
        state = _cache.get(key)
        if state is not None:
            _cache.move_to_end(key)
        return state


def _local_put(key: tuple[int, str, int], state: Any) -> None:
    with _cache_lock:
        _cache[key] = state
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


class SharedStates:
    """The latest state of each running game in Redis, for every process.

    One entry per game (``pirates:state:<seed hash>``), overwritten by each move and expiring
    after ``STATE_CACHE_SECONDS``, so its size follows the number of running games. The entry
    is JSON: ``rules.dump(state)`` with the rules version and seq it belongs to (JSON rather
    than pickle, so whoever can write to Redis still cannot make us run code). A plain
    redis-py client, built once per process: Django's cache framework builds a client per
    call, which costs more than the round trip.
    """

    # After a failure, the cache is left alone this long: a Redis that is down would otherwise
    # cost every request a connection attempt.
    RETRY_AFTER_SECONDS = 30.0

    def __init__(self, url: str, timeout_seconds: int) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self.timeout_seconds = timeout_seconds
        self.resting_until = 0.0

    def _available(self) -> bool:
        return time.monotonic() >= self.resting_until

    def _failed(self, what: str, game: Game, seq: int) -> None:
        self.resting_until = time.monotonic() + self.RETRY_AFTER_SECONDS
        log.warning(
            "shared state cache: %s failed for game %s seq %s; not used for %.0f s",
            what, game.pk, seq, self.RETRY_AFTER_SECONDS, exc_info=True,
        )

    @staticmethod
    def key(game: Game) -> str:
        return f"pirates:state:{game.seed_sha256}"

    def get(self, game: Game, seq: int) -> Any | None:
        """The game's latest state, if it is the state after ``seq``; None otherwise or when
        Redis is unavailable (a miss costs a rebuild, never a move)."""
        if not self._available():
            return None
        try:
            raw = self.client.get(self.key(game))
            entry = json.loads(raw) if isinstance(raw, bytes) else {}
            if entry.get("version") == game.rules_version and entry.get("seq") == seq:
                return rules_for(game).load(entry["state"])
        except Exception:
            self._failed("reading", game, seq)
        return None

    def put(self, game: Game, seq: int, state: Any) -> None:
        if not self._available():
            return
        entry = json.dumps({"version": game.rules_version, "seq": seq, "state": rules_for(game).dump(state)})
        try:
            self.client.set(self.key(game), entry, ex=self.timeout_seconds)
        except Exception:
            self._failed("storing", game, seq)


_shared: SharedStates | None = None
_shared_lock = Lock()


def shared_states() -> SharedStates | None:
    """The process's shared state cache; None without REDIS_URL (each process then keeps only
    its own recent states)."""
    global _shared
    if _shared is None and settings.REDIS_URL:
        with _shared_lock:
            if _shared is None:
                _shared = SharedStates(settings.REDIS_URL, settings.STATE_CACHE_SECONDS)
    return _shared


def cache_put(game: Game, seq: int, state: Any) -> None:
    """Remember ``state`` as the state after event ``seq`` once the current transaction
    commits (at once outside one): a rolled-back append leaves nothing behind. The shared
    cache gets it only if it is still the game's latest state then, so a move followed by
    forced passes writes there once."""
    key = (game.pk, game.seed_sha256, seq)

    def put() -> None:
        _local_put(key, state)
        shared = shared_states()
        if shared is not None and seq == game.seq:
            shared.put(game, seq, state)

    transaction.on_commit(put)


def cache_clear() -> None:
    """Forget this process's states (the shared cache keeps its entries; they expire)."""
    with _cache_lock:
        _cache.clear()


def new_game_state(game: Game, started: Event) -> Any:
    payload = started.payload
    return rules_for(game).new_game(
        players=payload["players"], seed=payload["seed"], options=payload["options"]
    )


def apply_events(rules: Rules[Any], state: Any, events: list[Event]) -> Any:
    for event in events:
        action = event.action
        if action is not None:
            assert event.seat is not None
            state = rules.apply(state, event.seat, action)
    return state


def load_state(game: Game, seq: int | None = None) -> Any:
    """The engine state after event ``seq`` (default: the latest). The game must have started."""
    target = game.seq if seq is None else seq
    if target < 1 or target > game.seq:
        raise ValueError(f"seq {target} is outside 1..{game.seq}")
    key = (game.pk, game.seed_sha256, target)
    cached = _local_get(key)
    shared = shared_states() if cached is None and target == game.seq else None
    if shared is not None:
        cached = shared.get(game, target)
        if cached is not None:
            _local_put(key, cached)
    if cached is not None:
        return cached
    rules = rules_for(game)
    snapshot = (
        Snapshot.objects.filter(game=game, seq__lte=target, rules_version=game.rules_version)
        .order_by("-seq")
        .first()
    )
    if snapshot is not None:
        state = rules.load(snapshot.state)
        start = snapshot.seq
    else:
        started = Event.objects.get(game=game, seq=1)
        state = new_game_state(game, started)
        start = 1
    rest = list(Event.objects.filter(game=game, seq__gt=start, seq__lte=target).order_by("seq"))
    state = apply_events(rules, state, rest)
    cache_put(game, target, state)
    return state


def replay_from_start(game: Game, seq: int | None = None) -> Any:
    """Rebuild ignoring every snapshot and cache: the truth, for checks."""
    target = game.seq if seq is None else seq
    events = list(Event.objects.filter(game=game, seq__lte=target).order_by("seq"))
    if not events or events[0].kind != Event.Kind.GAME_STARTED:
        raise ValueError(f"game {game.pk} has no game_started event at seq 1")
    rules = rules_for(game)
    return apply_events(rules, new_game_state(game, events[0]), events[1:])


def write_snapshot(game: Game, state: Any) -> None:
    Snapshot.objects.create(
        game=game, seq=game.seq, rules_version=game.rules_version, state=rules_for(game).dump(state)
    )
