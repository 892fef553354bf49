"""The Day (L-DAY, L-ORD) and every Day effect of L-CHAR, with its decisions (L-DEC-3,
L-DEC-5). Seat 0 plays the character under test; the others play characters without a Day
effect (Armorer 20, Treasurer 23, First Mate 28, Topman 16)."""

from __future__ import annotations

from engine.libertalia.characters import KIND_INDEX
from engine.libertalia.state import DAY, DUSK, SUNRISE, LibertaliaState
from tests.engine.libertalia_support import RULES, act, booty_of, play, situation

QUIET = [16, 20, 23, 28]


def _hands(card: int, players: int = 4, extra: tuple[int, ...] = (20, 23, 28)) -> dict[int, list[int]]:
    return {0: [card, *extra], **{s: QUIET for s in range(1, players)}}


def _solo(card: int, players: int = 4, **kwargs: object) -> tuple[LibertaliaState, str]:
    """Seat 0 plays ``card``, the others a quiet character; the state and the last sentence."""
    state = situation(players, hands=_hands(card, players), **kwargs)  # type: ignore[arg-type]
    state, steps = play(state, [card] + [20] * (players - 1))
    return state, steps[-1].text


def test_l_day_1_lowest_first_each_once() -> None:
    """L-DAY-1, L-ORD-2: Day turns go left to right along the ship, each character once."""
    hands = {0: [29, 20, 23, 28], 1: [10, 20, 23, 28], 2: [9, 20, 23, 28], 3: [26, 20, 23, 28]}
    state, steps = play(situation(hands=hands, booty={3: {"goods": 2}}), [29, 10, 9, 26])
    text = steps[-1].text
    order = [
        text.index(f"{who}'s {name}:")
        for who, name in (
            ("Blue", "Carpenter"),
            ("Red", "French Officer"),
            ("Green", "Quartermaster"),
            ("Yellow", "Captain"),
        )
    ]
    assert order == sorted(order)
    assert state.doubloons == (13, 10, 5, 12)


def test_l_day_2_discarded_before_its_turn_gets_none_and_parrot_card_gets_one() -> None:
    """L-DAY-2, L-ZONE-3: the Brute's victim never acts (no Captain +3), takes no booty and
    never enters the den; the Parrot's card has its own turn later."""
    hands = {0: [14, 20, 23, 28], 1: [29, 20, 23, 28], 2: [1, 9, 16, 23, 28], 3: QUIET}
    state, _ = play(situation(hands=hands, space=["goods"] * 4), [14, 29, 1, 20])
    # Blue's Parrot acts first: blue puts the Carpenter in, which then acts (10 → 5).
    assert state.decision == "parrot" and RULES.to_act(state) == [2]
    state = act(state, 2, {"type": "parrot", "rank": 9}).state
    assert state.doubloons == (10, 10, 5, 10), "Captain discarded before its +3"
    assert state.graves[1] == (29,) and 29 not in state.dens[1]
    assert state.phase != DUSK or (1, 29) not in state.ship
    assert state.dens[2] == (9,), "the Parrot's card took its Dusk turn and entered the den"


def test_l_ord_3_highest_at_that_moment() -> None:
    """L-ORD-1, L-ORD-3: with equal ranks the higher influence is higher; "highest" is read
    when the effect acts (the tie-break worked example shows the Brute discarding itself)."""
    hands = {0: [3, 20, 23, 28], 1: [14, 20, 23, 28], 2: [14, 20, 23, 28], 3: [5, 20, 23, 28]}
    # Red Brute (influence 1) and blue Brute (influence 2): blue is highest.
    state, steps = play(situation(hands=hands), [3, 14, 14, 5])
    assert "Blue, owner of the highest character (Brute), pays Yellow 3 doubloons." in steps[-1].text
    assert "Red's Brute discards Blue's Brute from the ship." in steps[-1].text
    assert state.graves[2] == (14,) and state.dens[1] == (14,)


def test_l_char_2_monkey_passes_relics_left() -> None:
    """L-CHAR-2: all cursed relics in your booty move to your left neighbour's booty."""
    state, text = _solo(2, booty={0: {"relic": 3, "chest": 1}})
    assert booty_of(state, 0) == {"chest": 1} and booty_of(state, 3) == {"relic": 3}
    assert "Yellow's Monkey passes 3 cursed relics to Green." in text


def test_l_char_3_beggar_highest_itself_nothing() -> None:
    """L-CHAR-3: if the highest character is this Beggar, nothing happens."""
    hands = {0: [3, 20, 23, 28], 1: [2, 20, 23, 28]}
    state, steps = play(situation(2, hands=hands), [3, 2])
    assert state.doubloons == (10, 10)
    assert "Yellow's Beggar is the highest character on the ship, so nobody pays." in steps[-1].text


def test_l_char_4_recruiter_den_card_back_to_hand() -> None:
    """L-CHAR-4, L-DEC-3: with two den characters the owner chooses; the card goes back to
    the hand publicly. With one it is taken at once (L-DEC-5), with none nothing happens."""
    state = situation(hands=_hands(4), dens={0: [12, 29]})
    state, _ = play(state, [4, 20, 20, 20])
    assert RULES.to_act(state) == [0] and state.decision == "recruit"
    assert RULES.legal_actions(state, 0) == [{"type": "recruit", "rank": 12}, {"type": "recruit", "rank": 29}]
    step = act(state, 0, {"type": "recruit", "rank": 29})
    assert "Yellow's Recruiter takes the Captain (rank 29) from the den back into the hand." in step.text
    assert step.public_action is None and 29 in step.state.hands[0] and 12 in step.state.dens[0]
    state, text = _solo(4, dens={0: [12]})
    assert 12 in state.hands[0] and "takes the Freed Slave (rank 12)" in text
    state, text = _solo(4)
    assert "Yellow's Recruiter finds Yellow's den empty." in text


def test_l_char_5_cabin_boy_takes_nothing_but_enters_den() -> None:
    """L-CHAR-5: no token at Dusk; it still enters the den."""
    state, text = _solo(5, space=["chest"] * 4)
    assert booty_of(state, 0) == {} and 5 in state.dens[0]
    assert "Yellow's Cabin Boy takes no booty." in text


def test_l_char_6_preacher_keeps_one_of_a_kind() -> None:
    """L-CHAR-6, L-ZONE-4: choose a kind you hold, keep one of it, the rest go back to the bag."""
    state = situation(hands=_hands(6), booty={0: {"chest": 1, "goods": 2, "relic": 1}})
    bag = sum(state.bag)
    state, _ = play(state, [6, 20, 20, 20])
    assert RULES.legal_actions(state, 0) == [
        {"type": "keep", "booty": "chest"},
        {"type": "keep", "booty": "goods"},
        {"type": "keep", "booty": "relic"},
    ]
    step = act(state, 0, {"type": "keep", "booty": "goods"})
    assert "Yellow's Preacher keeps goods and discards a chest, goods and a cursed relic." in step.text
    assert step.state.booty[0][KIND_INDEX["goods"]] >= 1 and sum(step.state.bag) >= bag + 3 - 4
    # One kind held: decided at once; fewer than 2 tokens: nothing happens.
    state, text = _solo(6, booty={0: {"map": 3}})
    assert booty_of(state, 0) == {"map": 1} and "keeps a treasure map and discards 2 treasure maps" in text
    state, text = _solo(6, booty={0: {"map": 1}})
    assert booty_of(state, 0) == {"map": 1} and "holds fewer than 2 tokens" in text


def test_l_char_10_french_officer_threshold() -> None:
    """L-CHAR-10: gain 5 with fewer than 9 doubloons; 9 or more gains nothing."""
    state, _ = _solo(10, doubloons=[8, 10, 10, 10])
    assert state.doubloons[0] == 13
    state, text = _solo(10, doubloons=[9, 10, 10, 10])
    assert state.doubloons[0] == 9 and "holds 9 doubloons or more" in text


def test_l_char_11_voodoo_witch_counts_the_graveyard() -> None:
    """L-CHAR-11: 2 per character now in your graveyard."""
    state, _ = _solo(11, graves={0: [1, 2, 3]})
    assert state.doubloons[0] == 16


def test_l_char_15_gunner_chooses_any_den_own_included() -> None:
    """L-CHAR-15, L-DEC-3: pay 3, then discard a character from any den, the own included."""
    state = situation(hands=_hands(15), dens={0: [7], 2: [12, 28]})
    state, steps = play(state, [15, 20, 20, 20])
    assert state.doubloons[0] == 7 and state.decision == "gunner"
    assert RULES.legal_actions(state, 0) == [
        {"type": "gunner", "target": "0.7"},
        {"type": "gunner", "target": "2.12"},
        {"type": "gunner", "target": "2.28"},
    ]
    assert "Yellow must choose a character in a den to discard." in steps[-1].text
    state = act(state, 0, {"type": "gunner", "target": "2.28"}).state
    assert state.graves[2] == (28,) and 28 not in state.dens[2]
    # Only the own den holds characters: the Gunner must hit it (decided at once).
    state, text = _solo(15, dens={0: [7]})
    assert state.graves[0] == (7,) and "Yellow's Gunner discards Yellow's Barkeep" in text


def test_l_zone_6_impossible_parts_skipped_rest_happens() -> None:
    """L-ZONE-6, L-CHAR-15: with every den empty the Gunner still pays."""
    state, text = _solo(15)
    assert state.doubloons[0] == 7 and "Every den is empty, so nothing is discarded." in text


def test_l_char_19_bosun_counts_den_below_19() -> None:
    """L-CHAR-19: 2 per den character ranked below 19."""
    state, _ = _solo(19, dens={0: [2, 5, 20]})
    assert state.doubloons[0] == 14


def test_l_char_21_merchant_one_sale() -> None:
    """L-CHAR-21: sell 2 of a kind for 3 or 3 for 5, any kind; one sale; compulsory."""
    state = situation(hands=_hands(21), booty={0: {"goods": 2, "relic": 3}})
    state, _ = play(state, [21, 20, 20, 20])
    assert RULES.legal_actions(state, 0) == [
        {"type": "sell", "booty": "goods", "count": 2},
        {"type": "sell", "booty": "relic", "count": 2},
        {"type": "sell", "booty": "relic", "count": 3},
    ]
    step = act(state, 0, {"type": "sell", "booty": "relic", "count": 3})
    assert step.state.doubloons[0] == 15 and booty_of(step.state, 0).get("relic") is None
    assert "Yellow's Merchant sells 3 cursed relics for 5 doubloons." in step.text
    state, text = _solo(21, booty={0: {"saber": 2, "chest": 1}})
    assert state.doubloons[0] == 13 and "sells 2 sabers for 3 doubloons" in text
    state, text = _solo(21, booty={0: {"saber": 1, "chest": 1}})
    assert state.doubloons[0] == 10 and "holds no 2 tokens of one kind" in text


def test_l_char_24_gambler_and_l_char_26_quartermaster_per_token() -> None:
    """L-CHAR-24: lose 1 per token; L-CHAR-26: gain 1 per token (all kinds)."""
    tokens = {"goods": 2, "officer": 1, "saber": 1, "relic": 1}
    state, _ = _solo(24, booty={0: tokens})
    assert state.doubloons[0] == 5
    state, _ = _solo(26, booty={0: tokens})
    assert state.doubloons[0] == 15


def test_l_char_29_captain_gains_3() -> None:
    """L-CHAR-29 (Day part): gain 3."""
    state, text = _solo(29)
    assert state.doubloons[0] == 13 and "Yellow's Captain: Yellow gains 3 doubloons." in text


def test_l_char_30_spanish_governor_discards_own_den() -> None:
    """L-CHAR-30: every den character goes to the graveyard, not the Governor itself."""
    state, text = _solo(30, dens={0: [7, 12]})
    assert state.graves[0] == (7, 12) and state.dens[0] == (30,)
    assert "Yellow's Spanish Governor discards every character of Yellow's den: Barkeep, Freed Slave." in text


def test_l_zone_5_day_effects_on_the_day_played_only() -> None:
    """L-ZONE-5: a Day effect acts while the character is on the ship, not from the den."""
    state = situation(hands={s: [23, 28, 16, 20] for s in range(4)}, dens={0: [29]})
    state, _ = play(state, [23, 23, 23, 23])
    assert state.doubloons == (10, 10, 10, 10), "the Captain in the den gains nothing at Day"
    assert state.phase in (SUNRISE, DAY, DUSK)
