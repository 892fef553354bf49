"""The hash chain over a game's events: each event's hash covers the previous event's hash and
the event's own content, so altering, removing or reordering any event changes every hash from
there on, and the last hash (the head) names the whole history.

The formula is part of the exported log format (engine/README.md, "The hash chain"); outside
verifiers recompute it, so it never changes:

    hash(event) = SHA-256 hex digest of the UTF-8 bytes of
        json.dumps({"prev": <hash of the previous event, or GENESIS for seq 1>,
                    "seq": ..., "kind": ..., "seat": ..., "payload": ..., "actor": ...},
                   sort_keys=True, separators=(",", ":"), ensure_ascii=False)

with each field as stored (a missing seat or actor is null), except that a person's actor
(``user:<anything>``) counts as ``"user"``: the person is the seat's player, and the export
names people by user name, which may change, while the hash must not. Nothing here knows a
rule set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

# The "previous hash" of the first event.
GENESIS = "0" * 64
# The fields of an event the hash covers, beside the previous hash.
HASHED_FIELDS = ("seq", "kind", "seat", "payload", "actor")


class ChainError(ValueError):
    """A broken link: ``seq`` is the first event whose stored hash is not the recomputed one."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq


def event_hash(
    prev: str, *, seq: int, kind: str, seat: int | None, payload: Any, actor: str | None
) -> str:
    """The hash of one event, given the hash of the event before it (``GENESIS`` for seq 1)."""
    return _digest({"prev": prev, "seq": seq, "kind": kind, "seat": seat, "payload": payload, "actor": actor})


def _hashed_actor(actor: Any) -> Any:
    return "user" if isinstance(actor, str) and actor.startswith("user:") else actor


def hash_of(prev: str, event: Mapping[str, Any]) -> str:
    """``event_hash`` of an event given as a mapping (a log line, a row's values), its fields
    taken as they are (a missing one is null)."""
    return _digest({"prev": prev, **{name: event.get(name) for name in HASHED_FIELDS}})


def _digest(content: dict[str, Any]) -> str:
    content = {**content, "actor": _hashed_actor(content.get("actor"))}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # "surrogatepass": a lone surrogate in a string (JSON allows it) still hashes, the same way
    # every time, instead of failing the append.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def is_hash(value: object) -> bool:
    """A SHA-256 hex digest as the chain writes it (64 lowercase hex digits)."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def link(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Copies of ``events`` (in seq order) with each one's ``hash`` set: how a writer chains a log."""
    prev = GENESIS
    linked: list[dict[str, Any]] = []
    for event in events:
        prev = hash_of(prev, event)
        linked.append({**event, "hash": prev})
    return linked


def verify(events: Iterable[Mapping[str, Any]]) -> str:
    """Check every link of a chained log (events in seq order, each with its stored ``hash``)
    and return the head (``GENESIS`` for no events). Raises ``ChainError`` at the first event
    whose stored hash differs from the hash of its content and the previous stored hash: that
    event, or its stored hash, was altered. A consistent rewrite of the whole tail is caught
    only by comparing the head with one kept elsewhere (the game row, a published value)."""
    prev = GENESIS
    for event in events:
        stored = event.get("hash")
        seq = event.get("seq")
        number = seq if isinstance(seq, int) else -1
        if not is_hash(stored):
            raise ChainError(number, f"the hash must be 64 lowercase hex digits, not {stored!r}")
        assert isinstance(stored, str)
        if hash_of(prev, event) != stored:
            raise ChainError(number, "the hash does not match the event: this event or its hash was altered")
        prev = stored
    return prev
