"""One sentence per action for the game log, in the game's words, told from the state before
the action and what :func:`engine.pirates_classic.play.perform` reported ("Red boards the
Brigantine Charity with 4 pirates: 16 ducats and rum, Blue's mate gets chest, pays 7 ducats.").
"""

from __future__ import annotations

from engine.base import seat_name
from engine.pirates.state import PIRATES_PER_SEAT, Party, pirate_name
from engine.pirates_classic.actions import Board, Challenge, Decision, Decline, MoveStack, names, ship_title
from engine.pirates_classic.cards import KINDS
from engine.pirates_classic.play import Boarding, Outcome
from engine.pirates_classic.state import (
    CHALLENGED,
    END_LIMIT,
    END_SHIPS,
    END_SKIPS,
    ClassicState,
    challenged,
    find_party,
    waiting,
)

_ENDINGS = {
    END_SHIPS: "that was the last ship, so the game ends",
    END_SKIPS: "after a full round of skips the game ends",
    END_LIMIT: "the game has reached its action limit and ends",
}


def stack_name(party: Party) -> str:
    if len(party) == 1:
        return pirate_name(party[0])
    return f"{seat_name(party[0] // PIRATES_PER_SEAT)}'s stack of {len(party)} led by {pirate_name(party[0])}"


def _ducats(amount: int) -> str:
    return "1 ducat" if amount == 1 else f"{amount} ducats"


def _boarding(state: ClassicState, seat: int, party: Party, outcome: Boarding) -> str:
    ship_set = state.card_set
    ship = outcome.ship
    text = (
        f"boards {ship_title(ship_set, ship)} with {len(party)} pirates: "
        f"{_ducats(ship_set.ducats[ship])} and {KINDS[outcome.captain_kind]}"
    )
    if outcome.mate_kind >= 0:
        text += f", {seat_name(outcome.mate)}'s mate gets {KINDS[outcome.mate_kind]}"
    if not outcome.payments:
        return text + ", pays nobody"
    paid: dict[int, int] = {}
    for paid_seat, amount in outcome.payments:
        paid[paid_seat] = paid.get(paid_seat, 0) + amount
    text += (
        f", pays {_ducats(outcome.pay)} ("
        + ", ".join(f"{seat_name(s)} {paid[s]}" for s in sorted(paid))
        + ")"
    )
    if outcome.from_supply:
        text += f", {outcome.from_supply} of them from the supply"
    return text


def sentence(state: ClassicState, seat: int, decision: Decision, outcome: Outcome) -> str:
    who = seat_name(seat)
    captain = seat_name(state.active)
    if isinstance(decision, MoveStack):
        mine, target = state.parties[decision.party], state.parties[decision.onto]
        text = (
            f"{who} moves {stack_name(mine)} onto {stack_name(target)}, forming a stack of "
            f"{len(mine) + len(target)} with {pirate_name(mine[0])} as captain"
        )
    elif isinstance(decision, Board):
        assert outcome.boarding is not None
        party = state.parties[decision.party]
        forced = challenged(state)
        if forced:
            challengers = [s for s, c in enumerate(state.asked) if c >= 0 and state.answers[s] == CHALLENGED]
            who += f", challenged by {names(challengers)},"
        text = f"{who} {_boarding(state, seat, party, outcome.boarding)}"
    elif isinstance(decision, Challenge):
        stack = stack_name(state.parties[find_party(state.parties, decision.captain)])
        text = f"{who} challenges {captain} to board with {stack}"
    elif isinstance(decision, Decline):
        stack = stack_name(state.parties[find_party(state.parties, state.asked[seat])])
        text = f"{who} does not challenge {captain} to board with {stack}"
    else:
        text = f"{who} can neither move nor board and skips"
    after = outcome.state
    if outcome.refill:
        ships = [ship_title(after.card_set, s) for s in outcome.refill]
        text += "; the next ships come up: " + (
            ", ".join(ships[:-1]) + " and " + ships[-1] if len(ships) > 1 else ships[0]
        )
    if after.end:
        text += "; " + _ENDINGS[after.end]
    elif after.active != state.active:
        asked = waiting(after)
        if asked:
            verb = "decides" if len(asked) == 1 else "decide"
            text += f"; {names(asked)} {verb} whether to challenge {seat_name(after.active)}"
    return text + "."
