"""Which moves can be taken back, rule set by rule set (``Rules.reveals``): a move that
shows nothing hidden and draws nothing may be, any other is final, with the reason in the
rule set's words. Each test names the rule ids it decides by.

The contract-wide checks (the same answer whatever the secrets, nothing changed, a move it
lets be taken back is no secret and draws nothing) are in the conformance suite; here are
the examples, and over playouts the take-back itself: the log read with the move taken back
replays to the very state before it, generator included.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine import gamelog
from engine.base import ENDS_THE_GAME, FINAL_BY_DEFAULT, Action, Rules
from engine.captain_lucky.state import ROLL
from engine.errors import IllegalAction
from tests.engine import captain_lucky_support as lucky
from tests.engine import libertalia_support as lib
from tests.engine import pirates_classic_support as classic
from tests.engine import pirates_support as pirates
from tests.engine.toy_rules import DoubloonsRules

NINE = ["0.5", "0.4", "0.3", "1.2", "1.3", "2.2", "2.3", "3.2", "3.3"]  # seat 0 captains


def _of(rules: Rules[Any], state: Any, seat: int, kind: str, **match: Any) -> Action:
    """The first legal action of ``kind`` (with the given keys)."""
    for action in rules.legal_actions(state, seat):
        if action["type"] == kind and all(action.get(k) == v for k, v in match.items()):
            return dict(action)
    raise AssertionError(f"no legal {kind} {match} for seat {seat}")


# Pirates (2021) ----------------------------------------------------------------------------


def test_p_asm_1_p_ran_2_assembling_and_ransom_reveal_nothing() -> None:
    """P-ASM-1 moves public pirates, P-RAN-2 public pirates and ducats: both may be taken back."""
    state = pirates.situation(parties=[["1.2", "0.2", "0.3", "0.4", "0.5", "0.Q"]])
    assert pirates.RULES.reveals(state, 0, _of(pirates.RULES, state, 0, "ransom")) is None
    state = pirates.situation()
    assert pirates.RULES.reveals(state, 0, _of(pirates.RULES, state, 0, "assemble")) is None


def test_p_cap_8_a_capture_is_final_only_when_it_empties_the_display() -> None:
    """P-CAP-8: the display refills from the deck only when its last card is boarded; a
    capture that leaves a card face up shows nothing and may be taken back."""
    state = pirates.situation(parties=[NINE], display=["S01", "S02", None, None])
    assert pirates.RULES.reveals(state, 0, _of(pirates.RULES, state, 0, "capture", card="S01")) is None
    state = pirates.situation(parties=[NINE], display=["S01", None, None, None])
    capture = _of(pirates.RULES, state, 0, "capture", card="S01")
    assert pirates.RULES.reveals(state, 0, capture) == "it turns up the next cards of the deck"
    assert pirates.RULES.step(state, 0, capture).state.deck != state.deck  # it did draw


def test_p_cap_9_p_turn_2_a_move_that_ends_the_game_is_final() -> None:
    """P-CAP-9: boarding the 20th card ends the game; P-TURN-2: so does the 1,000th action."""
    ids = list(pirates.ALL_CARDS)
    state = pirates.situation(parties=[NINE], display=[ids[0], None, None, None], discarded=ids[1:])
    capture = _of(pirates.RULES, state, 0, "capture", card=ids[0])
    assert pirates.RULES.reveals(state, 0, capture) == ENDS_THE_GAME
    state = pirates.situation(actions=999)
    assert pirates.RULES.reveals(state, 0, _of(pirates.RULES, state, 0, "assemble")) == ENDS_THE_GAME


# Pirates (classic) -------------------------------------------------------------------------


def test_c_move_1_c_board_4_moving_or_boarding_with_ships_left_face_up_can_be_taken_back() -> None:
    """C-MOVE-1 moves public stacks; C-BOARD-4 turns new ships only when the last of the 3
    face-up ships is boarded, so a boarding that leaves one face up reveals nothing."""
    state = classic.situation(parties=[NINE], display=["C01", "C02", None])
    assert classic.RULES.reveals(state, 0, _of(classic.RULES, state, 0, "move")) is None
    assert classic.RULES.reveals(state, 0, _of(classic.RULES, state, 0, "board", ship="C01")) is None


def test_c_board_4_boarding_the_last_face_up_ship_is_final() -> None:
    """C-BOARD-4: three new ships are turned from the deck: the move is final, and says why."""
    state = classic.situation(parties=[NINE], display=["C01", None, None])
    board = _of(classic.RULES, state, 0, "board", ship="C01")
    assert classic.RULES.reveals(state, 0, board) == "it turns up new ships from the deck"
    assert classic.RULES.step(state, 0, board).state.deck != state.deck


def test_c_board_5_boarding_the_fifteenth_ship_ends_the_game() -> None:
    ids = list(classic.ALL_SHIPS)
    state = classic.situation(parties=[NINE], display=[ids[0], None, None], boarded=ids[1:])
    assert classic.RULES.reveals(state, 0, _of(classic.RULES, state, 0, "board")) == ENDS_THE_GAME


def test_c_mut_2_a_challenge_answer_is_public_and_can_be_taken_back() -> None:
    """C-MUT-2: who is asked and each answer are public; answering draws nothing."""
    state = classic.situation(parties=[["0.5", "1.2", "1.3", "1.4", "0.4"]])
    assert classic.RULES.to_act(state) == [1]
    for kind in ("challenge", "decline"):
        assert classic.RULES.reveals(state, 1, _of(classic.RULES, state, 1, kind)) is None


# Libertalia --------------------------------------------------------------------------------

QUIET = [16, 20, 23, 28]  # no Day effect (Topman, Armorer, Treasurer, First Mate)


def _recruiting(players: int = 4, **kwargs: Any) -> Any:
    """Seat 0's Recruiter asks which of two den cards returns (L-CHAR-4, L-DEC-3)."""
    hands = {0: [4, 20, 23, 28], **{s: QUIET for s in range(1, players)}}
    state = lib.situation(players, hands=kwargs.pop("hands", hands), dens={0: [12, 29]}, **kwargs)
    return state


def test_l_sun_1_a_sunrise_pick_is_final() -> None:
    """L-SUN-1: an accepted choice is final; L-SUN-2: it is revealed with the others."""
    state = _recruiting()
    assert lib.RULES.reveals(state, 0, {"type": "play", "rank": 4}) == "your pick is revealed with the others"


def test_l_char_4_a_recruiter_choice_that_leads_to_no_draw_can_be_taken_back() -> None:
    """L-CHAR-4: the card goes back to the hand publicly, and the engine plays on through
    Dusk and Night (L-DEC-5) to the next Sunrise without a draw: nothing is revealed."""
    state, _ = lib.play(_recruiting(), [4, 20, 20, 20])
    recruit = {"type": "recruit", "rank": 29}
    assert lib.RULES.reveals(state, 0, recruit) is None
    after = lib.RULES.step(state, 0, recruit).state
    assert after.day == 2 and after.rng_state == state.rng_state


def test_l_char_17_a_decision_before_a_spanish_spy_draw_is_final() -> None:
    """L-CHAR-17: the Spy later that Day draws from the bag at random, so the decision that
    lets the engine play on to it is final, however the hidden hands lie."""
    hands = {0: [4, 20, 23, 28], 1: [17, 20, 23, 28], 2: QUIET, 3: QUIET}
    state = _recruiting(hands=hands, booty={1: {"officer": 1}})
    state, _ = lib.play(state, [4, 17, 20, 20])
    recruit = {"type": "recruit", "rank": 29}
    assert lib.RULES.reveals(state, 0, recruit) == "a Spanish Spy draws from the bag"
    assert lib.RULES.step(state, 0, recruit).state.rng_state != state.rng_state
    hidden = state._replace(hands=(state.hands[0], state.hands[2], state.hands[1], state.hands[3]))
    assert lib.RULES.reveals(hidden, 0, recruit) == "a Spanish Spy draws from the bag"


def test_l_end_a_decision_that_ends_a_campaign_is_final() -> None:
    """L-NIGHT-4, L-CAMP-3: after the sixth Night the next campaign is dealt from the seed;
    after the third campaign the game is over."""
    state, _ = lib.play(_recruiting(day=6), [4, 20, 20, 20])
    recruit = {"type": "recruit", "rank": 29}
    assert lib.RULES.reveals(state, 0, recruit) == "it ends the campaign: the next one is dealt"
    state, _ = lib.play(_recruiting(day=6, campaign=3), [4, 20, 20, 20])
    assert lib.RULES.reveals(state, 0, recruit) == ENDS_THE_GAME


def test_l_char_1_l_char_22_a_parrot_card_and_a_surgeon_return_are_final() -> None:
    """L-CHAR-1: the Parrot's card leaves a hidden hand face up; L-CHAR-22: which card the
    Surgeon returns stays the owner's secret (a secret step is never taken back)."""
    state = lib.situation(hands={0: [1, 13, 20, 23], **{s: QUIET for s in (1, 2, 3)}})
    state, _ = lib.play(state, [1, 20, 20, 20])
    assert lib.RULES.reveals(state, 0, _of(lib.RULES, state, 0, "parrot")) == "it shows a card from your hand"
    state = lib.situation(hands={0: [22, 20, 23, 28], **{s: QUIET for s in (1, 2, 3)}}, graves={0: [3, 9]})
    state, _ = lib.play(state, [22, 20, 20, 20])
    revive = _of(lib.RULES, state, 0, "revive")
    assert lib.RULES.reveals(state, 0, revive) == "the card your Surgeon returns stays secret"
    assert lib.RULES.step(state, 0, revive).secret


# Captain Lucky -----------------------------------------------------------------------------


def test_k_turn_1_placing_draws_from_the_pile_and_is_final() -> None:
    state = lucky.situation(4, hands={0: {"ruby": 5}})
    place = {"type": "place", "kind": "ruby", "count": 2}
    assert lucky.RULES.reveals(state, 0, place) == "it draws from the pile"
    state = lucky.situation(4, hands={0: {"ruby": 5}}, pile=[], rest="discard")
    assert lucky.RULES.reveals(state, 0, place) == "it shows cards from your hand"


def test_k_turn_2_k_turn_5_every_roll_is_final() -> None:
    """K-TURN-2, K-TURN-4, K-TURN-5, K-TURN-7: the dice come from the game's generator."""
    state = lucky.situation(4, middle=[(1, "pearl", 2)], phase="steal")
    assert lucky.RULES.reveals(state, 0, {"type": "steal", "set": "m1"}) == "it rolls the dice"
    roll: dict[str, Any] = {"middle": [(1, "pearl", 2)], "phase": ROLL, "steal": ("m1", [True, False])}
    state = lucky.situation(4, hands={0: {"pearl": 2, "ruby": 3}}, **roll)
    for kind in ("reroll", "captain_bonus"):
        assert lucky.RULES.reveals(state, 0, {"type": kind}) == "it rolls the dice"


def test_k_turn_6_a_stop_with_a_full_hand_can_be_taken_back_one_that_draws_cannot() -> None:
    """K-TURN-6: after the steal the player draws up to 5; with 5 in hand nothing is drawn
    and stopping reveals nothing. K-END-1: the last seat stopping on an empty pile ends it."""
    roll: dict[str, Any] = {"middle": [(1, "pearl", 2)], "phase": ROLL, "steal": ("m1", [True, False])}
    stop = {"type": "stop"}
    full = lucky.situation(4, hands={0: {"pearl": 2, "ruby": 3}}, **roll)
    assert lucky.RULES.reveals(full, 0, stop) is None
    short = lucky.situation(4, hands={0: {"pearl": 1, "ruby": 3}}, **roll)
    assert lucky.RULES.reveals(short, 0, stop) == "it draws from the pile"
    last = lucky.situation(4, hands={3: {"pearl": 1, "ruby": 3}}, pile=[], rest="discard", active=3, **roll)
    assert lucky.RULES.reveals(last, 3, stop) == ENDS_THE_GAME


# Every rule set ----------------------------------------------------------------------------


def test_a_rule_set_that_does_not_say_makes_every_move_final() -> None:
    """The contract's default answer (engine/base.py): safe for a new rule set."""

    class Silent(DoubloonsRules):
        reveals = engine.base.Rules.reveals

    rules = Silent()
    state = rules.new_game(2, 1)
    assert rules.reveals(state, 0, {"type": "bid", "coins": 1}) == FINAL_BY_DEFAULT


@pytest.mark.parametrize("rules_id", [r for r, _ in engine.available_rules()])
def test_reveals_refuses_an_illegal_action(rules_id: str) -> None:
    rules = engine.get_rules(rules_id)
    state = rules.new_game(rules.player_counts[0], 1)
    with pytest.raises(IllegalAction):
        rules.reveals(state, rules.to_act(state)[0], {"type": "no-such-move"})


@pytest.mark.parametrize("rules_id", [r for r, _ in engine.available_rules()])
def test_taking_back_a_move_that_reveals_nothing_restores_the_state_before_it(rules_id: str) -> None:
    """Over random games: for every move played that ``reveals`` lets be taken back, the game
    log with that move and its take-back replays to the dump of the state before the move,
    generator included, and play goes on from there as if the move had never been made."""
    rules = engine.get_rules(rules_id)
    players = rules.player_counts[len(rules.player_counts) // 2]
    undone = 0
    for game in range(2):
        seed = f"take-back:{rules_id}:{game}"
        rng = random.Random(seed)
        events: list[dict[str, Any]] = [gamelog.started_event(rules_id, rules.version, players, seed, {})]
        state = rules.new_game(players, seed)
        while not rules.is_finished(state) and len(events) < 400:
            seat = rng.choice(rules.to_act(state))
            action = dict(rng.choice(rules.legal_actions(state, seat)))
            seq = len(events) + 1
            if rules.reveals(state, seat, action) is None:
                taken_back = [
                    *events,
                    gamelog.action_event(seq, seat, action),
                    {"seq": seq + 1, "kind": gamelog.TAKE_BACK, "seat": seat, "payload": {"takes_back": seq}},
                ]
                replayed = gamelog.replay(gamelog.parse(gamelog.write_lines(taken_back)))
                assert rules.dump(replayed) == rules.dump(state)
                undone += 1
                events = taken_back  # the game goes on after the take-back
                seq += 2
            events.append(gamelog.action_event(seq, seat, action))
            state = rules.apply(state, seat, action)
        assert rules.dump(gamelog.replay(gamelog.parse(gamelog.write_lines(events)))) == rules.dump(state)
    assert undone > 0
