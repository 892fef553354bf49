"""Carrying out a validated move: the state transitions of P-ASM, P-CAP, P-MUT, P-RAN and
P-TURN.

The capture arithmetic lives in :func:`boarding`; :func:`perform_boarding` hands its outcome
to the log sentence (describe.py) as well, so one pass makes both the new state and the
sentence, and the sentence always tells what the state shows.
"""

from __future__ import annotations

from bisect import insort
from typing import NamedTuple

from engine.base import ENDS_THE_GAME
from engine.pirates.actions import Assemble, Capture, Move, Mutiny, Pass, Ransom
from engine.pirates.state import (
    ACTION_LIMIT,
    DISPLAY_SPACES,
    EMPTY,
    END_CARDS,
    END_LIMIT,
    END_PASSES,
    PIRATE_VALUE,
    PIRATES_PER_SEAT,
    RANSOM,
    Party,
    PiratesState,
)


class Boarding(NamedTuple):
    """What a capture does (P-CAP-2 … P-CAP-6)."""

    card: int
    captain_booty: tuple[int, ...]  # kinds the captain's owner takes
    mate: int  # seat of the mate's owner who takes mate_booty, -1 for nobody
    mate_booty: int  # kind, -1 for none
    payments: tuple[tuple[int, int], ...]  # (seat, ducats) per paid pirate, top to bottom
    pay: int
    kept: bool
    from_supply: int  # the part of the pay that came from the supply


def boarding(
    state: PiratesState, seat: int, party: Party, space: int, booty: str | None, double: bool
) -> Boarding:
    card_set = state.card_set
    card = state.display[space]
    captain_booty, mate_booty = card_set.grants[card][booty]
    # P-COMP-3: a valid card set never empties the supply; if a custom one did, a missing
    # token is simply not handed out.
    supply = list(state.supply)
    got: list[int] = []
    for kind in captain_booty:
        if supply[kind] > 0:
            supply[kind] -= 1
            got.append(kind)
    mate = -1
    if mate_booty >= 0 and len(party) > 1 and supply[mate_booty] > 0:
        mate = party[1] // PIRATES_PER_SEAT
    else:
        mate_booty = -1
    question = card_set.question_pay[card]
    factor = 2 if double else 1
    payments = []
    pay = 0
    for pirate in party[1:]:
        paid_seat = pirate // PIRATES_PER_SEAT
        if paid_seat != seat:
            value = PIRATE_VALUE[pirate]
            amount = (question if value is None else value) * factor
            payments.append((paid_seat, amount))
            pay += amount
    purse = state.treasury[seat] + card_set.ducats[card]
    kept = purse >= pay
    return Boarding(
        card, tuple(got), mate, mate_booty, tuple(payments), pay, kept, 0 if kept else pay - purse
    )


def _next(
    state: PiratesState,
    *,
    parties: tuple[Party, ...] | None = None,
    treasury: tuple[int, ...] | None = None,
    booty: tuple[tuple[int, ...], ...] | None = None,
    supply: tuple[int, ...] | None = None,
    kept: tuple[tuple[int, ...], ...] | None = None,
    discarded: tuple[int, ...] | None = None,
    display: tuple[int, ...] | None = None,
    deck: tuple[int, ...] | None = None,
    black_spot: int | None = None,
    passes: int = 0,
    end: str = "",
) -> PiratesState:
    actions = state.actions + 1
    if not end and actions >= ACTION_LIMIT:
        end = END_LIMIT
    return PiratesState(
        state.card_set,
        state.players,
        state.parties if parties is None else parties,
        state.treasury if treasury is None else treasury,
        state.booty if booty is None else booty,
        state.supply if supply is None else supply,
        state.kept if kept is None else kept,
        state.discarded if discarded is None else discarded,
        state.display if display is None else display,
        state.deck if deck is None else deck,
        state.black_spot if black_spot is None else black_spot,
        (state.active + 1) % state.players,
        passes,
        actions,
        end,
        state.rng_state,
    )


def assembled(parties: tuple[Party, ...], party: int, onto: int) -> tuple[Party, ...]:
    """P-ASM-1: the parties after the one at index ``party`` is placed on the one at ``onto``."""
    result = list(parties)
    joined = result[party] + result[onto]
    if party > onto:
        del result[party], result[onto]
    else:
        del result[onto], result[party]
    insort(result, joined)  # the rest stay sorted by captain
    return tuple(result)


def perform(state: PiratesState, seat: int, move: Move) -> PiratesState:
    if isinstance(move, Assemble):
        # The commonest move, so built directly rather than through _next.
        actions = state.actions + 1
        return PiratesState(
            state.card_set,
            state.players,
            assembled(state.parties, move.party, move.onto),
            state.treasury,
            state.booty,
            state.supply,
            state.kept,
            state.discarded,
            state.display,
            state.deck,
            state.black_spot,
            (state.active + 1) % state.players,
            0,
            actions,
            END_LIMIT if actions >= ACTION_LIMIT else "",
            state.rng_state,
        )
    if isinstance(move, Capture | Mutiny):
        return perform_boarding(state, seat, move)[0]
    if isinstance(move, Ransom):
        return _ransom(state, seat, move)
    assert isinstance(move, Pass)
    passes = state.passes + 1
    return _next(state, passes=passes, end=END_PASSES if passes >= state.players else "")


TURNS_UP_CARDS = "it turns up the next cards of the deck"


def reveals(state: PiratesState, move: Move) -> str | None:
    """Why ``move`` is final, or None (``Rules.reveals``). Read from public parts only: the
    display, how many cards the deck and the boarded piles hold, the counts of actions and
    passes; never the deck's order. No move draws from the generator after setup."""
    if state.actions + 1 >= ACTION_LIMIT:  # P-TURN-2
        return ENDS_THE_GAME
    if isinstance(move, Pass):
        return ENDS_THE_GAME if state.passes + 1 >= state.players else None  # P-TURN-1
    if isinstance(move, Capture | Mutiny):
        boarded = len(state.discarded) + sum(map(len, state.kept)) + 1
        if boarded >= len(state.card_set):  # P-CAP-9
            return ENDS_THE_GAME
        others = (card for space, card in enumerate(state.display) if space != move.space)
        if all(card == EMPTY for card in others) and state.deck:  # P-CAP-8: the display refills
            return TURNS_UP_CARDS
    return None  # P-ASM and P-RAN move public pirates and ducats only


def mutineers(party: Party, pirate: int) -> Party:
    """P-MUT-3: the rebel on top, the old captain as mate, the rest in order below."""
    return (pirate, party[0], *(p for p in party[1:] if p != pirate))


def spot_after_mutiny(state: PiratesState, seat: int, victim: int) -> int:
    """P-MUT-4: the black spot goes to the victim, or to the mutineer if the victim has it."""
    return seat if state.black_spot == victim else victim


def perform_boarding(
    state: PiratesState, seat: int, move: Capture | Mutiny
) -> tuple[PiratesState, Boarding]:
    """A capture or a mutiny carried out, and what the boarding did (for the log sentence)."""
    rest = state.parties[: move.party] + state.parties[move.party + 1 :]
    if isinstance(move, Capture):
        party = state.parties[move.party]
        outcome = boarding(state, seat, party, move.space, move.booty, False)
        return _board(state, seat, party, rest, move.space, outcome, state.black_spot), outcome
    party = mutineers(state.parties[move.party], move.pirate)
    outcome = boarding(state, seat, party, move.space, move.booty, True)
    spot = spot_after_mutiny(state, seat, move.victim)
    return _board(state, seat, party, rest, move.space, outcome, spot), outcome


def _board(
    state: PiratesState,
    seat: int,
    party: Party,
    rest: tuple[Party, ...],
    space: int,
    outcome: Boarding,
    black_spot: int,
) -> PiratesState:
    card_set = state.card_set
    card = outcome.card
    treasury = list(state.treasury)
    for paid_seat, amount in outcome.payments:
        treasury[paid_seat] += amount
    purse = treasury[seat] + card_set.ducats[card]
    treasury[seat] = purse - outcome.pay if outcome.kept else 0
    hoards = list(state.booty)
    supply = list(state.supply)
    hoard = list(hoards[seat])
    for kind in outcome.captain_booty:
        hoard[kind] += 1
        supply[kind] -= 1
    hoards[seat] = tuple(hoard)
    if outcome.mate >= 0:
        hoard = list(hoards[outcome.mate])
        hoard[outcome.mate_booty] += 1
        supply[outcome.mate_booty] -= 1
        hoards[outcome.mate] = tuple(hoard)
    kept = state.kept
    discarded = state.discarded
    if outcome.kept:
        kept = (*kept[:seat], kept[seat] + (card,), *kept[seat + 1 :])
    else:
        discarded = (*discarded, card)
    parties = list(rest)
    for pirate in party:  # P-CAP-7: every pirate goes home as a single
        insort(parties, (pirate,))
    display = (*state.display[:space], EMPTY, *state.display[space + 1 :])
    deck = state.deck
    if display.count(EMPTY) == DISPLAY_SPACES and deck:  # P-CAP-8
        drawn = deck[:DISPLAY_SPACES]
        display = drawn + (EMPTY,) * (DISPLAY_SPACES - len(drawn))
        deck = deck[DISPLAY_SPACES:]
    done = len(discarded) + sum(map(len, kept)) >= len(card_set)  # P-CAP-9
    return _next(
        state,
        parties=tuple(parties),
        treasury=tuple(treasury),
        booty=tuple(hoards),
        supply=tuple(supply),
        kept=kept,
        discarded=discarded,
        display=display,
        deck=deck,
        black_spot=black_spot,
        end=END_CARDS if done else "",
    )


def _ransom(state: PiratesState, seat: int, move: Ransom) -> PiratesState:
    parties = list(state.parties)
    source = parties[move.source]
    controller = source[0] // PIRATES_PER_SEAT
    parties[move.source] = tuple(p for p in source if p != move.pirate)
    treasury = list(state.treasury)
    # P-RAN-2: the controller always receives the full ransom; a short payer pays what they have.
    treasury[seat] = max(0, treasury[seat] - RANSOM)
    treasury[controller] += RANSOM
    if move.onto < 0:
        parties.append((move.pirate,))
    else:
        index = next(i for i, party in enumerate(parties) if party[0] == move.onto)
        parties[index] = (move.pirate,) + parties[index]
    parties.sort()
    return _next(state, parties=tuple(parties), treasury=tuple(treasury))
