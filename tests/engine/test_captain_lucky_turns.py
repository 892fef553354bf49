"""Captain Lucky: sets, turns, dice and the end of the game (K-SET-3, K-TURN, K-END-1..3)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction
from engine.captain_lucky.cards import KINDS, unshuffled_pile
from engine.captain_lucky.state import OVER, PLACE, ROLL, STEAL, LuckyState
from tests.engine.captain_lucky_support import RULES, check_invariants, deck, situation


def sets_of(state: LuckyState, owner: int | None) -> list[tuple[str, str, int]]:
    view = RULES.view(state, None)
    area = view["middle"] if owner is None else view["seats"][owner]["collection"]
    return [(s["id"], s["kind"], s["cards"]) for s in area]


def play(state: LuckyState, seat: int, action: dict[str, Any]) -> tuple[LuckyState, str, dict[int, str]]:
    step = RULES.step(state, seat, action)
    assert step.public_action is None and step.full_text is None
    return step.state, step.text, dict(step.private)


# K-TURN-1 -------------------------------------------------------------------------------


def test_k_turn_1_place_cards_of_one_kind_and_draw_back_up_to_five() -> None:
    """K-TURN-1: 1-5 cards of one kind go to the middle; the hand is filled back up to 5, and
    only the placing seat reads what it drew."""
    state = situation(
        4, hands={0: {"ruby": 3, "pearl": 2}}, middle=[(1, "pearl", 1)], pile=["gold_bar", "ruby"]
    )
    assert RULES.legal_actions(state, 0) == [
        {"type": "place", "kind": "pearl", "count": 1},
        {"type": "place", "kind": "pearl", "count": 2},
        {"type": "place", "kind": "ruby", "count": 1},
        {"type": "place", "kind": "ruby", "count": 2},
        {"type": "place", "kind": "ruby", "count": 3},
    ]
    after, text, private = play(state, 0, {"type": "place", "kind": "ruby", "count": 2})
    assert text == "Red places 2 rubies in the middle (m2: 2 rubies) and draws 2 cards."
    assert private == {
        0: "Red places 2 rubies in the middle (m2: 2 rubies) and draws 2 cards (1 gold bar, 1 ruby)."
    }
    assert after.hands[0] == (0, 1, 2, 2, 0)
    assert sets_of(after, None) == [("m1", "pearl", 1), ("m2", "ruby", 2)]
    assert after.phase == STEAL and RULES.to_act(after) == [0]
    assert len(after.pile) == len(state.pile) - 2


def test_k_turn_1_a_card_must_be_placed_and_only_cards_held() -> None:
    """K-TURN-1: while the hand holds cards the seat places first; it cannot place more than
    it holds, nor 0 or 6 cards, nor numbers spelt otherwise."""
    state = situation(4, hands={0: {"ruby": 1, "pearl": 4}}, middle=[(1, "pearl", 1)])
    with pytest.raises(IllegalAction, match="First place cards"):
        RULES.apply(state, 0, {"type": "steal", "set": "m1"})
    with pytest.raises(IllegalAction, match="You hold 1 ruby, not 2"):
        RULES.apply(state, 0, {"type": "place", "kind": "ruby", "count": 2})
    with pytest.raises(IllegalAction, match="You hold no jade fish, not 1"):
        RULES.apply(state, 0, {"type": "place", "kind": "jade_fish", "count": 1})
    for number in (0, 6, -1):
        with pytest.raises(IllegalAction, match="1 to 5 cards"):
            RULES.apply(state, 0, {"type": "place", "kind": "pearl", "count": number})
    for spelt in ("2", 2.0, True, None):
        with pytest.raises(IllegalAction, match="count must be a whole number"):
            RULES.apply(state, 0, {"type": "place", "kind": "pearl", "count": spelt})
    with pytest.raises(IllegalAction, match="kind must be one of"):
        RULES.apply(state, 0, {"type": "place", "kind": "Pearl", "count": 1})


def test_k_turn_1_draws_only_as_many_as_the_pile_has() -> None:
    """K-TURN-1: the draw takes what the pile has; its last card starts the last round."""
    state = situation(4, hands={1: {"ruby": 5}}, pile=["pearl"], rest="discard", active=1)
    after, text, private = play(state, 1, {"type": "place", "kind": "ruby", "count": 3})
    assert after.hands[1] == (0, 0, 1, 2, 0) and after.pile == ()
    assert text == (
        "Blue places 3 rubies in the middle (m1: 3 rubies) and draws 1 card. "
        "That was the last card of the pile: the game ends after Yellow's turn."
    )
    assert "(1 pearl)" in private[1]
    assert RULES.view(after, None)["last_round"] is True


# K-SET-3 --------------------------------------------------------------------------------


def test_k_set_3_cards_fill_the_incomplete_set_first_then_start_new_ones() -> None:
    """K-SET-3: placing fills the kind's incomplete middle set up to 5; the rest takes the next
    m number; a complete set is never filled further; a filled set keeps its id."""
    state = situation(
        4, hands={0: {"ruby": 5}}, middle=[(1, "pearl", 2), (4, "ruby", 3), (6, "ruby", 5)]
    )._replace(next_middle=9)
    after, text, _ = play(state, 0, {"type": "place", "kind": "ruby", "count": 4})
    assert sets_of(after, None) == [
        ("m1", "pearl", 2), ("m4", "ruby", 5), ("m6", "ruby", 5), ("m9", "ruby", 2)
    ]  # fmt: skip
    assert text.startswith("Red places 4 rubies in the middle (m4: 5 rubies, m9: 2 rubies)")
    assert after.next_middle == 10


def test_k_set_3_a_stolen_sets_id_disappears_and_is_never_reused() -> None:
    """K-SET-3: after m3 is stolen, "steal m3" is refused (never redirected to another set of
    that kind), and the next middle set takes a fresh number."""
    state = situation(
        4, hands={0: {"ruby": 5}, 1: {"ruby": 2, "pearl": 3}},
        middle=[(3, "ruby", 2)], phase=STEAL, dice=[True, True],
    )  # fmt: skip
    after, _, _ = play(state, 0, {"type": "steal", "set": "m3"})
    assert sets_of(after, None) == [] and sets_of(after, 0) == [("p0s1", "ruby", 2)]
    after, _, _ = play(after, 1, {"type": "place", "kind": "ruby", "count": 1})
    assert sets_of(after, None) == [("m4", "ruby", 1)]
    with pytest.raises(IllegalAction, match="There is no set m3 in the middle"):
        RULES.apply(after, 1, {"type": "steal", "set": "m3"})
    for stale in ("m03", "M4", "m-4", "p0s01", "p9s1", "m0", 4):
        with pytest.raises(IllegalAction):
            RULES.apply(after, 1, {"type": "steal", "set": stale})
    assert {"type": "steal", "set": "m4"} in RULES.legal_actions(after, 1)


def test_k_set_3_collected_sets_are_numbered_per_seat() -> None:
    """K-SET-3: a seat's collected sets are p<seat>s1, p<seat>s2, …; a stolen one's id goes
    and the thief's new set takes its own next number."""
    state = situation(
        4, hands={2: {"pearl": 5}}, middle=[(1, "pearl", 4)],
        collections={0: [(1, "ruby", 2)], 2: [(1, "gold_bar", 3)]},
        active=2, phase=STEAL, dice=[True, True],
    )  # fmt: skip
    after, text, _ = play(state, 2, {"type": "steal", "set": "p0s1"})
    assert text.startswith("Green steals p0s1 (2 rubies) from Red and rolls: ☠ ☠ — all heads;")
    assert sets_of(after, 2) == [("p2s1", "gold_bar", 3), ("p2s2", "ruby", 2)]
    assert sets_of(after, 0) == [] and after.next_set[0] == 2


# K-TURN-2 / K-TURN-3 ------------------------------------------------------------------


def test_k_turn_2_steal_targets_and_one_die_per_card() -> None:
    """K-TURN-2: any middle set (complete ones too) or another player's incomplete set; never
    one's own collection or a complete collected set; as many dice as the set has cards."""
    state = situation(
        4, middle=[(1, "ruby", 5), (2, "pearl", 1)],
        collections={0: [(1, "gold_bar", 2)], 1: [(1, "jade_fish", 5), (2, "pearl", 3)], 3: [(1, "ruby", 4)]},
        phase=STEAL, dice=[False, True, True, True, True],
    )  # fmt: skip
    assert [a["set"] for a in RULES.legal_actions(state, 0)] == ["m1", "m2", "p1s2", "p3s1"]
    with pytest.raises(IllegalAction, match="your own collection"):
        RULES.apply(state, 0, {"type": "steal", "set": "p0s1"})
    with pytest.raises(IllegalAction, match="complete set of 5 and cannot be stolen"):
        RULES.apply(state, 0, {"type": "steal", "set": "p1s1"})
    with pytest.raises(IllegalAction, match="no seat 5"):
        RULES.apply(state, 0, {"type": "steal", "set": "p5s1"})
    with pytest.raises(IllegalAction, match="You have placed"):
        RULES.apply(state, 0, {"type": "place", "kind": "silver_coin", "count": 1})
    after, text, _ = play(state, 0, {"type": "steal", "set": "m1"})
    assert text == "Red steals m1 (5 rubies) and rolls: blank ☠ ☠ ☠ ☠ — 1 blank."
    assert RULES.view(after, None)["steal"] == {
        "seat": 0, "set": "m1", "owner": None, "kind": "ruby", "cards": 5,
        "dice": ["blank", "head", "head", "head", "head"], "blanks": 1,
    }  # fmt: skip
    assert after.phase == ROLL and RULES.to_act(after) == [0]


def test_k_turn_3_all_heads_takes_the_set_into_the_collection() -> None:
    """K-TURN-3: on all heads the set joins the collection: the kind's incomplete set is filled
    to 5 first, the rest forms a new set; the turn then ends."""
    state = situation(
        4, hands={0: {"ruby": 1, "pearl": 4}}, middle=[(1, "ruby", 4)],
        collections={0: [(1, "ruby", 3)], 1: [(1, "ruby", 2)]}, phase=STEAL, dice=[True] * 4,
    )  # fmt: skip
    after, text, private = play(state, 0, {"type": "steal", "set": "m1"})
    assert text == (
        "Red steals m1 (4 rubies) and rolls: ☠ ☠ ☠ ☠ — all heads; "
        "Red takes the set (p0s1: 5 rubies, p0s2: 2 rubies)."
    )
    assert private == {}
    assert sets_of(after, 0) == [("p0s1", "ruby", 5), ("p0s2", "ruby", 2)]
    assert sets_of(after, None) == []
    assert after.active == 1 and after.phase == PLACE
    assert RULES.view(after, None)["last_roll"]["won"] is True


# K-TURN-4 / K-TURN-5 ------------------------------------------------------------------


def test_k_turn_4_reroll_discards_a_matching_card_per_blank_and_rethrows_only_blanks() -> None:
    """K-TURN-4: one card of the target's kind per blank goes to the public discard pile and
    only the blank dice are thrown again, heads stay; it can repeat."""
    state = situation(
        4, hands={0: {"ruby": 4, "pearl": 1}}, middle=[(2, "ruby", 3)], phase=STEAL,
        dice=[True, False, False, False, True, True],
    )  # fmt: skip
    state, text, _ = play(state, 0, {"type": "steal", "set": "m2"})
    assert text == "Red steals m2 (3 rubies) and rolls: ☠ blank blank — 2 blanks."
    assert RULES.legal_actions(state, 0) == [{"type": "reroll"}, {"type": "captain_bonus"}, {"type": "stop"}]
    state, text, _ = play(state, 0, {"type": "reroll"})
    assert text == "Red discards 2 rubies and re-rolls 2 dice: ☠ blank ☠ — 1 blank."
    assert state.hands[0] == (0, 0, 1, 2, 0) and RULES.view(state, 1)["discard"] == ["ruby", "ruby"]
    assert RULES.view(state, None)["last_roll"]["rolled"] == [1, 2]
    state, text, private = play(state, 0, {"type": "reroll"})
    assert text == (
        "Red discards 1 ruby and re-rolls 1 die: ☠ ☠ ☠ — all heads; Red takes the set (p0s1: 3 rubies). "
        "Red draws 3 cards."
    )
    assert private[0].startswith(text[: -len("Red draws 3 cards.")] + "Red draws 3 cards (")
    assert RULES.view(state, None)["discard"] == ["ruby"] * 3 and state.active == 1


def test_k_turn_4_no_reroll_without_the_cards_and_stop_fails_the_steal() -> None:
    """K-TURN-4: a re-roll needs as many matching cards as blanks; stop gives the steal up,
    the set stays, and the turn ends with the draw back up to 5."""
    state = situation(
        4, hands={0: {"ruby": 1, "pearl": 4}}, middle=[(1, "ruby", 2)], captain_used=[0],
        phase=STEAL, dice=[False, False],
    )  # fmt: skip
    state, _, _ = play(state, 0, {"type": "steal", "set": "m1"})
    assert RULES.legal_actions(state, 0) == [{"type": "stop"}]
    with pytest.raises(IllegalAction, match="costs 2 rubies; you hold 1"):
        RULES.apply(state, 0, {"type": "reroll"})
    with pytest.raises(IllegalAction, match="once per game"):
        RULES.apply(state, 0, {"type": "captain_bonus"})
    with pytest.raises(IllegalAction, match="steal is under way"):
        RULES.apply(state, 0, {"type": "steal", "set": "m1"})
    after, text, _ = play(state, 0, {"type": "stop"})
    assert text == "Red stops: the steal of m1 fails."
    assert sets_of(after, None) == [("m1", "ruby", 2)] and after.active == 1 and after.phase == PLACE
    for action in ({"type": "reroll"}, {"type": "stop"}, {"type": "captain_bonus"}):
        with pytest.raises(IllegalAction):
            RULES.apply(after, 1, action)


def test_k_turn_5_captain_bonus_rethrows_blanks_free_once_per_game() -> None:
    """K-TURN-5: on a roll with a blank the captain bonus throws the blanks again without a
    discard, turns the captain card over (its +1 point is gone) and the steal goes on."""
    state = situation(
        4, hands={0: {"pearl": 5}}, collections={1: [(1, "ruby", 3)]}, phase=STEAL,
        dice=[False, False, False, True, False, True, True],
    )  # fmt: skip
    state, _, _ = play(state, 0, {"type": "steal", "set": "p1s1"})
    assert RULES.legal_actions(state, 0) == [{"type": "captain_bonus"}, {"type": "stop"}]
    assert RULES.view(state, None)["seats"][0]["points"] == 1
    state, text, _ = play(state, 0, {"type": "captain_bonus"})
    assert text == "Red turns the captain card over and re-rolls 3 dice for free: ☠ blank ☠ — 1 blank."
    view = RULES.view(state, None)
    assert view["seats"][0]["captain_bonus_used"] and view["seats"][0]["points"] == 0
    assert state.hands[0] == (0, 0, 5, 0, 0) and state.discard == ()
    assert view["last_roll"]["by"] == "captain_bonus" and state.phase == ROLL
    assert RULES.legal_actions(state, 0) == [{"type": "stop"}]
    with pytest.raises(IllegalAction, match="once per game"):
        RULES.apply(state, 0, {"type": "captain_bonus"})


def test_k_turn_5_captain_bonus_after_paid_rerolls_can_win() -> None:
    """K-TURN-5: the bonus also comes after paid re-rolls, and all heads then takes the set."""
    state = situation(
        4, hands={0: {"gold_bar": 5}}, middle=[(1, "gold_bar", 2)], phase=STEAL,
        dice=[False, False, False, True, True],
    )  # fmt: skip
    state, _, _ = play(state, 0, {"type": "steal", "set": "m1"})
    state, _, _ = play(state, 0, {"type": "reroll"})
    state, text, _ = play(state, 0, {"type": "captain_bonus"})
    assert "— all heads; Red takes the set (p0s1: 2 gold bars). Red draws 2 cards." in text
    assert state.captain_used[0] and state.active == 1


# K-TURN-6 -------------------------------------------------------------------------------


def test_k_turn_6_after_the_steal_the_hand_is_filled_and_the_next_seat_places() -> None:
    """K-TURN-6: won or failed, the stealing seat draws back up to 5; the next seat's turn
    begins with placing; seat order wraps around."""
    state = situation(
        3, hands={2: {"ruby": 3, "pearl": 2}}, middle=[(1, "ruby", 1)], active=2, phase=STEAL,
        dice=[False, True],
    )  # fmt: skip
    state, _, _ = play(state, 2, {"type": "steal", "set": "m1"})
    state, text, private = play(state, 2, {"type": "reroll"})
    assert text.endswith("Green draws 1 card.") and private[2].endswith(").")
    assert sum(state.hands[2]) == 5 and state.active == 0 and state.phase == PLACE


# K-TURN-7 -------------------------------------------------------------------------------


def test_k_turn_7_dice_follow_the_generator_exactly() -> None:
    """K-TURN-7: random.Random(seed) shuffles first, then each die is one randrange(6), 0-2 a
    head; a first roll throws every die in die order, a re-roll only the blanks in die order."""
    top = ["ruby"] * 5 + ["pearl"] * 5 + ["ruby", "ruby", "jade_fish"]
    found = 0
    for seed in range(40):
        state = RULES.new_game(2, seed, {"deck": deck(2, *top)})
        expected = random.Random(seed)
        expected.shuffle(unshuffled_pile(2))  # the shuffle the deck option replaced
        assert state.rng_state == expected.getstate()
        state = RULES.apply(state, 0, {"type": "place", "kind": "ruby", "count": 1})
        step = RULES.step(state, 0, {"type": "steal", "set": "m1"})
        dice = [expected.randrange(6) < 3 for _ in range(3)]
        assert step.state.rng_state == expected.getstate()
        faces = " ".join("☠" if head else "blank" for head in dice)
        assert f"rolls: {faces} — " in step.text
        state = step.state
        if all(dice) or state.hands[0][KINDS.index("ruby")] < dice.count(False):
            continue
        found += 1
        blanks = [i for i, head in enumerate(dice) if not head]
        step = RULES.step(state, 0, {"type": "reroll"})
        for i in blanks:
            dice[i] = expected.randrange(6) < 3
        assert step.state.rng_state == expected.getstate()
        faces = " ".join("☠" if head else "blank" for head in dice)
        assert f"re-rolls {len(blanks)} {'die' if len(blanks) == 1 else 'dice'}: {faces} — " in step.text
        assert RULES.view(step.state, None)["last_roll"]["rolled"] == blanks
    assert found >= 10


def test_k_turn_7_str_and_int_seeds_seed_the_generator_as_given() -> None:
    """K-TURN-7: the generator is random.Random(seed) of the game's seed, int or str alike."""
    for seed in (99, "ninety-nine"):
        rng = random.Random(seed)
        pile = unshuffled_pile(4)
        rng.shuffle(pile)
        state = RULES.new_game(4, seed)
        assert state.rng_state == rng.getstate()


def test_k_comp_2_each_die_is_a_head_half_the_time() -> None:
    """K-COMP-2: three head faces of six: over many seeded steals about half the dice are
    heads, and a one-card steal succeeds about half the time."""
    heads = wins = 0
    for seed in range(400):
        state = situation(2, hands={0: {"pearl": 5}}, middle=[(1, "ruby", 1)], phase=STEAL)
        state = state._replace(rng_state=random.Random(seed).getstate())
        after = RULES.apply(state, 0, {"type": "steal", "set": "m1"})
        roll = after.last_roll
        assert roll is not None and len(roll.dice) == 1
        heads += roll.dice.count(True)
        wins += roll.dice == (True,)
    assert 160 < heads < 240 and heads == wins


# K-END-1 --------------------------------------------------------------------------------


def finish_turn(state: LuckyState, seat: int) -> LuckyState:
    """Play ``seat``'s turn out: place one card if it can, steal the first target, stop."""
    if state.phase == PLACE:
        place = RULES.legal_actions(state, seat)[0]
        state = RULES.apply(state, seat, place)
    if state.phase == STEAL:
        state = RULES.apply(state, seat, RULES.legal_actions(state, seat)[0])
    if state.phase == ROLL:
        state = RULES.apply(state, seat, {"type": "stop"})
    return state


def test_k_end_1_the_round_is_finished_after_the_last_card() -> None:
    """K-END-1: Blue draws the last card while placing, still steals, and the game ends at the
    end of Yellow's turn, so every seat has had the same number of turns."""
    state = situation(
        4, hands={1: {"ruby": 5}}, middle=[(1, "pearl", 3)], pile=["jade_fish"], rest="discard",
        active=1, dice=[False] * 12,
    )  # fmt: skip
    state = RULES.apply(state, 1, {"type": "place", "kind": "ruby", "count": 1})
    assert state.pile == () and state.phase == STEAL and state.active == 1
    state = finish_turn(state, 1)
    assert state.active == 2
    state = finish_turn(state, 2)
    assert state.active == 3 and not RULES.is_finished(state)
    state = finish_turn(state, 3)
    assert RULES.is_finished(state) and RULES.to_act(state) == [] and state.phase == OVER
    assert all(RULES.legal_actions(state, s) == [] for s in range(4))
    with pytest.raises(IllegalAction, match="The game is over"):
        RULES.apply(state, 0, {"type": "stop"})


def test_k_end_1_the_last_seat_drawing_the_last_card_ends_the_game_at_once() -> None:
    """K-END-1: when the round's last seat draws the last card after its steal, the game ends
    at the end of that turn."""
    state = situation(
        3, hands={2: {"ruby": 5}}, middle=[(1, "ruby", 1)], pile=["pearl"], rest="discard",
        active=2, phase=STEAL, dice=[False, True],
    )  # fmt: skip
    state = RULES.apply(state, 2, {"type": "steal", "set": "m1"})
    step = RULES.step(state, 2, {"type": "reroll"})
    assert RULES.is_finished(step.state)
    assert (
        "Green draws 1 card. That was the last card of the pile: the game ends after Green's turn."
        in step.text
    )
    assert step.text.endswith("wins.") or "share the win" in step.text


def test_k_end_1_an_empty_hand_skips_placing_and_no_target_ends_the_turn() -> None:
    """K-END-1: a seat with no cards skips placing and steals; with nothing to steal either,
    its turn passes at once; the log says so."""
    empty: dict[str, int] = {}
    state = situation(
        3, hands={0: {"ruby": 1}, 1: empty, 2: empty}, collections={0: [(1, "pearl", 2)]},
        pile=[], rest="discard", dice=[False],
    )  # fmt: skip
    state, text, _ = play(state, 0, {"type": "place", "kind": "ruby", "count": 1})
    assert text == "Red places 1 ruby in the middle (m1: 1 ruby); the pile is empty."
    state, text, _ = play(state, 0, {"type": "steal", "set": "m1"})
    state, text, _ = play(state, 0, {"type": "stop"})
    assert text == "Red stops: the steal of m1 fails. Blue has no cards and skips placing."
    assert state.active == 1 and state.phase == STEAL
    assert [a["set"] for a in RULES.legal_actions(state, 1)] == ["m1", "p0s1"]
    bare = situation(
        3, hands={0: empty, 1: empty, 2: empty}, middle=[(1, "ruby", 1)], pile=[], rest="discard",
        phase=STEAL, dice=[True],
        collections={0: [(1, "ruby", 4)], 1: [(1, "pearl", 5)], 2: [(1, "gold_bar", 5)]},
    )  # fmt: skip
    check_invariants(bare)
    step = RULES.step(bare, 0, {"type": "steal", "set": "m1"})
    assert step.text.startswith(
        "Red steals m1 (1 ruby) and rolls: ☠ — all heads; Red takes the set (p0s1: 5 rubies). "
        "Blue has no cards and nothing to steal. Green has no cards and nothing to steal. The game ends."
    )
    assert RULES.is_finished(step.state)


# K-END-2 / K-END-3 ----------------------------------------------------------------------


Collections = dict[int, list[tuple[int, str, int]]]


def ended(collections: Collections, used: list[int], players: int = 3) -> LuckyState:
    return situation(
        players, hands={s: {} for s in range(players)}, collections=collections, pile=[], rest="discard",
        captain_used=used, phase=OVER,
    )  # fmt: skip


def test_k_end_2_a_point_per_card_and_one_for_an_unused_captain() -> None:
    """K-END-2: 1 point per collected card, +1 if the captain bonus was not used."""
    state = ended(
        {0: [(1, "ruby", 5), (2, "pearl", 2)], 1: [(1, "gold_bar", 4)], 2: [(3, "jade_fish", 3)]}, [0]
    )
    assert RULES.result(state) == {"scores": [7, 5, 4], "winners": [0]}
    view = RULES.view(state, None)
    assert view["scoring"][0] == {
        "cards": 7, "captain_bonus": 0, "total": 7, "sets_by_size": {"5": 1, "4": 0, "3": 0, "2": 1, "1": 0}
    }  # fmt: skip
    assert view["status"] == "finished" and view["to_act"] == [] and view["active"] is None


@pytest.mark.parametrize(
    ("collections", "used", "winners", "ending"),
    [
        (
            {0: [(1, "ruby", 5), (2, "pearl", 5)], 1: [(1, "ruby", 5), (2, "pearl", 4), (3, "gold_bar", 1)]},
            [],
            [0],
            "Red and Blue tie on 11 points; Red has more sets of 5 and wins.",
        ),
        (
            {
                0: [(1, "ruby", 5), (2, "pearl", 3), (3, "gold_bar", 2)],
                1: [(1, "ruby", 5), (2, "pearl", 4), (3, "gold_bar", 1)],
            },
            [],
            [1],
            "Red and Blue tie on 11 points; Blue has more sets of 4 and wins.",
        ),
        (
            {0: [(1, "ruby", 4), (2, "pearl", 1)], 1: [(1, "gold_bar", 5)]},
            [],
            [1],
            "Red and Blue tie on 6 points; Blue has more sets of 5 and wins.",
        ),
        (
            {0: [(1, "ruby", 3)], 1: [(1, "pearl", 3)], 2: [(1, "gold_bar", 2), (2, "silver_coin", 2)]},
            [2],
            [0, 1],
            "Red, Blue and Green tie on 4 points; Red and Blue have more sets of 3 and share the win.",
        ),
        (
            {0: [(1, "ruby", 3)], 1: [(1, "pearl", 3)], 2: [(1, "gold_bar", 3)]},
            [],
            [0, 1, 2],
            "Red, Blue and Green tie on 4 points; they have as many sets of each size and share the win.",
        ),
    ],
)
def test_k_end_3_ties_compare_sets_of_5_then_4_and_so_on(
    collections: Collections, used: list[int], winners: list[int], ending: str
) -> None:
    """K-END-3: the tied players compared together: more sets of exactly 5, then 4, …; still
    equal, they share the win; the closing sentence says why."""
    state = ended(collections, used)
    result = RULES.result(state)
    assert result is not None and result["winners"] == winners
    # The closing sentence comes from the step that ends the game; rebuild it from the state.
    from engine.captain_lucky.scoring import ending as closing

    assert closing(state).endswith(ending)


# K-ACT ----------------------------------------------------------------------------------


def test_k_act_actions_are_checked_strictly() -> None:
    """K-ACT: the notation exactly: wrong seats, types, extra or missing keys are refused."""
    state = situation(4, hands={0: {"ruby": 5}}, middle=[(1, "ruby", 1)])
    bad: list[tuple[Any, Any, str]] = [
        (1, {"type": "place", "kind": "ruby", "count": 1}, "It is Red's turn, not Blue's"),
        (4, {"type": "place", "kind": "ruby", "count": 1}, "no seat 4"),
        ("0", {"type": "place", "kind": "ruby", "count": 1}, "no seat '0'"),
        (True, {"type": "place", "kind": "ruby", "count": 1}, "no seat True"),
        (0, ["place"], "JSON object"),
        (0, {"type": "pass"}, "type must be one of: place, steal, reroll, captain_bonus, stop"),
        (0, {"kind": "ruby", "count": 1}, "type must be one of"),
        (0, {"type": "place", "kind": "ruby"}, "A place action needs count"),
        (0, {"type": "place", "kind": "ruby", "count": 1, "x": 1}, "A place action has no x"),
        (0, {"type": "stop", "set": "m1"}, "A stop action has no set"),
        (0, {"type": "reroll"}, "First place cards"),
        (0, {"type": "captain_bonus"}, "First place cards"),
    ]
    for seat, action, message in bad:
        with pytest.raises(IllegalAction, match=message):
            RULES.apply(state, seat, action)
    assert RULES.legal_actions(state, 1) == [] and RULES.legal_actions(state, 7) == []
