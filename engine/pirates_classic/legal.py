"""Listing every legal action of a seat (C-ACT order: move, board; `skip` only when the list
would otherwise be empty; a seat asked to challenge has `challenge` then `decline`).

Within a type, stacks come in captain-id order, ships in display order, booty in the order
the ship shows it. This is a hot path for bots and benchmarks, so it works on the raw tuples
of the state and hands out shared, read-only actions (engine.base.FrozenAction).
"""

from __future__ import annotations

from typing import Any

from engine.base import FrozenAction
from engine.pirates.legal import split_parties
from engine.pirates.state import MAX_PARTY, PIRATE_IDS, Party
from engine.pirates_classic.state import ClassicState, challenged, easiest_crew, waiting

_PIRATES = len(PIRATE_IDS)
_MOVES: tuple[tuple[FrozenAction, ...], ...] = tuple(
    tuple(FrozenAction(type="move", party=PIRATE_IDS[a], onto=PIRATE_IDS[b]) for b in range(_PIRATES))
    for a in range(_PIRATES)
)
_CHALLENGES: tuple[FrozenAction, ...] = tuple(FrozenAction(type="challenge", party=p) for p in PIRATE_IDS)
DECLINE = FrozenAction(type="decline")
SKIP = FrozenAction(type="skip")
_MEMO_LIMIT = 50_000

Face = tuple[tuple[str, int, tuple[str | None, ...]], ...]


def _face_up(state: ClassicState) -> Face:
    """(id, minimum crew, booty choices) of each face-up ship, memoised per display."""
    ship_set = state.card_set
    memo = ship_set.faces
    found: Face | None = memo.get(state.display)
    if found is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[state.display] = tuple(
            (ship_set.ids[ship], ship_set.min_crew[ship], ship_set.choices[ship])
            for ship in state.display
            if ship >= 0
        )
    return found


def _board(memo: dict[Any, Any], captain: int, ship: str, booty: str | None) -> FrozenAction:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    action = memo[(captain, ship, booty)] = FrozenAction(
        type="board", party=PIRATE_IDS[captain], ship=ship, booty=booty
    )
    return action


def _boardings(
    state: ClassicState, stacks: tuple[Party, ...] | list[Party], out: list[dict[str, Any]]
) -> None:
    face = _face_up(state)
    memo = state.card_set.actions
    found = memo.get
    for party in stacks:
        size = len(party)
        captain = party[0]
        for ship, need, choices in face:
            if size >= need:
                for booty in choices:
                    out.append(found((captain, ship, booty)) or _board(memo, captain, ship, booty))


def legal_actions(state: ClassicState, seat: int) -> list[dict[str, Any]]:
    if state.end or type(seat) is not int or not 0 <= seat < state.players:
        return []
    captain = state.asked[seat]
    if captain >= 0 and not state.answers[seat]:
        return [_CHALLENGES[captain], DECLINE]  # C-MUT-2
    if seat != state.active or waiting(state):
        return []
    mine, others = split_parties(state.parties, seat)
    out: list[dict[str, Any]] = []
    forced = challenged(state)
    if forced:  # C-MUT-3: only boardings with a challenged stack
        _boardings(state, [party for party in mine if party[0] in forced], out)
        return out
    for party in mine:  # C-MOVE-1
        room = MAX_PARTY - len(party)
        row = _MOVES[party[0]]
        out += [row[target[0]] for target in others if len(target) <= room]
    _boardings(state, mine, out)  # C-BOARD-1
    if not out:
        out.append(SKIP)  # C-TURN-1
    return out


def has_move(state: ClassicState, seat: int) -> bool:
    """Whether the active ``seat`` can move or board (C-TURN-1), without listing how."""
    mine, others = split_parties(state.parties, seat)
    if not mine:
        return False
    if others and min(map(len, mine)) + min(map(len, others)) <= MAX_PARTY:
        return True
    return max(map(len, mine)) >= easiest_crew(state.card_set, state.display)
