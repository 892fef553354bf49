"""One sentence per action for the game log, in the game's words, told from the state
before the action ("Red captures the Brig Mermaid with 3 pirates, takes rum and keeps the
card.")."""

from __future__ import annotations

from typing import Any

from engine.base import seat_name
from engine.pirates.actions import Assemble, Capture, Mutiny, Ransom, card_title, check
from engine.pirates.cards import KINDS
from engine.pirates.play import Boarding, boarding, mutineers, perform, spot_after_mutiny
from engine.pirates.state import (
    END_CARDS,
    END_LIMIT,
    END_PASSES,
    PIRATES_PER_SEAT,
    RANSOM,
    Party,
    PiratesState,
    pirate_name,
)

_ENDINGS = {
    END_CARDS: "that was the last card, so the game ends",
    END_PASSES: "after a full round of passes the game ends",
    END_LIMIT: "the game has reached its action limit and ends",
}


def _party(party: Party) -> str:
    if len(party) == 1:
        return pirate_name(party[0])
    return f"{seat_name(party[0] // PIRATES_PER_SEAT)}'s party of {len(party)} led by {pirate_name(party[0])}"


def _pirates(count: int) -> str:
    return "1 pirate" if count == 1 else f"{count} pirates"


def _kinds(kinds: tuple[int, ...]) -> str:
    return " and ".join(KINDS[k] for k in kinds) if kinds else "no booty"


def _boarding(outcome: Boarding, double: bool) -> str:
    text = f"takes {_kinds(outcome.captain_booty)}"
    if outcome.mate >= 0:
        text += f", {seat_name(outcome.mate)}'s mate gets {KINDS[outcome.mate_booty]}"
    if outcome.pay == 0:
        text += ", pays nothing"
    else:
        text += f", pays {'double, ' if double else ''}{outcome.pay} ducats"
        if outcome.from_supply:
            text += f" ({outcome.from_supply} from the supply)"
    text += " and keeps the card" if outcome.kept else " and discards the card"
    return text


def describe(state: PiratesState, seat: int, action: Any) -> str:
    move = check(state, seat, action)
    who = seat_name(seat)
    if isinstance(move, Assemble):
        mine, target = state.parties[move.party], state.parties[move.onto]
        text = (
            f"{who} places {_party(mine)} on {_party(target)}, forming a party of "
            f"{len(mine) + len(target)} with {pirate_name(mine[0])} as captain"
        )
    elif isinstance(move, Capture):
        party = state.parties[move.party]
        card = state.display[move.space]
        outcome = boarding(state, seat, party, move.space, move.booty, False)
        text = (
            f"{who} captures {card_title(state.card_set, card)} with {_pirates(len(party))}, "
            f"{_boarding(outcome, False)}"
        )
    elif isinstance(move, Mutiny):
        before = state.parties[move.party]
        party = mutineers(before, move.pirate)
        card = state.display[move.space]
        outcome = boarding(state, seat, party, move.space, move.booty, True)
        spot = spot_after_mutiny(state, seat, move.victim)
        spot_text = (
            f"{seat_name(move.victim)} gets the black spot"
            if spot == move.victim
            else f"{who} takes the black spot from {seat_name(move.victim)}"
        )
        text = (
            f"{who} leads a mutiny with {pirate_name(move.pirate)} in {_party(before)}, "
            f"captures {card_title(state.card_set, card)}, {_boarding(outcome, True)}; {spot_text}"
        )
    elif isinstance(move, Ransom):
        source = state.parties[move.source]
        controller = seat_name(source[0] // PIRATES_PER_SEAT)
        short = max(0, RANSOM - state.treasury[seat])
        paid = f"{RANSOM} ducats" + (f" ({short} from the supply)" if short else "")
        text = f"{who} pays {controller} {paid} to ransom {pirate_name(move.pirate)}"
        if move.onto < 0:
            text += ", who stays single"
        elif move.onto == source[0]:
            text += " and puts it back on top of that party as captain"
        else:
            target = next(p for p in state.parties if p[0] == move.onto)
            text += f" and places it on {_party(target)}"
    else:
        text = f"{who} has no possible action and passes"
    after = perform(state, seat, move)
    if after.end:
        text += "; " + _ENDINGS[after.end]
    return text + "."
