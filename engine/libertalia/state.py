"""The state of a game of Libertalia and the names of its pieces.

A character is ``(seat, rank)``: each seat plays one colour, and a colour has each rank once
(L-COMP-1). Its order key (L-ORD-1) is the int ``rank * 8 + influence``, so comparing keys
compares (rank, influence). Booty is counted per kind in ``characters.KINDS`` order. The
state is a NamedTuple of tuples: it can be shared freely, and a step builds a new one.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.base import RngState
from engine.libertalia.characters import COLOURS, CharacterSet

CAMPAIGNS = 3  # L-SET-3
DAYS = 6
START_DOUBLOONS = 10  # L-CAMP-1
FIRST_HAND = 9  # L-CAMP-3
NEW_CARDS = 6

# Phases: where the game rests while it waits for decisions. The End of campaign owes none
# (L-END-1), so the game never rests there; "over" is after the third campaign.
SUNRISE, DAY, DUSK, NIGHT, OVER = "sunrise", "day", "dusk", "night", "over"
PHASES = (SUNRISE, DAY, DUSK, NIGHT, OVER)

# Day and Dusk decisions (L-DEC-3), named by the action type that answers them (L-ACT).
DAY_DECISIONS = ("parrot", "recruit", "revive", "keep", "gunner", "sell")
DUSK_DECISIONS = ("take", "saber")

NOBODY = (-1, 0)

Character = tuple[int, int]  # (seat, rank)
Counts = tuple[int, ...]  # per booty kind
Layout = tuple[tuple[int, ...], ...]  # six day-spaces, each its tokens (kind indices)


class LibertaliaState(NamedTuple):
    chars: CharacterSet
    players: int
    colours: tuple[int, ...]  # colour index (characters.COLOURS) per seat
    campaign: int  # 1…3
    day: int  # 1…6
    phase: str
    dealt: tuple[tuple[int, ...], ...]  # the ranks dealt at each campaign's start so far
    hands: tuple[tuple[int, ...], ...]  # ranks, ascending
    picks: tuple[int, ...]  # Sunrise: the rank chosen, 0 while not chosen (L-SUN-1)
    ship: tuple[Character, ...]  # by increasing key (L-ORD-2)
    dens: tuple[tuple[int, ...], ...]
    graves: tuple[tuple[int, ...], ...]
    removed: tuple[tuple[int, ...], ...]  # characters out of the game (L-END-5)
    booty: tuple[Counts, ...]
    doubloons: tuple[int, ...]
    spaces: tuple[Counts, ...]  # the six day-spaces
    bag: Counts
    actor: Character  # the character whose Day or Dusk turn it is, NOBODY otherwise
    decision: str  # the Day or Dusk decision its owner owes, "" for none
    picks_left: int  # Dusk: tokens the actor still takes this turn (Cook: 2)
    officer: bool  # Dusk: the actor took a Spanish officer this turn (L-DUSK-4)
    night: tuple[bool, ...]  # Night: the seats asked the Waitress's question (L-NIGHT-3)
    fortunes: tuple[tuple[int, ...], ...]  # per finished campaign, per seat (L-END-4)
    fixed_ranks: tuple[tuple[int, ...], ...]  # option ranks, campaign 1 first (L-RNG-2)
    fixed_layouts: tuple[Layout, ...]  # option layouts, campaign 1 first
    fixed_draws: tuple[int, ...]  # option draws not used yet, next first
    actions: int
    rng_state: RngState


def key(chars: CharacterSet, colours: tuple[int, ...], seat: int, rank: int) -> int:
    """L-ORD-1: (rank, influence) as one comparable number."""
    return rank * 8 + chars.influence[colours[seat]][rank]


def seat_name(state: LibertaliaState, seat: int) -> str:
    """A seat as players read it: its colour ("Yellow")."""
    return COLOURS[state.colours[seat]].capitalize()


def left_of(players: int, seat: int) -> int:
    """L-SET-2: the left neighbour."""
    return (seat - 1) % players


def right_of(players: int, seat: int) -> int:
    return (seat + 1) % players


def scores(state: LibertaliaState) -> list[int]:
    return [sum(f[s] for f in state.fortunes) for s in range(state.players)]
