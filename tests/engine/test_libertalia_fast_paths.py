"""Libertalia's fast paths say what the full ones say: ``apply`` (no sentences) gives the
state ``step`` gives, ``reveals`` (no sentences) the clause a step's own log marks, the check of
a shared action from ``legal_actions`` the verdict and refusal of the same action as a plain
dict, and a step shares with the state before it every part it did not change."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.bots import choose_action
from engine.errors import IllegalAction
from engine.libertalia import flow
from engine.libertalia.actions import _KNOWN, check
from engine.libertalia.moves import move_of
from engine.libertalia.state import LibertaliaState
from engine.libertalia.working_copy import Log
from tests.engine.libertalia_support import RULES

KINDS = ["chest", "jewel", "goods", "officer", "saber", "map", "relic"]
EVERY_SHARED = [action for action, _ in _KNOWN.values()]


def _games(count: int, salt: str) -> list[list[tuple[LibertaliaState, int, Any]]]:
    """Seeded full games, 2 to 6 players, some with fixed Spanish Spy draws, some with a
    greedy seat (its look-ahead runs ``apply`` on every choice): each as (state, seat,
    action) per move."""
    games = []
    for n in range(count):
        rng = random.Random(f"{salt}:{n}")
        players = 2 + n % 5
        options = {"draws": [rng.choice(KINDS) for _ in range(12)]} if n % 3 == 0 else {}
        state = RULES.new_game(players, f"{salt}:{n}", options)
        moves = []
        while not RULES.is_finished(state):
            seat = RULES.to_act(state)[0]
            kind = "greedy" if n % 4 == 1 and seat == 0 else "random"
            action = choose_action(RULES, state, seat, kind, rng)
            moves.append((state, seat, action))
            state = RULES.apply(state, seat, action)
        games.append(moves)
    return games


def _dump(state: LibertaliaState) -> str:
    return json.dumps(RULES.dump(state), sort_keys=True)


def test_apply_gives_the_state_of_step_and_changes_nothing() -> None:
    """Every move of 25 games, the End of every campaign included: apply composes no
    sentence, yet its state dumps equal to step's; neither changes the state it is given;
    step still says something for every move."""
    moves = [move for game in _games(25, "apply") for move in game]
    assert len(moves) > 2000
    for state, seat, action in moves:
        before = _dump(state)
        applied = RULES.apply(state, seat, action)
        step = RULES.step(state, seat, action)
        assert _dump(applied) == _dump(step.state)
        assert applied == step.state
        assert step.text
        assert _dump(state) == before


def test_reveals_without_sentences_is_the_steps_own_mark() -> None:
    """reveals runs the step on a silent log; a step with every sentence marks the same first
    reveal, for every legal action of every decision of 8 games."""
    checked = 0
    for game in _games(8, "reveals"):
        for state, seat, _ in game:
            for action in RULES.legal_actions(state, seat):
                move = check(state, seat, action)
                log = Log()
                flow.perform(state, seat, move, log)
                answer = RULES.reveals(state, seat, action)
                if move.type in ("play", "parrot", "revive"):
                    assert answer is not None  # final by what the move is
                else:
                    assert answer == log.revealed
                checked += 1
    assert checked > 1000


def _same_verdict(state: LibertaliaState, seat: int, action: Any, legal: list[Any]) -> bool:
    """Checks ``action`` both ways; whether it was accepted."""
    try:
        move = check(state, seat, action)
    except IllegalAction as refusal:
        with pytest.raises(IllegalAction) as plain_refusal:
            check(state, seat, dict(action))
        assert str(plain_refusal.value) == str(refusal)
        assert action not in legal
        return False
    assert action in legal
    assert move == move_of(action) == check(state, seat, dict(action))
    return True


def test_a_shared_action_is_checked_as_the_legal_list_and_the_plain_dict_say() -> None:
    """The check of a shared action accepts it exactly when legal_actions lists it, with the
    move of the action, and refuses it with the very sentence the same action as a plain
    dict (the full check) gets: at the decisions of 40 games, every shared action of the
    decision's type (each rank, kind, target, sale, answer; every eighth Sunrise pick); at
    every 25th moment, every
    shared action at all, for the seat to act and the next."""
    verdicts: dict[str, list[bool]] = {}
    for game in _games(40, "check"):
        for index, (state, to_act, action) in enumerate(game):
            if action["type"] == "play" and index % 8:
                continue  # half the moves of a game: a few suffice
            legal = RULES.legal_actions(state, to_act)
            for shared in EVERY_SHARED:
                if shared["type"] == action["type"]:
                    accepted = _same_verdict(state, to_act, shared, legal)
                    verdicts.setdefault(shared["type"], []).append(accepted)
            if index % 25 == 0:
                for seat in {to_act, (to_act + 1) % state.players}:
                    legal = RULES.legal_actions(state, seat)
                    for shared in EVERY_SHARED:
                        _same_verdict(state, seat, shared, legal)
    # Every kind of decision came up, each both accepted and refused (the Waitress's two
    # answers are always both legal).
    assert set(verdicts) == {a["type"] for a in EVERY_SHARED}
    for kind, seen in verdicts.items():
        assert True in seen and (kind == "waitress" or False in seen), kind


def test_a_step_shares_every_part_it_does_not_change() -> None:
    """Copy on write: a Sunrise pick that is not the last touches only the chooser's hand and
    the picks; a Dusk take that ends no campaign touches no hand, nothing out of the game, and no
    booty but the takers': the parts it leaves are the state's own tuples, not copies."""
    picks = takes = 0
    for state, seat, action in (move for game in _games(3, "share") for move in game):
        after = RULES.apply(state, seat, action)
        if action["type"] == "play" and state.picks.count(0) > 1:
            assert after.hands[seat] != state.hands[seat] and after.picks != state.picks
            for part in ("dens", "graves", "removed", "booty", "spaces", "ship", "doubloons", "bag", "dealt"):
                assert getattr(after, part) is getattr(state, part), part
            assert [after.hands[s] is state.hands[s] for s in range(state.players)] == [
                s != seat for s in range(state.players)
            ]
            picks += 1
        elif action["type"] == "take" and after.fortunes == state.fortunes:  # no End between
            for part in ("hands", "removed", "dealt", "fortunes"):
                assert getattr(after, part) is getattr(state, part), part
            unchanged = [s for s in range(state.players) if after.booty[s] == state.booty[s]]
            assert seat not in unchanged
            assert all(after.booty[s] is state.booty[s] for s in unchanged)
            takes += 1
    assert picks > 20 and takes > 20
