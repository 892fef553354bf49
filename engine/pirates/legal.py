"""Listing every legal action of the active seat (P-ACT order: assemble, capture, mutiny,
ransom; ``pass`` only when the list would otherwise be empty).

Within a type, parties come in captain-id order, cards in display order (D1…D4), booty in the
order the card shows it. This is a hot path for bots and benchmarks, so it works on the raw
tuples of the state.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from engine.base import FrozenAction
from engine.pirates.state import MAX_PARTY, PIRATE_IDS, PIRATES_PER_SEAT, Party, PiratesState


def split_parties(parties: tuple[Party, ...], seat: int) -> tuple[tuple[Party, ...], tuple[Party, ...]]:
    """(parties ``seat`` controls, parties of the others). Parties are sorted by captain and a
    seat's pirates have consecutive numbers, so a seat's own parties form one slice."""
    start = bisect_left(parties, (seat * PIRATES_PER_SEAT,))
    stop = bisect_left(parties, ((seat + 1) * PIRATES_PER_SEAT,), start)
    return parties[start:stop], parties[:start] + parties[stop:]


# Every action is built once and shared (engine.base.FrozenAction): assembles and ransoms
# name only pirates, so they are made here; captures and mutinies name cards too, so each
# card set memoises its own (bounded, in case a server sees endless custom card sets).
_PIRATES = len(PIRATE_IDS)
_ASSEMBLES: tuple[tuple[FrozenAction, ...], ...] = tuple(
    tuple(FrozenAction(type="assemble", party=PIRATE_IDS[a], onto=PIRATE_IDS[b]) for b in range(_PIRATES))
    for a in range(_PIRATES)
)
_NOWHERE = _PIRATES  # the ransom row's last entry: onto null
_RANSOMS: tuple[tuple[FrozenAction, ...], ...] = tuple(
    tuple(
        FrozenAction(type="ransom", pirate=PIRATE_IDS[p], onto=PIRATE_IDS[b] if b < _PIRATES else None)
        for b in range(_PIRATES + 1)
    )
    for p in range(_PIRATES)
)
PASS_ACTION = FrozenAction(type="pass")
_MEMO_LIMIT = 50_000

Face = tuple[tuple[str, int, tuple[str | None, ...]], ...]


def _face_up(state: PiratesState) -> tuple[Face, int]:
    """(id, minimum crew, booty choices) of each face-up card, and the smallest minimum."""
    card_set = state.card_set
    memo = card_set.faces
    found = memo.get(state.display)
    if found is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        face = tuple(
            (card_set.ids[card], card_set.min_crew[card], card_set.choices[card])
            for card in state.display
            if card >= 0
        )
        found = memo[state.display] = (face, min([need for _, need, _ in face], default=MAX_PARTY + 1))
    return found


def _capture(memo: dict[Any, Any], captain: int, card: str, booty: str | None) -> FrozenAction:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    action = memo[(captain, card, booty)] = FrozenAction(
        type="capture", party=PIRATE_IDS[captain], card=card, booty=booty
    )
    return action


def _mutiny(memo: dict[Any, Any], captain: int, pirate: int, card: str, booty: str | None) -> FrozenAction:
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    action = memo[(captain, pirate, card, booty)] = FrozenAction(
        type="mutiny",
        victim=captain // PIRATES_PER_SEAT,
        party=PIRATE_IDS[captain],
        pirate=PIRATE_IDS[pirate],
        card=card,
        booty=booty,
    )
    return action


def legal_actions(state: PiratesState, seat: int) -> list[dict[str, Any]]:
    if state.end or seat != state.active:
        return []
    mine, others = split_parties(state.parties, seat)
    face, smallest = _face_up(state)
    out: list[dict[str, Any]] = []
    for party in mine:
        room = MAX_PARTY - len(party)
        row = _ASSEMBLES[party[0]]
        out += [row[target[0]] for target in others if len(target) <= room]
    memo = state.card_set.actions
    found = memo.get
    for party in mine:
        size = len(party)
        if size < smallest:
            continue
        captain = party[0]
        for card, need, choices in face:
            if size >= need:
                for booty in choices:
                    out.append(found((captain, card, booty)) or _capture(memo, captain, card, booty))
    low = seat * PIRATES_PER_SEAT
    high = low + PIRATES_PER_SEAT
    # Most parties are too small to board anything; skipping them first keeps this cheap.
    for party in others:
        size = len(party)
        if size < smallest:
            continue
        rebels = [p for p in party if low <= p < high]
        if not rebels:
            continue
        captain = party[0]
        boardable = [(card, choices) for card, need, choices in face if size >= need]
        for pirate in rebels:
            for card, choices in boardable:
                for booty in choices:
                    out.append(
                        found((captain, pirate, card, booty)) or _mutiny(memo, captain, pirate, card, booty)
                    )
    if not mine:
        _ransoms(seat, others, out)
    if not out:
        out.append(PASS_ACTION)
    return out


def _ransoms(seat: int, others: tuple[Party, ...], out: list[dict[str, Any]]) -> None:
    low = seat * PIRATES_PER_SEAT
    for pirate in range(low, low + PIRATES_PER_SEAT):
        row = _RANSOMS[pirate]
        placed = False
        for party in others:
            # The pirate's own party shrinks by one before the pirate is placed (P-RAN-3).
            size = len(party) - (pirate in party)
            if size < MAX_PARTY:
                out.append(row[party[0]])
                placed = True
        if not placed:
            out.append(row[_NOWHERE])


def has_move(state: PiratesState, seat: int) -> bool:
    """Whether ``seat`` has any action other than ``pass`` (P-TURN-1)."""
    mine, others = split_parties(state.parties, seat)
    if not mine:
        return True  # a seat controlling no party can always ransom (P-RAN-1)
    smallest_other = min((len(p) for p in others), default=MAX_PARTY + 1)
    largest_mine = max(len(p) for p in mine)
    if min(len(p) for p in mine) + smallest_other <= MAX_PARTY:
        return True
    needs = [state.card_set.min_crew[card] for card in state.display if card >= 0]
    if not needs:
        return False
    easiest = min(needs)
    if largest_mine >= easiest:
        return True
    low = seat * PIRATES_PER_SEAT
    high = low + PIRATES_PER_SEAT
    return any(len(p) >= easiest and any(low <= x < high for x in p) for p in others)
