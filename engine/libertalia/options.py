"""The choices of each decision (L-DEC, L-ACT), as the actions that answer them.

The same lists serve ``legal_actions``, the validation of an action, and L-DEC-5 (a decision
with one choice is taken by the engine). Each action is built once and shared
(engine.base.FrozenAction). Orders are L-ACT's: ranks ascending, booty in booty_order,
targets by seat then rank, sales by kind then count, ``false`` before ``true``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from engine.base import FrozenAction
from engine.libertalia.characters import KINDS, RANKS, effect

MAX_SEATS = 6
_RANKS = range(1, RANKS + 1)


def target_id(seat: int, rank: int) -> str:
    """L-ACT: a character that may belong to anyone, ``"<seat>.<rank>"``."""
    return f"{seat}.{rank}"


def _by_rank(kind: str) -> tuple[FrozenAction, ...]:
    return (FrozenAction(type=kind, rank=0), *(FrozenAction(type=kind, rank=r) for r in _RANKS))


PLAY = _by_rank("play")
PARROT = _by_rank("parrot")
RECRUIT = _by_rank("recruit")
REVIVE = _by_rank("revive")
KEEP = tuple(FrozenAction(type="keep", booty=k) for k in KINDS)
TAKE = tuple(FrozenAction(type="take", booty=k) for k in KINDS)
GUNNER = {
    (s, r): FrozenAction(type="gunner", target=target_id(s, r)) for s in range(MAX_SEATS) for r in _RANKS
}
SABER = {(s, r): FrozenAction(type="saber", target=target_id(s, r)) for s in range(MAX_SEATS) for r in _RANKS}
# L-CHAR-21: the Merchant's offers, fewest tokens first.
OFFERS: tuple[tuple[int, int], ...] = tuple(
    sorted((o["count"], o["gain"]) for o in effect(21, "day")["offers"])
)
SELL = {
    (k, count): FrozenAction(type="sell", booty=KINDS[k], count=count)
    for k in range(len(KINDS))
    for count, _ in OFFERS
}
WAITRESS = (FrozenAction(type="waitress", sell=False), FrozenAction(type="waitress", sell=True))


class Board(Protocol):
    """What the options read: a state, or a step's working copy of one."""

    @property
    def players(self) -> int: ...
    @property
    def day(self) -> int: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def dens(self) -> Sequence[Sequence[int]]: ...
    @property
    def graves(self) -> Sequence[Sequence[int]]: ...
    @property
    def booty(self) -> Sequence[Sequence[int]]: ...
    @property
    def spaces(self) -> Sequence[Sequence[int]]: ...


def neighbours(players: int, seat: int) -> list[int]:
    """L-SET-2: left (seat−1) and right (seat+1), once each."""
    return sorted({(seat - 1) % players, (seat + 1) % players})


def _play(board: Board, seat: int) -> list[FrozenAction]:
    return [PLAY[r] for r in board.hands[seat]]


def _parrot(board: Board, seat: int) -> list[FrozenAction]:
    return [PARROT[r] for r in board.hands[seat]]


def _recruit(board: Board, seat: int) -> list[FrozenAction]:
    return [RECRUIT[r] for r in board.dens[seat]]


def _revive(board: Board, seat: int) -> list[FrozenAction]:
    return [REVIVE[r] for r in board.graves[seat]]


def _keep(board: Board, seat: int) -> list[FrozenAction]:
    held = board.booty[seat]
    if sum(held) < 2:  # L-CHAR-6: only with 2 or more tokens
        return []
    return [KEEP[k] for k, n in enumerate(held) if n]


def _gunner(board: Board, seat: int) -> list[FrozenAction]:
    return [GUNNER[(s, r)] for s in range(board.players) for r in board.dens[s]]


def _sell(board: Board, seat: int) -> list[FrozenAction]:
    held = board.booty[seat]
    return [SELL[(k, count)] for k, n in enumerate(held) for count, _ in OFFERS if n >= count]


def _take(board: Board, seat: int) -> list[FrozenAction]:
    return [TAKE[k] for k, n in enumerate(board.spaces[board.day - 1]) if n]


def _saber(board: Board, seat: int) -> list[FrozenAction]:
    return [SABER[(s, r)] for s in neighbours(board.players, seat) for r in board.dens[s]]


def _waitress(board: Board, seat: int) -> list[FrozenAction]:
    return list(WAITRESS)


OPTIONS: dict[str, Callable[[Board, int], list[FrozenAction]]] = {
    "play": _play,
    "parrot": _parrot,
    "recruit": _recruit,
    "revive": _revive,
    "keep": _keep,
    "gunner": _gunner,
    "sell": _sell,
    "take": _take,
    "saber": _saber,
    "waitress": _waitress,
}


def options(board: Board, decision: str, seat: int) -> list[FrozenAction]:
    """Every answer to ``decision`` for ``seat``, in L-ACT order."""
    return OPTIONS[decision](board, seat)
