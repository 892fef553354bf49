"""Dusk (L-DUSK): the characters left on the ship take booty from the day's space, highest
first, and enter their owners' dens one by one (L-DUSK-6)."""

from __future__ import annotations

from engine.libertalia.characters import OFFICER, SABER, effect
from engine.libertalia.moves import Move, move_of
from engine.libertalia.options import options
from engine.libertalia.state import NOBODY
from engine.libertalia.working_copy import Log, Table

# L-CHAR-5, L-CHAR-18: how many tokens a character takes at Dusk; every other one takes 1.
TOKENS_TAKEN: dict[int, int] = {5: effect(5, "dusk")["count"], 18: effect(18, "dusk")["count"]}


def next_turn(t: Table, log: Log) -> bool:
    """L-DUSK-1: start the turn of the highest character below the last turn's; False when
    none is left."""
    influence = t.chars.influence
    colours = t.colours
    actor = t.actor
    before = actor[1] * 8 + influence[colours[actor[0]]][actor[1]] if actor != NOBODY else 1 << 30
    for seat, rank in reversed(t.ship):
        if rank * 8 + influence[colours[seat]][rank] < before:  # the key (L-ORD-1)
            t.actor = (seat, rank)
            t.picks_left = TOKENS_TAKEN.get(rank, 1)
            t.officer = False
            if not t.picks_left and log.text:
                log.add(f"{t.character(seat, rank)} takes no booty.")
            go_on(t, log)
            return True
    return False


def go_on(t: Table, log: Log) -> None:
    """Carry the actor's turn on until its owner must choose or the turn ends."""
    seat, rank = t.actor
    while t.picks_left:
        # The kinds on the space, as options.py lists the take (read afresh each time: a
        # take turns the table's row into its own list).
        kinds = [kind for kind, count in enumerate(t.spaces[t.day - 1]) if count]
        if not kinds:
            if log.text:
                log.add(f"{t.character(seat, rank)} finds day-space {t.day} empty.")
            break
        if len(kinds) >= 2:
            t.decision = "take"
            if log.text:
                log.add(f"{t.name(seat)} must choose a token for {t.character(seat, rank)}.")
            return
        take(t, log, seat, Move("take", booty=kinds[0]))  # one kind left: L-DEC-5
        if t.decision:
            return
    end_turn(t, log)


def take(t: Table, log: Log, seat: int, move: Move) -> None:
    """L-DUSK-2 … L-DUSK-5: one token from the day-space into the owner's booty."""
    kind = move.booty
    t.space(t.day - 1)[kind] -= 1
    t.purse(seat)[kind] += 1
    t.picks_left -= 1
    t.decision = ""
    if log.text:
        log.add(f"{t.character(*t.actor)} takes {t.token(kind)}.")
    if kind == OFFICER:
        t.officer = True
    elif kind == SABER:
        choices = options(t, "saber", seat)
        if len(choices) >= 2:
            t.decision = "saber"
            if log.text:
                log.add(f"{t.name(seat)} must choose a character in a neighbour's den to discard.")
        elif choices:
            saber(t, log, seat, move_of(choices[0]))
        else:
            log.add("The neighbours' dens are empty, so the saber hits nobody.")


def saber(t: Table, log: Log, seat: int, move: Move) -> None:
    """L-DUSK-3."""
    t.discard_from_den(move.seat, move.rank)
    t.decision = ""
    if log.text:
        log.add(f"{t.name(seat)}'s saber discards {t.character(move.seat, move.rank)} from its den.")


def end_turn(t: Table, log: Log) -> None:
    """L-DUSK-4, L-DUSK-6: into the den, or discarded after taking an officer."""
    seat, rank = t.actor
    t.ship_w().remove(t.actor)
    t.picks_left = 0
    if t.officer:
        t.to_grave(seat, rank)
        if log.text:
            log.add(f"{t.character(seat, rank)} took a Spanish officer and is discarded.")
    else:
        den = t.den(seat)
        den.append(rank)
        den.sort()
    t.officer = False
