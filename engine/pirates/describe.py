"""One sentence per action for the game log, in the game's words, told from the state
before the action ("Red captures the Brig Mermaid with 3 pirates, takes rum and keeps the
card.").

The sentence is made from the move as ``check`` read it, the states before and after, and
the boarding outcome ``perform_boarding`` computed: nothing is validated or performed twice.
"""

from __future__ import annotations

from engine.base import seat_name
from engine.pirates.actions import Assemble, Capture, Move, Mutiny, Ransom, card_title
from engine.pirates.cards import KINDS
from engine.pirates.play import Boarding
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


def describe(
    before: PiratesState, seat: int, move: Move, after: PiratesState, outcome: Boarding | None
) -> str:
    """The sentence for ``move`` (validated) of ``seat``; ``outcome`` is the boarding of a
    capture or mutiny, ``None`` for other moves."""
    who = seat_name(seat)
    if isinstance(move, Assemble):
        mine, target = before.parties[move.party], before.parties[move.onto]
        text = (
            f"{who} places {_party(mine)} on {_party(target)}, forming a party of "
            f"{len(mine) + len(target)} with {pirate_name(mine[0])} as captain"
        )
    elif isinstance(move, Capture):
        assert outcome is not None
        party = before.parties[move.party]
        text = (
            f"{who} captures {card_title(before.card_set, outcome.card)} with {_pirates(len(party))}, "
            f"{_boarding(outcome, False)}"
        )
    elif isinstance(move, Mutiny):
        assert outcome is not None
        party = before.parties[move.party]
        spot_text = (
            f"{seat_name(move.victim)} gets the black spot"
            if after.black_spot == move.victim
            else f"{who} takes the black spot from {seat_name(move.victim)}"
        )
        text = (
            f"{who} leads a mutiny with {pirate_name(move.pirate)} in {_party(party)}, "
            f"captures {card_title(before.card_set, outcome.card)}, {_boarding(outcome, True)}; {spot_text}"
        )
    elif isinstance(move, Ransom):
        source = before.parties[move.source]
        controller = seat_name(source[0] // PIRATES_PER_SEAT)
        short = max(0, RANSOM - before.treasury[seat])
        paid = f"{RANSOM} ducats" + (f" ({short} from the supply)" if short else "")
        text = f"{who} pays {controller} {paid} to ransom {pirate_name(move.pirate)}"
        if move.onto < 0:
            text += ", who stays single"
        elif move.onto == source[0]:
            text += " and puts it back on top of that party as captain"
        else:
            target = next(p for p in before.parties if p[0] == move.onto)
            text += f" and places it on {_party(target)}"
    else:
        text = f"{who} has no possible action and passes"
    if after.end:
        text += "; " + _ENDINGS[after.end]
    return text + "."
