"""Rebuilding a game's state from its log: latest snapshot at or before a seq, then replay
(``engine.gamelog.walk``, the same replay as the engine's log reader, take-backs included).
The services write through ``cache_put`` and ``write_snapshot``; everything else only reads.

Two caches stand in front of that, both filled only when the transaction that appended the
event commits (a rolled-back move never leaves a state behind), and both keyed by the game's
chain head (``Game.head``, the hash of its last event, engine/chain.py), which names the
whole history a state was built from:

- this process's LRU of recent states, keyed by (game id, head, seq): the state after event
  ``seq`` of the history whose head is ``head``;
- ``SharedStates``: the latest state of each running game in Redis (when REDIS_URL is set),
  for every web and worker process. Each entry records the head it was built for and is
  used only if that is the game row's head now (on a move, the row read under the lock), and
  it is signed with a key derived from SECRET_KEY: an entry that does not verify is a miss.
  Without it, a move or a GET that lands on another process than the previous move would
  rebuild from the last snapshot. A Redis that fails is logged and treated as a miss (and
  left alone for a while): it costs speed, never a move.

So a state cached for another history (a database restored to an earlier point and played
on differently, or an entry written into Redis by anyone without the key) is never used:
its head is not the game's head. Snapshots and caches are only shortcuts;
``replay_from_start`` ignores them, and the ``replay_check`` command compares the replay with
the snapshots and verifies the chain for every game.
"""

from __future__ import annotations

import hashlib
import hmac
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
from engine.gamelog import Step, final, walk
from games.models import Event, Game, Snapshot

log = logging.getLogger(__name__)

_CACHE_SIZE = 512
# States are immutable values and events never change, so the state after event ``seq`` of
# the history whose chain head is ``head`` is the same forever: the head (which covers the
# first event and with it the game's secret seed) also tells apart games that reuse an id.
CacheKey = tuple[int, str, int]  # (game id, chain head, seq)
_cache: OrderedDict[CacheKey, Any] = OrderedDict()
_cache_lock = Lock()


def rules_for(game: Game) -> Rules[Any]:
    return engine.get_rules(game.rules_id, game.rules_version)


def cache_key(game: Game, seq: int) -> CacheKey:
    """The local cache's key for the state after event ``seq`` of ``game`` as it stands."""
    return (game.pk, game.head, seq)


def _local_get(key: CacheKey) -> Any | None:
    with _cache_lock:
        state = _cache.get(key)
        if state is not None:
            _cache.move_to_end(key)
        return state


def _local_put(key: CacheKey, state: Any) -> None:
    with _cache_lock:
        _cache[key] = state
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


class SharedStates:
    """The latest state of each running game in Redis, for every process.

    One entry per game (``pirates:state:<seed hash>``), overwritten by each move and expiring
    after ``STATE_CACHE_SECONDS``, so its size follows the number of running games; and each
    state again under its seq (``…:<seq>``) for ``RECENT_SECONDS``, so the decision of a
    simultaneous step sent at the seq before another seat's is checked without a rebuild,
    whichever process gets it. An entry
    is a signature (64 hex digits) followed by JSON: ``rules.dump(state)`` with the game id,
    rules version, seq and chain head it belongs to (JSON rather than pickle, so whoever can
    write to Redis still cannot make us run code). The signature is HMAC-SHA256 over the
    Redis key and the JSON, with a key derived from SECRET_KEY: an entry forged, altered or
    copied from another game's key does not verify and is a miss (logged). A plain redis-py
    client, built once per process: Django's cache framework builds a client per call, which
    costs more than the round trip.
    """

    # After a failure, the cache is left alone this long: a Redis that is down would otherwise
    # cost every request a connection attempt.
    RETRY_AFTER_SECONDS = 30.0
    # Salt of the signing key: another use of SECRET_KEY never yields the same key.
    # (The salt keeps the module's old name: a new salt would make every entry written before a
    # deploy a miss with a warning.)
    KEY_SALT = b"pirates.games.services.state.SharedStates"
    SIGNATURE_LENGTH = 64  # hex digits of an HMAC-SHA256
    # Each state is also kept this long under its seq: long enough for the other seats of a
    # simultaneous step to send their decisions read at that seq, short enough that the
    # entries follow the moves of the last minutes, not the number of moves ever made.
    RECENT_SECONDS = 120

    def __init__(self, url: str, timeout_seconds: int, secret: str | bytes | None = None) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        self.timeout_seconds = timeout_seconds
        self.resting_until = 0.0
        secret = settings.SECRET_KEY if secret is None else secret
        raw = secret.encode() if isinstance(secret, str) else secret
        # Derived once per process (as django.utils.crypto.salted_hmac derives its key).
        self.signing_key = hashlib.sha256(self.KEY_SALT + raw).digest()

    def _available(self) -> bool:
        return time.monotonic() >= self.resting_until

    def _failed(self, what: str, game: Game) -> None:
        self.resting_until = time.monotonic() + self.RETRY_AFTER_SECONDS
        log.warning(
            "shared state cache: %s failed for game %s seq %s; not used for %.0f s",
            what, game.pk, game.seq, self.RETRY_AFTER_SECONDS, exc_info=True,
        )

    @staticmethod
    def key(game: Game) -> str:
        return f"pirates:state:{game.seed_sha256}"

    @staticmethod
    def recent_key(game: Game, seq: int) -> str:
        return f"pirates:state:{game.seed_sha256}:{seq}"

    def sign(self, key: str, body: bytes) -> bytes:
        return hmac.new(self.signing_key, key.encode() + b"\n" + body, hashlib.sha256).hexdigest().encode()

    def get(self, game: Game) -> Any | None:
        """The game's latest state: the entry's, if it is signed with our key and was built
        for the game's current seq and chain head; None otherwise or when Redis is
        unavailable (a miss costs a rebuild, never a move)."""
        return self._read(self.key(game), game, game.seq, game.head)

    def get_recent(self, game: Game, seq: int, head: str) -> Any | None:
        """The state after event ``seq`` of ``game``, whose chain hash is ``head``, if it was
        the latest within the last ``RECENT_SECONDS``: a decision sent at an older seq of a
        simultaneous step is checked from it (games/services/simultaneous.py)."""
        return self._read(self.recent_key(game, seq), game, seq, head)

    def _read(self, key: str, game: Game, seq: int, head: str) -> Any | None:
        if not self._available():
            return None
        try:
            raw = self.client.get(key)
        except Exception:
            self._failed("reading", game)
            return None
        if not isinstance(raw, bytes):
            return None
        signature, body = raw[: self.SIGNATURE_LENGTH], raw[self.SIGNATURE_LENGTH :]
        if not hmac.compare_digest(signature, self.sign(key, body)):
            log.warning("shared state cache: the entry for game %s has a bad signature: ignored", game.pk)
            return None
        try:
            entry = json.loads(body)
            if (
                entry.get("game") == game.pk
                and entry.get("version") == game.rules_version
                and entry.get("seq") == seq
                and entry.get("head") == head
            ):
                return rules_for(game).load(entry["state"])
        except Exception:
            # Signed by us yet unreadable: a bug (or a rule set that no longer loads it), not
            # Redis failing; a miss, and worth a look.
            log.warning("shared state cache: the entry for game %s cannot be read", game.pk, exc_info=True)
        return None

    def put(self, game: Game, seq: int, head: str, state: Any) -> None:
        """Store ``state`` as the game's latest, and, where seats decide at once
        (``Rules.simultaneous``: nothing else reads it), under its seq for ``RECENT_SECONDS``."""
        if not self._available():
            return
        rules = rules_for(game)
        key, recent = self.key(game), self.recent_key(game, seq)
        entry = {"game": game.pk, "version": game.rules_version, "seq": seq, "head": head}
        entry["state"] = rules.dump(state)
        body = json.dumps(entry, separators=(",", ":")).encode()
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.set(key, self.sign(key, body) + body, ex=self.timeout_seconds)
                if rules.simultaneous:
                    pipe.set(recent, self.sign(recent, body) + body, ex=self.RECENT_SECONDS)
                pipe.execute()
        except Exception:
            self._failed("storing", game)


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
    """Remember ``state`` as the state after event ``seq`` of ``game``'s history as it stands
    (its head now), once the current transaction commits (at once outside one): a rolled-back
    append leaves nothing behind. The shared cache gets it only if it is still the game's
    latest state then, so a move followed by forced passes writes there once."""
    key = cache_key(game, seq)
    head = game.head

    def put() -> None:
        _local_put(key, state)
        shared = shared_states()
        if shared is not None and seq == game.seq and head == game.head:
            shared.put(game, seq, head, state)

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


def taken_back(events: list[Event]) -> set[int]:
    """The seqs of the moves that take-back events among ``events`` take back."""
    return {step.takes_back for step in map(step_of, events) if step.takes_back is not None}


def step_of(event: Event) -> Step:
    """``event`` as the engine's replay reads it (``engine.gamelog.walk``)."""
    if event.kind == Event.Kind.TAKE_BACK:
        undone = event.payload.get("takes_back")
        return Step(event.seq, event.seat, takes_back=undone if isinstance(undone, int) else 0)
    action = event.action
    return Step(event.seq, event.seat, action) if action is not None else Step(event.seq)


def _applier(rules: Rules[Any]) -> Any:
    def apply(state: Any, step: Step) -> Any:
        assert step.seat is not None and step.action is not None
        return rules.apply(state, step.seat, step.action)

    return apply


def apply_events(rules: Rules[Any], state: Any, events: list[Event]) -> Any:
    """``state`` with ``events`` replayed (``engine.gamelog.walk``: a take-back returns to the
    state before the move it takes back, which must be among ``events``)."""
    return final(walk(map(step_of, events), state, _applier(rules)), state)


def states_after_each(rules: Rules[Any], state: Any, events: list[Event]) -> list[Any]:
    """``state`` (after the event before ``events``) and then the state after each of
    ``events`` in turn (the replay's frames). After a take-back the state is again the one
    before the move it took back; the frame of the move itself still shows the move."""
    return [state, *(after for _step, after in walk(map(step_of, events), state, _applier(rules)))]


def load_state(game: Game, seq: int | None = None) -> Any:
    """The engine state after event ``seq`` (default: the latest). The game must have started."""
    target = game.seq if seq is None else seq
    if target < 1 or target > game.seq:
        raise ValueError(f"seq {target} is outside 1..{game.seq}")
    key = cache_key(game, target)
    cached = _local_get(key)
    shared = shared_states() if cached is None and target == game.seq else None
    if shared is not None:
        cached = shared.get(game)
        if cached is not None:
            _local_put(key, cached)
    if cached is not None:
        return cached
    rules = rules_for(game)
    start_at = target
    # A take-back right after a snapshot takes back the move that snapshot includes: then
    # start from an earlier one. Each round moves the start back, so this ends.
    while True:
        snapshot = (
            Snapshot.objects.filter(game=game, seq__lte=start_at, rules_version=game.rules_version)
            .order_by("-seq")
            .first()
        )
        start = snapshot.seq if snapshot is not None else 1
        rest = list(Event.objects.filter(game=game, seq__gt=start, seq__lte=target).order_by("seq"))
        undone_before = [seq for seq in taken_back(rest) if seq <= start]
        if not undone_before or start <= 1:
            break
        start_at = min(undone_before) - 1
    if snapshot is not None:
        state = rules.load(snapshot.state)
    else:
        state = new_game_state(game, Event.objects.get(game=game, seq=1))
    state = apply_events(rules, state, rest)
    cache_put(game, target, state)
    return state


def load_state_after(game: Game, event: Event) -> Any:
    """The state after ``event``, one of ``game``'s events. Found by the event's chain hash,
    which names the history up to it: a state cached while that event was the latest (in this
    process, or in the shared cache's recent entries) is found after the game has moved on,
    where ``load_state(game, event.seq)`` would rebuild it."""
    key: CacheKey = (game.pk, event.hash, event.seq)
    state = _local_get(key)
    if state is None:
        shared = shared_states()
        state = shared.get_recent(game, event.seq, event.hash) if shared is not None else None
        if state is None:
            return load_state(game, event.seq)
        _local_put(key, state)
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
