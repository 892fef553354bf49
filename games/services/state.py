"""Rebuilding a game's state from its log: latest snapshot at or before a seq, then replay.

Snapshots are only a shortcut; ``replay_from_start`` ignores them, and the ``replay_check``
command compares the two for every game.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any

import engine
from engine.base import Rules
from games.models import Event, Game, Snapshot

_CACHE_SIZE = 512
# States are immutable values and events never change, so a state for (game, seed, seq) is
# valid forever; the seed hash tells apart games that reuse an id (a recreated database).
_cache: OrderedDict[tuple[int, str, int], Any] = OrderedDict()
_cache_lock = Lock()


def rules_for(game: Game) -> Rules[Any]:
    return engine.get_rules(game.rules_id, game.rules_version)


def _cache_get(key: tuple[int, str, int]) -> Any | None:
    with _cache_lock:
        state = _cache.get(key)
        if state is not None:
            _cache.move_to_end(key)
        return state


def cache_put(game: Game, seq: int, state: Any) -> None:
    with _cache_lock:
        _cache[(game.pk, game.seed_sha256, seq)] = state
        _cache.move_to_end((game.pk, game.seed_sha256, seq))
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def cache_clear() -> None:
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
    cached = _cache_get(key)
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
