"""The procedure of a game: carry out one validated move, then play on automatically through
Sunrise, Day, Dusk, Night and the End of campaign until some seat owes a decision or the game
is over (L-SET-3, L-DEC)."""

from __future__ import annotations

from engine.libertalia import campaign, day, dusk, night
from engine.libertalia.moves import Move
from engine.libertalia.state import DAY, DAYS, DUSK, NIGHT, NOBODY, SUNRISE, LibertaliaState, seat_name
from engine.libertalia.working_copy import PICK_REVEALED, Log, Table

MIN_HAND_AT_SUNRISE = 3  # L-CAMP-5


def perform(state: LibertaliaState, seat: int, move: Move, log: Log) -> LibertaliaState:
    """The state after ``seat``'s ``move`` (already validated); ``log`` receives the step's
    sentences (none when it is silent: ``Rules.apply`` wants none)."""
    kind = move.type
    if kind == "play" and state.picks.count(0) > 1:
        return pick(state, log, seat, move.rank)
    t = Table(state)
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
    return t.freeze()


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


_HANDS = LibertaliaState._fields.index("hands")
_PICKS = LibertaliaState._fields.index("picks")
_ACTIONS = LibertaliaState._fields.index("actions")
_new_state = tuple.__new__


def pick(state: LibertaliaState, log: Log, seat: int, rank: int) -> LibertaliaState:
    """A Sunrise choice that is not the last one: the whole step is :func:`choose`, with
    nothing to play on (others still choose), so it is done here on the state's fields
    directly: over half of a game's actions are these, and a working copy is most of their
    cost. The same change and the same sentences as ``choose`` then ``run``."""
    hands = list(state.hands)
    hand = list(hands[seat])
    hand.remove(rank)
    hands[seat] = tuple(hand)
    picks = list(state.picks)
    picks[seat] = rank
    fields = list(state)
    fields[_HANDS] = tuple(hands)
    fields[_PICKS] = tuple(picks)
    fields[_ACTIONS] = state.actions + 1
    log.reveal(PICK_REVEALED)
    if log.text:
        waiting = [seat_name(state, s) for s in range(state.players) if not picks[s]]
        rest = f"; waiting for {', '.join(waiting)}."
        card = f"the {state.chars.name[rank]} (rank {rank})"
        log.add(f"{seat_name(state, seat)} has chosen a card{rest}", {seat: f"You chose {card}{rest}"})
    return _new_state(LibertaliaState, fields)


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
