"""The state of a game of Pirates (classic) and the names of its pieces.

Pirates, their ids and stacks are those of the 2021 edition (P-PARTY-1…3, P-ACT), imported
from engine.pirates.state: pirate ``seat * 5 + k`` with ``k`` 0…4 for the values 2, 3, 4, 5
and "?", id ``"<seat>.<value>"``. Ships are indices into the game's ship set. Everything is a
tuple, so a state can be shared freely and a new one costs only the parts an action changes.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

from engine.base import RngState
from engine.pirates.state import MAX_PARTY, PIRATES_PER_SEAT, Party
from engine.pirates_classic.cards import ShipSet

DISPLAY_SPACES = 3  # C-SET-2
START_DUCATS = 10  # C-SET-1
CHALLENGERS = 3  # C-MUT-1: pirates a player needs in another player's stack
ACTION_LIMIT = 1000  # C-TURN-2

EMPTY = -1  # a display space whose ship was boarded
NOT_ASKED = -1  # asked[seat] when the seat has no challenge question this turn

# answers[seat] (C-MUT-2); meaningful only where the seat is asked.
WAITING, CHALLENGED, DECLINED = 0, 1, 2
ANSWER_NAMES = {CHALLENGED: "challenge", DECLINED: "decline"}

END_SHIPS = "all_ships_boarded"  # C-BOARD-5
END_SKIPS = "full_round_of_skips"  # C-TURN-1
END_LIMIT = "action_limit"  # C-TURN-2


class ClassicState(NamedTuple):
    """One moment of a game. A NamedTuple rather than a frozen dataclass because a new state
    is built on every action and tuple construction is several times cheaper."""

    card_set: ShipSet
    players: int
    parties: tuple[Party, ...]  # every stack and single pirate, sorted by captain, top first
    treasury: tuple[int, ...]
    booty: tuple[tuple[int, ...], ...]  # [seat][kind], kinds in cards.KINDS order
    boarded: tuple[int, ...]  # ships boarded, in order; out of the game (C-BOARD-4)
    display: tuple[int, ...]  # the 3 face-up spaces, EMPTY where boarded
    deck: tuple[int, ...]  # top first
    active: int  # whose turn it is
    # The challenge window of this turn (C-MUT-2): per seat, the captain of the active
    # player's stack it is asked about (NOT_ASKED), and its answer.
    asked: tuple[int, ...]
    answers: tuple[int, ...]
    skips: int  # skips in a row (C-TURN-1)
    actions: int
    end: str  # "" while running, else why the game ended
    rng_state: RngState


def find_party(parties: tuple[Party, ...], captain: int) -> int:
    """Index in ``parties`` of the stack ``captain`` leads, -1 if it leads none."""
    # Parties are sorted and captains unique, so (captain,) sorts just before its party.
    i = bisect_left(parties, (captain,))
    return i if i < len(parties) and parties[i][0] == captain else -1


def waiting(state: ClassicState) -> list[int]:
    """The seats whose challenge answer is still awaited, ascending."""
    asked = state.asked
    if max(asked) < 0:  # the common case: nobody was asked this turn
        return []
    return [s for s, captain in enumerate(asked) if captain >= 0 and state.answers[s] == WAITING]


def challenged(state: ClassicState) -> list[int]:
    """Captains of the active player's stacks that were challenged this turn (C-MUT-3)."""
    if CHALLENGED not in state.answers:
        return []
    return sorted({c for s, c in enumerate(state.asked) if c >= 0 and state.answers[s] == CHALLENGED})


def easiest_crew(ship_set: ShipSet, display: tuple[int, ...]) -> int:
    """The smallest minimum crew among the face-up ships (10 when none is face up)."""
    found = ship_set.easiest.get(display)
    if found is None:
        needs = [ship_set.min_crew[ship] for ship in display if ship >= 0]
        found = ship_set.easiest[display] = min(needs, default=MAX_PARTY + 1)
    return found


def questions(
    ship_set: ShipSet, parties: tuple[Party, ...], display: tuple[int, ...], active: int, players: int
) -> tuple[int, ...]:
    """C-MUT-1, C-MUT-2: per seat, the active player's stack it may challenge now (one that
    can board some face-up ship and holds 3 or more of the seat's pirates), or NOT_ASKED."""
    asked = [NOT_ASKED] * players
    smallest = max(easiest_crew(ship_set, display), 1 + CHALLENGERS)
    low = active * PIRATES_PER_SEAT
    start = bisect_left(parties, (low,))
    for party in parties[start : bisect_left(parties, (low + PIRATES_PER_SEAT,), start)]:
        if len(party) < smallest:
            continue
        counts = [0] * players
        for pirate in party:
            counts[pirate // PIRATES_PER_SEAT] += 1
        for seat, count in enumerate(counts):
            # With 5 pirates a colour a seat has 3 or more in at most one stack.
            if count >= CHALLENGERS and seat != active:
                asked[seat] = party[0]
    return tuple(asked)
