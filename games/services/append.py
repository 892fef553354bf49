"""The one way an event enters a game's log: chained to the one before it.

Every insert of an ``Event`` goes through ``append_event``, which computes the event's hash
(engine/chain.py) from what it is about to store and moves the game's ``seq`` and ``head``
on in memory. The caller holds the game lock and writes ``seq`` and ``head`` to the game row
with the other read columns (``play.READ_COLUMNS``), in the same transaction.
"""

from __future__ import annotations

from typing import Any

from engine.chain import GENESIS, event_hash
from games import rows
from games.models import Event, Game


def append_event(
    game: Game,
    *,
    kind: str,
    seat: int | None,
    payload: dict[str, Any],
    actor: str,
    idempotency_key: str = "",
) -> Event:
    """Insert the game's next event (seq ``game.seq + 1``) with its chain hash, and set
    ``game.seq`` and ``game.head`` to it. Caller holds the game lock. An IntegrityError from
    the insert (a used seq or idempotency key) leaves ``game`` as it was."""
    seq = game.seq + 1
    prev = game.head if game.seq else GENESIS
    digest = event_hash(prev, seq=seq, kind=kind, seat=seat, payload=payload, actor=actor)
    event = rows.insert(
        Event(
            game=game,
            seq=seq,
            kind=kind,
            seat=seat,
            payload=payload,
            actor=actor,
            idempotency_key=idempotency_key,
            hash=digest,
        )
    )
    game.seq = seq
    game.head = digest
    return event
