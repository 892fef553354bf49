"""The state of a game of Pirates (2021) and the names of its pieces.

Pirates are small integers: ``seat * 5 + k`` with ``k`` 0…4 for the values 2, 3, 4, 5 and
"?". Their public ids (P-ACT) are ``"<seat>.<value>"`` with ``Q`` for "?". Cards are indices
into the game's card set. Everything is a tuple, so a state can be shared freely and a new
one costs only the parts an action changes.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple

from engine.base import RngState, seat_name
from engine.pirates.cards import CardSet

MAX_PLAYERS = 5
PIRATES_PER_SEAT = 5
MAX_PARTY = 9  # P-PARTY-3
DISPLAY_SPACES = 4
START_DUCATS = 5  # P-SET-1
RANSOM = 5  # P-RAN-2
BLACK_SPOT_PENALTY = 10  # P-SPOT-1
ACTION_LIMIT = 1000  # P-TURN-2

EMPTY = -1  # an empty display space
NOBODY = -1  # the black spot beside the board

VALUE_LABELS: tuple[str, ...] = ("2", "3", "4", "5", "Q")
# The face value of each pirate; None for "?" (paid the card's "?" amount).
PIRATE_VALUE: tuple[int | None, ...] = tuple(
    (2, 3, 4, 5, None)[k] for _ in range(MAX_PLAYERS) for k in range(PIRATES_PER_SEAT)
)
PIRATE_IDS: tuple[str, ...] = tuple(
    f"{seat}.{label}" for seat in range(MAX_PLAYERS) for label in VALUE_LABELS
)
PIRATE_INDEX: dict[str, int] = {pid: i for i, pid in enumerate(PIRATE_IDS)}

END_CARDS = "all_cards_boarded"  # P-CAP-9
END_PASSES = "full_round_of_passes"  # P-TURN-1
END_LIMIT = "action_limit"  # P-TURN-2

Party = tuple[int, ...]


class PiratesState(NamedTuple):
    """One moment of a game. A NamedTuple rather than a frozen dataclass because a new state
    is built on every action and tuple construction is several times cheaper."""

    card_set: CardSet
    players: int
    parties: tuple[Party, ...]  # sorted by captain; each party top first
    treasury: tuple[int, ...]
    booty: tuple[tuple[int, ...], ...]  # [seat][kind], kinds in cards.KINDS order
    supply: tuple[int, ...]  # booty tokens left, per kind
    kept: tuple[tuple[int, ...], ...]  # [seat] cards kept, in capture order
    discarded: tuple[int, ...]
    display: tuple[int, ...]  # D1…D4, EMPTY where captured
    deck: tuple[int, ...]  # top first
    black_spot: int  # holder seat or NOBODY
    active: int
    passes: int  # passes in a row
    actions: int
    end: str  # "" while running, else why the game ended
    rng_state: RngState


def owner(pirate: int) -> int:
    return pirate // PIRATES_PER_SEAT


def _pirate_name(pirate: int) -> str:
    label = VALUE_LABELS[pirate % PIRATES_PER_SEAT]
    return f"{seat_name(owner(pirate))} {'?' if label == 'Q' else label}"


# Made once: every log sentence names two or three pirates.
PIRATE_NAMES: tuple[str, ...] = tuple(_pirate_name(p) for p in range(len(PIRATE_IDS)))


def pirate_name(pirate: int) -> str:
    """A pirate as players say it: "Red 3", "Blue ?"."""
    return PIRATE_NAMES[pirate]


def find_party(state: PiratesState, captain: int) -> int:
    """Index in ``state.parties`` of the party ``captain`` leads, -1 if it leads none."""
    parties = state.parties
    # Parties are sorted and captains unique, so (captain,) sorts just before its party.
    i = bisect_left(parties, (captain,))
    return i if i < len(parties) and parties[i][0] == captain else -1


def party_of(state: PiratesState, pirate: int) -> int:
    """Index in ``state.parties`` of the party that holds ``pirate``."""
    for i, party in enumerate(state.parties):
        if pirate in party:
            return i
    raise LookupError(f"pirate {PIRATE_IDS[pirate]} is in no party")


def boarded(state: PiratesState) -> int:
    return len(state.discarded) + sum(len(k) for k in state.kept)
