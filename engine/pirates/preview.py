"""What a Pirates move will do, said before it is made (``Rules.preview``): what it costs,
the ducats afterwards, the card kept or discarded, the booty and the black spot.

The numbers come from the engine's own arithmetic (``engine.pirates.play``), run on the
position the player sees: Pirates hides nothing but the deck's order and the generator, and a
preview reads neither (a capture that empties the display refills it from the deck, which the
preview does not mention; ``perform_boarding`` stops before the refill).
"""

from __future__ import annotations

from typing import Any

from engine.base import seat_name
from engine.pirates import play
from engine.pirates.actions import Capture, Mutiny, Ransom, check
from engine.pirates.cards import KINDS
from engine.pirates.describe import describe
from engine.pirates.state import PiratesState


def _ducats(n: int) -> str:
    return f"{n} ducat{'s' if n != 1 else ''}"


def preview(state: PiratesState, seat: int, action: dict[str, Any]) -> str:
    """One or two sentences for the player about to make ``action``; raises
    ``IllegalAction`` for an action ``step`` refuses."""
    move = check(state, seat, action)
    have = state.treasury[seat]
    if isinstance(move, Capture | Mutiny):
        after, outcome = play.perform_boarding(state, seat, move)
        card_ducats = state.card_set.ducats[outcome.card]
        parts = []
        if outcome.pay == 0:
            parts.append(f"Costs nothing; the card brings {_ducats(card_ducats)}")
        else:
            double = " (double, for a mutiny)" if isinstance(move, Mutiny) else ""
            parts.append(f"Costs {_ducats(outcome.pay)}{double}; the card brings {_ducats(card_ducats)}")
        if outcome.kept:
            parts.append(f"you keep the card: ducats {have} → {after.treasury[seat]}")
        else:
            parts.append(
                f"you cannot pay it all, so you discard the card and lose every ducat: {have} → 0"
            )
        booty = " and ".join(KINDS[k] for k in outcome.captain_booty) or "no booty"
        parts.append(f"you take {booty}")
        if outcome.mate >= 0:
            parts.append(f"{seat_name(outcome.mate)}'s mate gets {KINDS[outcome.mate_booty]}")
        if isinstance(move, Mutiny):
            if after.black_spot == move.victim:
                parts.append(f"{seat_name(move.victim)} gets the black spot (−10 at the end)")
            else:
                parts.append(f"you take the black spot from {seat_name(move.victim)}")
        return "; ".join(parts) + "."
    if isinstance(move, Ransom):
        after = play.perform(state, seat, move)
        return f"Costs 5 ducats: ducats {have} → {after.treasury[seat]}."
    # Assembling and passing draw nothing: the log sentence says it all.
    return describe(state, seat, move, play.perform(state, seat, move), None)
