"""The procedure of a game: carry out one validated move, then play on automatically through
Sunrise, Day, Dusk, Night and the End of campaign until some seat owes a decision or the game
is over (L-SET-3, L-DEC)."""

from __future__ import annotations

from engine.libertalia import campaign, day, dusk, night
from engine.libertalia.moves import Move
from engine.libertalia.state import DAY, DAYS, DUSK, NIGHT, NOBODY, SUNRISE, LibertaliaState
from engine.libertalia.working_copy import PICK_REVEALED, Log, Table

MIN_HAND_AT_SUNRISE = 3  # L-CAMP-5


def perform(state: LibertaliaState, seat: int, move: Move, text: bool = True) -> tuple[LibertaliaState, Log]:
    """The state after ``seat``'s ``move`` (already validated) and the log of the step, whose
    sentences are composed only with ``text`` (``Rules.apply`` wants none)."""
    t = Table(state)
    log = Log(text)
    kind = move.type
    if kind == "play":
        choose(t, log, seat, move.rank)
    elif kind == "take":
        dusk.take(t, log, seat, move)
        if not t.decision:
            dusk.go_on(t, log)
    elif kind == "saber":
        dusk.saber(t, log, seat, move)
        dusk.go_on(t, log)
    elif kind == "waitress":
        night.answer_waitress(t, log, seat, move)
    else:
        t.decision = ""
        day.ANSWERS[kind](t, log, seat, move)
    run(t, log)
    t.actions += 1
    return t.freeze(), log


def choose(t: Table, log: Log, seat: int, rank: int) -> None:
    """L-SUN-1: a hidden, final choice; only the chooser's own sentence names the card."""
    t.hand(seat).remove(rank)
    t.picks_w()[seat] = rank
    log.reveal(PICK_REVEALED)
    if not log.text:
        return
    waiting = [t.name(s) for s in range(t.players) if not t.picks[s]]
    if waiting:
        rest = f"; waiting for {', '.join(waiting)}."
        log.add(f"{t.name(seat)} has chosen a card{rest}", {seat: f"You chose {t.card(rank)}{rest}"})
    else:
        log.add(f"{t.name(seat)} has chosen a card, the last one.")


def run(t: Table, log: Log) -> None:
    """Play on until a decision is owed (to_act not empty) or the game is over."""
    while True:
        phase = t.phase
        if phase == SUNRISE:
            if not all(t.picks):
                if not any(t.picks) and min(map(len, t.hands)) < MIN_HAND_AT_SUNRISE:
                    raise AssertionError("L-CAMP-5: a hand holds fewer than 3 cards at Sunrise")
                return
            day.reveal(t, log)
        elif phase == DAY:
            if t.decision:
                return
            if not day.next_turn(t, log):
                t.phase = DUSK
                t.actor = NOBODY
                if log.text:
                    log.add(f"Dusk {t.day}.")
        elif phase == DUSK:
            if t.decision:
                return
            if not dusk.next_turn(t, log):
                t.phase = NIGHT
                t.actor = NOBODY
                night.start(t, log)
        elif phase == NIGHT:
            if any(t.night):
                return
            if t.day < DAYS:
                t.day += 1
                t.phase = SUNRISE
                if log.text:
                    log.add(f"Day {t.day} of campaign {t.campaign}: Sunrise.")
            else:
                campaign.end(t, log)  # L-NIGHT-4
        else:
            return
