"""Libertalia's ``Rules.preview``: every legal move says what it will do before it is made, in
the game's words (character, den, booty, doubloons), and its claims hold when the engine carries
the move out. That a preview reads no secret (another seat's hand, graveyard or Sunrise choice,
L-SUN-1, L-ZONE-1, L-CHAR-22; the generator of the Spanish Spy's draw, L-RNG-1) and draws
nothing is checked for every rule set by the conformance suite (tests/engine/conformance.py);
here, a later chooser's Sunrise previews are the same whatever the first seat chose."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import get_rules
from engine.libertalia import day, dusk, flow, night
from engine.libertalia.actions import check
from engine.libertalia.preview import Claim, forecast
from engine.libertalia.state import LibertaliaState
from engine.libertalia.working_copy import Log, Table
from tests.web.libertalia_support import DEAL3, PICKS3

RULES = get_rules("libertalia")


def _immediate(state: LibertaliaState, seat: int, action: dict[str, Any]) -> Table:
    """The engine's own handler for the decision, run alone: the outcome the preview speaks of
    (what follows, the rest of the Day or Dusk, is other characters' turns)."""
    move = check(state, seat, action)
    t, log = Table(state), Log()
    if move.type == "play":
        flow.choose(t, log, seat, move.rank)
    elif move.type == "take":
        dusk.take(t, log, seat, move)
    elif move.type == "saber":
        dusk.saber(t, log, seat, move)
    elif move.type == "waitress":
        night.answer_waitress(t, log, seat, move)  # the rest of this seat's Night follows in it
    else:
        day.ANSWERS[move.type](t, log, seat, move)
    return t


def _actual(t: Table, claim: Claim) -> Any:
    what = claim[0]
    if what == "doubloons":
        return t.doubloons[claim[1]]
    if what == "booty":
        return t.booty[claim[1]][claim[2]]
    if what == "space":
        return t.spaces[t.day - 1][claim[1]]
    if what == "den":
        return tuple(t.dens[claim[1]])
    if what == "graveyard_count":
        return len(t.graves[claim[1]])
    if what == "hand_count":
        return len(t.hands[claim[1]])
    if what == "ship":
        return tuple(t.ship)
    if what == "pick":
        return t.picks[claim[1]]
    raise AssertionError(f"unknown claim {claim}")


def _positions(players: int, seed: int, limit: int = 1000) -> list[LibertaliaState]:
    """Positions of one seeded random playout (every legal action equally likely)."""
    rng = random.Random(seed)
    state = RULES.new_game(players, seed)
    found = [state]
    for _ in range(limit):
        acting = RULES.to_act(state)
        if not acting:
            break
        seat = rng.choice(acting)
        state = RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))
        found.append(state)
    return found


def _scripted() -> list[LibertaliaState]:
    """The fixed deal of the table tests, whose picks reach every kind of decision of
    campaign 1 (each other decision answered by its first choice)."""
    state = RULES.new_game(3, 7, DEAL3)
    found = [state]
    while state.campaign == 1 and RULES.to_act(state):
        seat = RULES.to_act(state)[0]
        if state.phase == "sunrise":
            action: dict[str, Any] = {"type": "play", "rank": PICKS3[state.day][seat]}
        else:
            action = RULES.legal_actions(state, seat)[0]
        state = RULES.apply(state, seat, action)
        found.append(state)
    return found


PLAYOUTS = [(2, 11), (3, 12), (4, 13), (5, 14), (6, 15), (3, 0)]


def _positions_of(players: int, seed: int) -> list[LibertaliaState]:
    return _scripted() if seed == 0 else _positions(players, seed)


@pytest.mark.parametrize(("players", "seed"), PLAYOUTS)
def test_every_libertalia_preview_holds(
    players: int, seed: int
) -> None:
    """L-DEC-3, L-NIGHT-3, L-SUN-1: every decision of a playout; the previews' totals (doubloons,
    booty, dens, hand, the ship after a Parrot) are the engine's."""
    kinds: set[str] = set()
    for state in _positions_of(players, seed):
        for seat in RULES.to_act(state):
            for action in RULES.legal_actions(state, seat):
                found = forecast(state, seat, action)
                assert found is not None and found.text, action
                assert RULES.preview(state, seat, action) == found.text
                assert found.claims, (action, found.text)
                after = _immediate(state, seat, action)
                for claim, value in found.claims.items():
                    assert _actual(after, claim) == value, (action, claim, found.text)
                # The totals the text names are the claimed ones.
                for claim, value in found.claims.items():
                    if claim[0] == "doubloons":
                        assert f"→ {value}" in found.text or f"stay {value}" in found.text, found.text
                    if claim[0] == "hand_count":
                        assert f"{value} card" in found.text, found.text
                kinds.add(str(action["type"]))
                # Not stepped through the engine: the full move still applies.
                RULES.apply(state, seat, action)
    assert {"play", "take"} <= kinds


def test_libertalia_previews_cover_every_decision() -> None:
    """L-DEC-3, L-NIGHT-3: the playouts above reach every kind of decision of the game, so
    each kind's preview was held against the engine."""
    kinds: set[str] = set()
    for players, seed in PLAYOUTS:
        for state in _positions_of(players, seed):
            for seat in RULES.to_act(state):
                kinds.update(str(a["type"]) for a in RULES.legal_actions(state, seat))
    assert kinds == {
        "play", "parrot", "recruit", "revive", "keep", "gunner", "sell", "take", "saber", "waitress"
    }


def test_sunrise_preview_names_effect_and_what_is_certain() -> None:
    """L-SUN-1, L-CHAR-29: a Captain chosen at Sunrise: its Day and End effects with the figures
    of now, today's day-space, and the hand left; nothing about anyone else's choice."""
    state = RULES.new_game(3, 5, {k: DEAL3[k] for k in ("colours", "ranks", "layouts")})
    state = state._replace(hands=tuple((*h, 29) for h in state.hands))
    text = RULES.preview(state, 0, {"type": "play", "rank": 4}) or ""
    assert text.startswith("You choose the Recruiter (4), influence 5, in secret")
    assert "Day: you take a character of your den back into your hand (your den holds 0 now)." in text
    assert "Dusk: takes 1 token of day-space 1 (a Spanish officer and 2 treasure maps)" in text
    assert "Your hand keeps 9 cards." in text
    captain = RULES.preview(state, 0, {"type": "play", "rank": 29}) or ""
    assert "Day: gain 3." in captain
    assert "End of campaign, if still in your den: lose 3 per cursed relic" in captain
    # A later chooser's preview is the same whatever the first one chose.
    first = RULES.apply(state, 0, {"type": "play", "rank": 14})
    other = RULES.apply(state, 0, {"type": "play", "rank": 18})
    for action in RULES.legal_actions(first, 1):
        assert RULES.preview(first, 1, action) == RULES.preview(other, 1, action)
