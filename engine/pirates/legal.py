"""Listing every legal action of the active seat (P-ACT order: assemble, capture, mutiny,
ransom; ``pass`` only when the list would otherwise be empty).

Within a type, parties come in captain-id order, cards in display order (D1…D4), booty in the
order the card shows it. This is a hot path for bots and benchmarks, so it works on the raw
tuples of the state.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from engine.pirates.state import MAX_PARTY, PIRATE_IDS, PIRATES_PER_SEAT, Party, PiratesState


def split_parties(parties: tuple[Party, ...], seat: int) -> tuple[tuple[Party, ...], tuple[Party, ...]]:
    """(parties ``seat`` controls, parties of the others). Parties are sorted by captain and a
    seat's pirates have consecutive numbers, so a seat's own parties form one slice."""
    start = bisect_left(parties, (seat * PIRATES_PER_SEAT,))
    stop = bisect_left(parties, ((seat + 1) * PIRATES_PER_SEAT,), start)
    return parties[start:stop], parties[:start] + parties[stop:]


def _face_up(state: PiratesState) -> list[tuple[str, int, tuple[str | None, ...]]]:
    card_set = state.card_set
    return [
        (card_set.ids[card], card_set.min_crew[card], card_set.choices[card])
        for card in state.display
        if card >= 0
    ]


def legal_actions(state: PiratesState, seat: int) -> list[dict[str, Any]]:
    if state.end or seat != state.active:
        return []
    ids = PIRATE_IDS
    mine, others = split_parties(state.parties, seat)
    face = _face_up(state)
    out: list[dict[str, Any]] = []
    targets = [(len(target), ids[target[0]]) for target in others]
    for party in mine:
        room = MAX_PARTY - len(party)
        name = ids[party[0]]
        out += [{"type": "assemble", "party": name, "onto": onto} for size, onto in targets if size <= room]
    for party in mine:
        size = len(party)
        name = ids[party[0]]
        out += [
            {"type": "capture", "party": name, "card": card, "booty": booty}
            for card, need, choices in face
            if size >= need
            for booty in choices
        ]
    low = seat * PIRATES_PER_SEAT
    high = low + PIRATES_PER_SEAT
    # Most parties are too small to board anything; skipping them first keeps this cheap.
    smallest = min([need for _, need, _ in face], default=MAX_PARTY + 1)
    for party in others:
        size = len(party)
        if size < smallest:
            continue
        rebels = [p for p in party if low <= p < high]
        if not rebels:
            continue
        boardable = [(card, choices) for card, need, choices in face if size >= need]
        if not boardable:
            continue
        victim = party[0] // PIRATES_PER_SEAT
        name = ids[party[0]]
        out += [
            {
                "type": "mutiny",
                "victim": victim,
                "party": name,
                "pirate": ids[pirate],
                "card": card,
                "booty": booty,
            }
            for pirate in rebels
            for card, choices in boardable
            for booty in choices
        ]
    if not mine:
        _ransoms(seat, others, out)
    if not out:
        out.append({"type": "pass"})
    return out


def _ransoms(seat: int, others: tuple[Party, ...], out: list[dict[str, Any]]) -> None:
    ids = PIRATE_IDS
    low = seat * PIRATES_PER_SEAT
    for pirate in range(low, low + PIRATES_PER_SEAT):
        pid = ids[pirate]
        placed = False
        for party in others:
            # The pirate's own party shrinks by one before the pirate is placed (P-RAN-3).
            size = len(party) - (pirate in party)
            if size < MAX_PARTY:
                out.append({"type": "ransom", "pirate": pid, "onto": ids[party[0]]})
                placed = True
        if not placed:
            out.append({"type": "ransom", "pirate": pid, "onto": None})


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
