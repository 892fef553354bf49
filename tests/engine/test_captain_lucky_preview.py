"""Captain Lucky's ``Rules.preview``: every legal move says what it will do before it is made,
in the game's words, and what it says holds once the engine has made it; what the dice or the
pile will decide is named, never foretold. That a preview reads no secret (the generator, the
pile's order, the other hands: K-END-4) and draws nothing is checked for every rule set by the
conformance suite (tests/engine/conformance.py)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

import engine
from engine.captain_lucky.preview import Forecast, counters_of, forecast
from engine.captain_lucky.scoring import points
from engine.captain_lucky.state import OVER, ROLL, LuckyState

RULES = engine.get_rules("captain-lucky")
# (players, seed) of the playouts: every player count, a few seeds.
PLAYOUTS = [(2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (3, 6), (2, 7)]
MAX_ACTIONS = 2_000
STEAL_SAYS = re.compile(r"Then roll \d dic?e?, one per card\. All pirate heads \(1 in \d+\)")


def _positions(players: int, seed: int) -> list[LuckyState]:
    """Every position of a seeded random playout, to its end."""
    rng = random.Random(seed)
    state = RULES.new_game(players, seed)
    found = [state]
    for _ in range(MAX_ACTIONS):
        if RULES.is_finished(state):
            return found
        seat = RULES.to_act(state)[0]
        state = RULES.apply(state, seat, rng.choice(RULES.legal_actions(state, seat)))
        found.append(state)
    raise AssertionError("the playout did not end")


def _won(after: LuckyState) -> bool:
    return after.last_roll is not None and False not in after.last_roll.dice and after.phase != ROLL


def _check(state: LuckyState, seat: int, action: dict[str, Any], said: Forecast) -> None:
    """The forecast's claims against the engine's own move (whose dice the preview never saw)."""
    step = RULES.step(state, seat, action)
    after = step.state
    before_points = points(state, seat)
    kind = action["type"]
    if kind == "place":
        # K-TURN-1, K-SET-3: the sets filled or started, the draw back up to five.
        assert f"({said.middle_after})" in step.text, (said.text, step.text)
        assert said.hand_after == sum(after.hands[seat]) and said.pile_after == len(after.pile)
        if len(after.pile) < len(state.pile):
            assert f"pile {len(state.pile)} → {len(after.pile)}" in said.text
        if state.pile and not after.pile:
            assert "That is the last card" in said.text
        return
    if kind in ("steal", "reroll", "captain_bonus"):
        if kind == "captain_bonus":
            # K-TURN-5 and K-END-2: the bonus costs its +1 at once.
            assert after.captain_used[seat] and said.points_now == before_points - 1
            assert f"{before_points} → {before_points - 1}" in said.text
        if kind == "reroll":
            # K-TURN-4: one card of the kind per blank die, out of the game.
            assert state.steal is not None
            assert len(after.discard) - len(state.discard) == state.steal.dice.count(False)
        if _won(after):
            # K-TURN-3: the set joins the collection as said; the points as said.
            assert f"takes the set ({said.collection_if_won})" in step.text, (said.text, step.text)
            assert points(after, seat) == said.points_if_won
            if said.loser is not None:
                assert points(after, said.loser) == said.loser_points_if_won
            assert f"→ {said.points_if_won}" in said.text
            if said.game_ends:
                assert after.phase == OVER
        else:
            assert after.phase == ROLL
            expected = said.points_now if said.points_now is not None else before_points
            assert points(after, seat) == expected
        return
    assert kind == "stop"
    # K-TURN-4, K-TURN-6, K-END-1: the steal fails, the draw back up, the end if it comes.
    assert points(after, seat) == before_points == said.points_now
    if after.phase == OVER:
        assert said.game_ends and said.pile_after == 0
    else:
        assert not said.game_ends
        assert said.hand_after == sum(after.hands[seat]) and said.pile_after == len(after.pile)


@pytest.mark.parametrize(("players", "seed"), PLAYOUTS)
def test_every_preview_holds_after_the_move(
    players: int, seed: int
) -> None:
    seen: set[str] = set()
    for state in _positions(players, seed):
        if RULES.is_finished(state):
            continue
        seat = RULES.to_act(state)[0]
        view = RULES.view(state, seat)
        for action in RULES.legal_actions(state, seat):
            text = RULES.preview(state, seat, action)
            said = forecast(action, view, seat=seat, counters=counters_of(view))
            assert text and text == said.text, action
            _check(state, seat, action, said)
            seen.add(action["type"])
    assert {"place", "steal", "stop"} <= seen


def test_previews_name_what_the_dice_decide_and_never_foretell_it() -> None:
    """A steal's preview says "Then roll n dice" with the odds of the public dice (K-COMP-2)
    and what an all-heads roll brings; it never says which faces will come up."""
    for state in _positions(3, 11):
        if RULES.is_finished(state):
            continue
        seat = RULES.to_act(state)[0]
        for action in RULES.legal_actions(state, seat):
            text = RULES.preview(state, seat, action) or ""
            if action["type"] == "steal":
                assert STEAL_SAYS.search(text), text
            if action["type"] in ("reroll", "captain_bonus"):
                assert re.search(r"Then roll: all heads \(1 in \d+\)", text), text
            assert "☠" not in text  # no faces: the dice are not rolled yet
            if action["type"] == "place":
                # The cards drawn are unknown: how many, never which.
                assert "unseen" in text or "draw nothing" in text or "stays at 5" in text, text
