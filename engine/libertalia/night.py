"""Night (L-NIGHT): Granny Wata for all dens first (L-NIGHT-2), then each player's den by
decreasing rank; a Waitress with a map in hand pauses that player's Night for its question
(L-NIGHT-3). Players' Nights touch only their own den and booty, so answers may arrive in any
order with the same result (L-DEC-2)."""

from __future__ import annotations

from collections.abc import Callable

from engine.libertalia.characters import MAP, SABER, effect
from engine.libertalia.moves import Move
from engine.libertalia.working_copy import Log, Table, doubloons

BARKEEP_GAIN = effect(7, "night")["n"]
WAITRESS_RANK = 8
WAITRESS_GAIN = effect(8, "night")["gain"]
FREED_PER = effect(12, "night")["n"]
FREED_ABOVE = effect(12, "night")["rank"]
MUTINEER_GAIN = effect(13, "night")["gain"]
ARMORER_PER = effect(20, "night")["n"]
GRANNY_RANK = 27
GRANNY_GAIN = effect(27, "night")["gain"]
ABOVE_ALL = 31

Effect = Callable[[Table, Log, int, int], None]


def start(t: Table, log: Log) -> None:
    if log.text:
        log.add(f"Night {t.day}.")
    granny_wata(t, log)
    for seat in range(t.players):
        resolve(t, log, seat, ABOVE_ALL)


def granny_wata(t: Table, log: Log) -> None:
    """L-CHAR-27, resolved for all dens at once (L-NIGHT-2)."""
    owners = [seat for seat in range(t.players) if GRANNY_RANK in t.dens[seat]]
    if len(owners) == 1:
        t.gain(owners[0], GRANNY_GAIN)
        if log.text:
            log.add(
                f"{t.character(owners[0], GRANNY_RANK)} is the only one: {t.name(owners[0])} gains "
                f"{doubloons(GRANNY_GAIN)}."
            )
    elif owners:
        for seat in owners:
            t.discard_from_den(seat, GRANNY_RANK)
        if log.text:
            names = ", ".join(t.character(seat, GRANNY_RANK) for seat in owners)
            log.add(f"Several Granny Watas are in dens, so all are discarded: {names}.")


def resolve(t: Table, log: Log, seat: int, below: int) -> None:
    """Run ``seat``'s den characters ranked below ``below``, highest first (L-NIGHT-1),
    until its Waitress asks. Only ranks that act at Night (the Waitress, NIGHT_EFFECTS) are
    looked at: the others do nothing then."""
    for rank in sorted([r for r in t.dens[seat] if r in _ACTS_AT_NIGHT], reverse=True):
        if rank >= below or rank not in t.dens[seat]:  # discarded earlier this Night
            continue
        if rank == WAITRESS_RANK and t.booty[seat][MAP]:
            t.night_w()[seat] = True
            if log.text:
                log.add(f"{t.name(seat)} must decide whether the Waitress sells a treasure map.")
            return
        found = NIGHT_EFFECTS.get(rank)
        if found is not None:
            found(t, log, seat, rank)


def answer_waitress(t: Table, log: Log, seat: int, move: Move) -> None:
    """L-CHAR-8: a "may", always asked; the rest of the Night follows."""
    t.night_w()[seat] = False
    if move.sell:
        t.to_bag(seat, MAP, 1)
        t.gain(seat, WAITRESS_GAIN)
        if log.text:
            log.add(
                f"{t.name(seat)}'s Waitress discards a treasure map: {t.name(seat)} gains "
                f"{doubloons(WAITRESS_GAIN)}."
            )
    else:
        log.add(f"{t.name(seat)}'s Waitress keeps the treasure maps.")
    resolve(t, log, seat, WAITRESS_RANK)


# L-CHAR-7
def barkeep(t: Table, log: Log, seat: int, rank: int) -> None:
    t.gain(seat, BARKEEP_GAIN)
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(BARKEEP_GAIN)}.")


# L-CHAR-12
def freed_slave(t: Table, log: Log, seat: int, rank: int) -> None:
    high = sum(1 for r in t.dens[seat] if r > FREED_ABOVE)
    gained = t.gain(seat, FREED_PER * high)
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(gained)}.")


# L-CHAR-13 (with no other character nothing happens: the clarification)
def mutineer(t: Table, log: Log, seat: int, rank: int) -> None:
    others = [r for r in t.dens[seat] if r != rank]
    if not others:
        if log.text:
            log.add(f"{t.character(seat, rank)} is alone in the den: nothing happens.")
        return
    victim = min(others)
    t.discard_from_den(seat, victim)
    t.gain(seat, MUTINEER_GAIN)
    if log.text:
        who = t.character(seat, rank)
        log.add(
            f"{who} discards {t.character(seat, victim)}; {t.name(seat)} gains {doubloons(MUTINEER_GAIN)}."
        )


# L-CHAR-20
def armorer(t: Table, log: Log, seat: int, rank: int) -> None:
    gained = t.gain(seat, ARMORER_PER * t.booty[seat][SABER])
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(gained)}.")


NIGHT_EFFECTS: dict[int, Effect] = {
    7: barkeep,
    12: freed_slave,
    13: mutineer,
    20: armorer,
}
_ACTS_AT_NIGHT = frozenset({WAITRESS_RANK, *NIGHT_EFFECTS})
