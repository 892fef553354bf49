"""K-TURN-7 under the generator's trail (engine/captain_lucky/dice.py): a state that keeps its
generator between rolls plays, dumps, compares and copies exactly as one whose generator
state was read back after every roll (a state rebuilt by ``load`` holds the plain tuple)."""

from __future__ import annotations

import copy
import pickle
import random

from engine.captain_lucky.dice import DiceTrail, plain_state
from engine.captain_lucky.state import LuckyState
from tests.engine.captain_lucky_support import RULES


def _reloaded(state: LuckyState) -> LuckyState:
    return RULES.load(RULES.dump(state))


def test_k_turn_7_trail_plays_as_the_read_back_state_every_branch() -> None:
    """Every action of whole games, applied to the live state (its generator shared along the
    game), to the same state a second time (a second branch rebuilds its generator) and to its
    reloaded copy (plain tuple): the same state and dump each time, over enough rolls that the
    trail starts again from a read-back state several times."""
    rolls = trails = 0
    for seed in range(12):
        bots = random.Random(f"trail:{seed}")
        state = RULES.new_game(2 + seed % 4, f"trail-{seed}")
        while not RULES.is_finished(state):
            seat = RULES.to_act(state)[0]
            actions = RULES.legal_actions(state, seat)
            action = actions[bots.randrange(len(actions))]
            reloaded = _reloaded(state)
            assert type(reloaded.rng_state) is tuple
            live = RULES.apply(state, seat, action)
            again = RULES.apply(state, seat, action)
            plain = RULES.apply(reloaded, seat, action)
            assert live == again == plain
            assert RULES.dump(live) == RULES.dump(again) == RULES.dump(plain)
            assert plain_state(live.rng_state) == plain_state(plain.rng_state)
            rolls += live.last_roll is not None and live.last_roll.action == live.actions
            trails += type(live.rng_state) is DiceTrail
            state = live
    assert rolls > 200 and trails > 200


def test_k_turn_7_a_trail_is_a_value() -> None:
    """A trail equals and hashes as its getstate() tuple; copies and pickles keep its value,
    and rolling on from it never changes what it stands for."""
    rolls = ("steal", "reroll", "captain_bonus")
    state = RULES.new_game(3, "trail-value")
    while True:  # to a state whose generator is a trail and whose seat may roll again
        seat = RULES.to_act(state)[0]
        actions = RULES.legal_actions(state, seat)
        rolling = [a for a in actions if a["type"] in rolls]
        if rolling and type(state.rng_state) is DiceTrail:
            break
        state = RULES.apply(state, seat, rolling[0] if rolling else actions[0])
    before, trail = state, state.rng_state
    expected = random.Random(0)
    expected.setstate(plain_state(_reloaded(before).rng_state))
    value = expected.getstate()
    # Roll on from the trail first: its value must not follow the generator.
    after = RULES.apply(before, seat, rolling[0])
    assert after.rng_state != value
    assert trail == value and value == trail and hash(trail) == hash(value)
    assert copy.deepcopy(before) == before and copy.copy(trail) == value
    unpickled = pickle.loads(pickle.dumps(before))
    assert unpickled == before and RULES.dump(unpickled) == RULES.dump(before)
    assert RULES.apply(unpickled, seat, rolling[0]) == after
