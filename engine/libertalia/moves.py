"""A validated action as the procedure uses it."""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.libertalia.characters import KIND_INDEX


class Move(NamedTuple):
    type: str
    rank: int = 0  # play, parrot, recruit, revive
    seat: int = -1  # gunner, saber: the target's owner
    booty: int = -1  # keep, sell, take: a kind index
    number: int = 0  # sell: how many tokens
    sell: bool = False  # waitress


def move_of(action: dict[str, Any]) -> Move:
    """The move of an action already known to be well formed (one from the options)."""
    kind = action["type"]
    if "target" in action:
        seat, rank = action["target"].split(".")
        return Move(kind, rank=int(rank), seat=int(seat))
    if "rank" in action:
        return Move(kind, rank=action["rank"])
    if "booty" in action:
        return Move(kind, booty=KIND_INDEX[action["booty"]], number=action.get("count", 0))
    return Move(kind, sell=action["sell"])
