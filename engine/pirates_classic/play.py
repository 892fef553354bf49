"""Carrying out a validated decision: the state transitions of C-MOVE, C-BOARD, C-MUT and
C-TURN.

:func:`perform` returns what happened besides the new state (the boarding's arithmetic, the
ships a refill turned up), so the log sentence is told from the same computation.
"""

from __future__ import annotations

from bisect import insort
from typing import NamedTuple

from engine.base import ENDS_THE_GAME
from engine.pirates.play import assembled
from engine.pirates.state import PIRATE_VALUE, PIRATES_PER_SEAT, Party
from engine.pirates_classic.actions import Board, Challenge, Decision, Decline, MoveStack, Skip
from engine.pirates_classic.state import (
    ACTION_LIMIT,
    CHALLENGED,
    DECLINED,
    DISPLAY_SPACES,
    EMPTY,
    END_LIMIT,
    END_SHIPS,
    END_SKIPS,
    NOT_ASKED,
    ClassicState,
    questions,
)


class Boarding(NamedTuple):
    """What boarding a ship does (C-BOARD-2, C-BOARD-3)."""

    ship: int
    captain_kind: int  # the booty kind the captain takes
    mate: int  # seat of the mate's owner
    mate_kind: int  # the kind the mate's owner takes, -1 for none
    payments: tuple[tuple[int, int], ...]  # (seat, ducats) per paid pirate, top to bottom
    pay: int
    from_supply: int  # the part of the pay the captain's treasury could not cover


class Outcome(NamedTuple):
    state: ClassicState
    boarding: Boarding | None = None
    refill: tuple[int, ...] = ()  # the ships turned face up after this action (C-BOARD-4)


def boarding(state: ClassicState, seat: int, party: Party, space: int, booty: str | None) -> Boarding:
    ship_set = state.card_set
    ship = state.display[space]
    captain_kind, mate_kind = ship_set.grants[ship][booty]
    question = ship_set.question_pay[ship]
    payments = []
    for pirate in party[1:]:
        paid_seat = pirate // PIRATES_PER_SEAT
        if paid_seat != seat:
            value = PIRATE_VALUE[pirate]
            payments.append((paid_seat, question if value is None else value))
    pay = sum(amount for _, amount in payments)
    purse = state.treasury[seat] + ship_set.ducats[ship]  # the ship's ducats come first
    return Boarding(
        ship, captain_kind, party[1] // PIRATES_PER_SEAT, mate_kind, tuple(payments), pay, max(0, pay - purse)
    )


def _turn(
    state: ClassicState,
    parties: tuple[Party, ...],
    display: tuple[int, ...],
    skips: int,
    end: str,
    *,
    treasury: tuple[int, ...] | None = None,
    booty: tuple[tuple[int, ...], ...] | None = None,
    boarded: tuple[int, ...] | None = None,
    deck: tuple[int, ...] | None = None,
) -> ClassicState:
    """The state after a turn's action: the next seat's turn starts with its challenge
    questions (C-MUT-2), unless the game is over."""
    actions = state.actions + 1
    if not end and actions >= ACTION_LIMIT:
        end = END_LIMIT
    players = state.players
    active = (state.active + 1) % players
    asked = (NOT_ASKED,) * players if end else questions(state.card_set, parties, display, active, players)
    return ClassicState(
        state.card_set,
        players,
        parties,
        state.treasury if treasury is None else treasury,
        state.booty if booty is None else booty,
        state.boarded if boarded is None else boarded,
        display,
        state.deck if deck is None else deck,
        active,
        asked,
        (0,) * players,
        skips,
        actions,
        end,
        state.rng_state,
    )


TURNS_UP_SHIPS = "it turns up new ships from the deck"


def reveals(state: ClassicState, decision: Decision) -> str | None:
    """Why ``decision`` is final, or None (``Rules.reveals``). Read from public parts only:
    the display, how many ships are boarded and left in the deck, the counts of actions and
    skips; never the deck's order (the only secret, with the generator that dealt it)."""
    if state.actions + 1 >= ACTION_LIMIT:  # C-TURN-2
        return ENDS_THE_GAME
    if isinstance(decision, Skip):
        return ENDS_THE_GAME if state.skips + 1 >= state.players else None  # C-TURN-1
    if isinstance(decision, Board):
        if len(state.boarded) + 1 >= len(state.card_set):  # C-BOARD-5
            return ENDS_THE_GAME
        others = (ship for space, ship in enumerate(state.display) if space != decision.space)
        if all(ship == EMPTY for ship in others) and state.deck:  # C-BOARD-4: 3 new ships
            return TURNS_UP_SHIPS
    # C-MOVE moves public stacks; a challenge or decline (C-MUT-2) is public when it is made
    # and the questions of the next turn are asked from public stacks and ships.
    return None


def perform(state: ClassicState, seat: int, decision: Decision) -> Outcome:
    if isinstance(decision, MoveStack):  # C-MOVE-1, P-ASM-1
        return Outcome(
            _turn(state, assembled(state.parties, decision.party, decision.onto), state.display, 0, "")
        )
    if isinstance(decision, Board):
        return _board(state, seat, decision)
    if isinstance(decision, Challenge | Decline):  # C-MUT-2: the turn has not begun yet
        answer = CHALLENGED if isinstance(decision, Challenge) else DECLINED
        actions = state.actions + 1
        return Outcome(
            state._replace(
                answers=(*state.answers[:seat], answer, *state.answers[seat + 1 :]),
                actions=actions,
                end=END_LIMIT if actions >= ACTION_LIMIT else "",
                asked=(NOT_ASKED,) * state.players if actions >= ACTION_LIMIT else state.asked,
            )
        )
    skips = state.skips + 1  # C-TURN-1
    return Outcome(
        _turn(state, state.parties, state.display, skips, END_SKIPS if skips >= state.players else "")
    )


def _board(state: ClassicState, seat: int, decision: Board) -> Outcome:
    party = state.parties[decision.party]
    outcome = boarding(state, seat, party, decision.space, decision.booty)
    ship = outcome.ship
    treasury = list(state.treasury)
    purse = treasury[seat] + state.card_set.ducats[ship]
    for paid_seat, amount in outcome.payments:
        treasury[paid_seat] += amount
    treasury[seat] = max(0, purse - outcome.pay)  # C-BOARD-3: the supply covers the rest
    hoards = [list(hoard) for hoard in state.booty]
    hoards[seat][outcome.captain_kind] += 1  # P-CAP-2
    if outcome.mate_kind >= 0:
        hoards[outcome.mate][outcome.mate_kind] += 1
    parties = list(state.parties[: decision.party] + state.parties[decision.party + 1 :])
    for pirate in party:  # C-BOARD-4: every pirate goes home as a single
        insort(parties, (pirate,))
    boarded = (*state.boarded, ship)
    display = (*state.display[: decision.space], EMPTY, *state.display[decision.space + 1 :])
    deck = state.deck
    refill: tuple[int, ...] = ()
    if display.count(EMPTY) == DISPLAY_SPACES and deck:  # C-BOARD-4
        refill = deck[:DISPLAY_SPACES]
        display = refill + (EMPTY,) * (DISPLAY_SPACES - len(refill))
        deck = deck[DISPLAY_SPACES:]
    after = _turn(
        state,
        tuple(parties),
        display,
        0,
        END_SHIPS if len(boarded) >= len(state.card_set) else "",  # C-BOARD-5
        treasury=tuple(treasury),
        booty=tuple(map(tuple, hoards)),
        boarded=boarded,
        deck=deck,
    )
    return Outcome(after, outcome, refill)
