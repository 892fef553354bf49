"""Capture (P-CAP), mutiny (P-MUT) and the sea monster (P-SEA)."""

from __future__ import annotations

import copy

import pytest

from engine import IllegalAction
from engine.pirates.cards import bundled_card_set
from engine.pirates.play import mutineers
from engine.pirates.state import PIRATE_INDEX
from tests.engine.pirates_support import CARDS, RULES, booty_of, party_ids, situation


def capture(party: str, card: str, booty: str | None = None) -> dict[str, object]:
    return {"type": "capture", "party": party, "card": card, "booty": booty}


def mutiny(victim: int, party: str, pirate: str, card: str, booty: str | None = None) -> dict[str, object]:
    return {
        "type": "mutiny",
        "victim": victim,
        "party": party,
        "pirate": pirate,
        "card": card,
        "booty": booty,
    }


def custom_set(**changes: dict[str, object]) -> dict[str, object]:
    """The bundled card set with some cards changed, under another id."""
    data = copy.deepcopy(bundled_card_set().data)
    data["id"] = "test-set"
    for card in data["cards"]:
        card.update(changes.get(card["id"], {}))
    return data


def test_p_cap_1_party_needs_the_minimum_crew() -> None:
    """P-CAP-1: a party smaller than the card's minimum crew cannot capture it."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["S08", "S01", "S02", "S03"])
    with pytest.raises(IllegalAction, match="That party has 3 pirates; the Frigate Resolute needs 4"):
        RULES.apply(state, 0, capture("0.2", "S08", "saber"))
    after = RULES.apply(state, 0, capture("0.2", "S03", "rum"))
    assert after.kept[0] == (CARDS.index["S03"],)


def test_p_cap_1_single_pirate_captures_minimum_one_card() -> None:
    """P-CAP-1: a single pirate can capture a card whose minimum crew is 1."""
    state = situation(card_set=custom_set(S01={"min_crew": 1}))
    assert {"type": "capture", "party": "0.2", "card": "S01", "booty": None} in RULES.legal_actions(state, 0)
    after = RULES.apply(state, 0, capture("0.2", "S01"))
    assert after.treasury[0] == 5 + 8
    assert booty_of(after, 0) == {"rum": 1}


def test_p_cap_1_cannot_capture_with_another_players_party_or_an_absent_card() -> None:
    """P-CAP-1: the party must be the active player's, the card face up on the display."""
    state = situation(parties=[["1.2", "0.3"], ["0.4", "2.2"]], display=["S01", "S02", "S03", "S04"])
    with pytest.raises(IllegalAction, match="That party is Blue's, not yours"):
        RULES.apply(state, 0, capture("1.2", "S01", None))
    with pytest.raises(IllegalAction, match="The Frigate Resolute is not on the display"):
        RULES.apply(state, 0, capture("0.4", "S08", "saber"))
    with pytest.raises(IllegalAction, match="not a captain"):
        RULES.apply(state, 0, capture("2.2", "S01", None))


def test_p_cap_2_captain_picks_and_mate_owner_gets_the_other_token() -> None:
    """P-CAP-2: the captain's pick goes to the captain, the other token to the mate's owner."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, capture("0.2", "S03", "saber"))
    assert booty_of(after, 0) == {"saber": 1}
    assert booty_of(after, 1) == {"rum": 1}
    assert booty_of(after, 2) == {}
    assert after.supply[0] == 5 and after.supply[1] == 5


def test_p_cap_2_mate_of_the_captains_own_player_also_takes_the_token() -> None:
    """P-CAP-2: the mate's token goes to the captain's player when the mate is theirs."""
    state = situation(parties=[["0.2", "0.3", "2.4"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, capture("0.2", "S03", "rum"))
    assert booty_of(after, 0) == {"rum": 1, "saber": 1}


def test_p_cap_2_one_token_gives_the_mate_nothing() -> None:
    """P-CAP-2: with one booty token the mate gets nothing; booty must be null."""
    state = situation(parties=[["0.2", "1.3"]], display=["S01", "S02", "S03", "S04"])
    with pytest.raises(IllegalAction, match="booty must be null"):
        RULES.apply(state, 0, capture("0.2", "S01", "rum"))
    after = RULES.apply(state, 0, capture("0.2", "S01", None))
    assert booty_of(after, 0) == {"rum": 1}
    assert booty_of(after, 1) == {}


def test_p_cap_2_two_equal_tokens_need_no_choice() -> None:
    """P-CAP-2 / P-ACT: two equal kinds: booty is null, captain and mate take one each."""
    data = custom_set(S02={"booty": ["saber", "saber"]}, S03={"booty": ["rum"]})
    state = situation(parties=[["0.2", "1.3"]], display=["S02", "S01", "S03", "S04"], card_set=data)
    actions = [a for a in RULES.legal_actions(state, 0) if a.get("card") == "S02"]
    assert actions == [capture("0.2", "S02", None)]
    with pytest.raises(IllegalAction, match="booty must be null"):
        RULES.apply(state, 0, capture("0.2", "S02", "saber"))
    after = RULES.apply(state, 0, capture("0.2", "S02", None))
    assert booty_of(after, 0) == {"saber": 1}
    assert booty_of(after, 1) == {"saber": 1}


def test_p_cap_2_booty_must_be_one_of_the_two_shown_kinds() -> None:
    """P-CAP-2 / P-ACT: with two different kinds, booty names one of them."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["S03", "S01", "S02", "S04"])
    with pytest.raises(IllegalAction, match="Choose the booty of the Brig Mermaid: rum or saber"):
        RULES.apply(state, 0, capture("0.2", "S03", None))
    with pytest.raises(IllegalAction, match="shows rum and saber, not chest"):
        RULES.apply(state, 0, capture("0.2", "S03", "chest"))
    with pytest.raises(IllegalAction, match="booty must be a booty kind or null"):
        RULES.apply(state, 0, {**capture("0.2", "S03"), "booty": 3})
    choices = [a["booty"] for a in RULES.legal_actions(state, 0) if a.get("card") == "S03"]
    assert choices == ["rum", "saber"]


def test_p_cap_2_lone_captain_of_a_two_token_card_leaves_the_other_in_the_supply() -> None:
    """P-CAP-2: without a mate, the second token stays in the supply."""
    state = situation(card_set=custom_set(S03={"min_crew": 1}), display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, capture("0.2", "S03", "rum"))
    assert booty_of(after, 0) == {"rum": 1}
    assert after.supply[0] == 6


def test_p_cap_3_card_ducats_come_first_and_fund_the_pay() -> None:
    """P-CAP-3: the card's ducats reach the treasury before the pay goes out."""
    # Pay 5 + 5 = 10 is more than the 0 in the treasury but less than 0 + 11 ducats.
    state = situation(
        parties=[["0.2", "1.5", "2.5"]], display=["S03", "S01", "S02", "S04"], treasury=[0, 5, 5, 5]
    )
    after = RULES.apply(state, 0, capture("0.2", "S03", "rum"))
    assert after.treasury == (1, 10, 10, 5)
    assert after.kept[0] == (CARDS.index["S03"],)


def test_p_cap_4_pay_by_value_question_pay_and_no_pay_to_own_pirates() -> None:
    """P-CAP-4: other players' pirates get their value ("?" the card's "?" pay); own get nothing."""
    # S08 Frigate Resolute: 17 ducats, "?" pay 6.
    party = ["0.2", "1.Q", "0.5", "2.3", "3.4"]
    state = situation(parties=[party], display=["S08", "S01", "S02", "S03"])
    after = RULES.apply(state, 0, capture("0.2", "S08", "anchor"))
    assert after.treasury == (5 + 17 - 6 - 3 - 4, 5 + 6, 5 + 3, 5 + 4)


def test_p_cap_5_shortfall_from_supply_discards_card() -> None:
    """P-CAP-5 / P-CAP-6: the treasury is emptied, the supply pays the rest, the card is discarded."""
    # S01 Sloop Gull: 8 ducats; pay 15 > 5 + 8.
    state = situation(parties=[["0.2", "1.5", "2.5", "3.5"]], display=["S01", "S02", "S03", "S04"])
    after = RULES.apply(state, 0, capture("0.2", "S01", None))
    assert after.treasury == (0, 10, 10, 10)
    assert after.discarded == (CARDS.index["S01"],)
    assert after.kept[0] == ()
    assert booty_of(after, 0) == {"rum": 1}


def test_p_cap_6_paid_in_full_keeps_the_card_even_when_it_costs_nothing() -> None:
    """P-CAP-6: a capture that costs nothing is fully paid, so the card is kept."""
    state = situation(parties=[["0.2", "0.3"]], display=["S01", "S02", "S03", "S04"], treasury=[0, 5, 5, 5])
    after = RULES.apply(state, 0, capture("0.2", "S01", None))
    assert after.treasury[0] == 8
    assert after.kept[0] == (CARDS.index["S01"],)
    exact = situation(
        parties=[["0.2", "1.5", "2.5"]], display=["S01", "S02", "S03", "S04"], treasury=[2, 5, 5, 5]
    )
    after = RULES.apply(exact, 0, capture("0.2", "S01", None))
    assert after.treasury[0] == 0
    assert after.kept[0] == (CARDS.index["S01"],)


def test_p_cap_7_every_pirate_returns_single() -> None:
    """P-CAP-7: after a capture every pirate of the party is single again."""
    state = situation(parties=[["0.2", "1.5", "2.5"], ["3.2", "1.2"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, capture("0.2", "S03", "rum"))
    assert party_ids(after) == [["3.2", "1.2"]]
    assert len(after.parties) == 19


def test_p_cap_8_display_refills_only_when_all_four_are_empty() -> None:
    """P-CAP-8: a captured card's space stays empty until all four are empty."""
    state = situation(
        parties=[["0.2", "0.3"]], display=["S01", None, None, None], deck_rest=["S05", "S06", "S07", "S08"]
    )
    half = situation(parties=[["0.2", "0.3"]], display=["S01", "S02", None, None])
    after = RULES.apply(half, 0, capture("0.2", "S01", None))
    assert RULES.view(after, None)["display"][0] is None
    assert [c and c["id"] for c in RULES.view(after, None)["display"]] == [None, "S02", None, None]
    after = RULES.apply(state, 0, capture("0.2", "S01", None))
    assert [c["id"] for c in RULES.view(after, None)["display"]] == ["S05", "S06", "S07", "S08"]
    assert RULES.view(after, None)["deck_count"] == len(state.deck) - 4


def test_p_cap_9_game_ends_when_the_twentieth_card_is_boarded() -> None:
    """P-CAP-9: boarding the last card ends the game at once."""
    others = [c for c in CARDS.ids if c != "S01"]
    state = situation(
        parties=[["0.2", "0.3"]],
        display=["S01", None, None, None],
        kept={1: others[:10]},
        discarded=others[10:],
    )
    assert state.deck == ()
    after = RULES.apply(state, 0, capture("0.2", "S01", None))
    assert RULES.to_act(after) == []
    assert RULES.result(after) is not None
    assert RULES.view(after, None)["end_reason"] == "all_cards_boarded"
    assert RULES.legal_actions(after, 1) == []
    with pytest.raises(IllegalAction, match="The game is over"):
        RULES.apply(after, 1, {"type": "pass"})


def test_p_mut_1_victim_party_and_pirate_must_match() -> None:
    """P-MUT-1: the victim controls the party, which holds the mutineer's named pirate."""
    state = situation(
        parties=[["1.5", "0.3", "2.2", "3.2"], ["2.5", "3.3"]], display=["S06", "S01", "S02", "S03"]
    )
    assert RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S06", "rum")) is not None
    with pytest.raises(IllegalAction, match="controlled by Blue, not Green"):
        RULES.apply(state, 0, mutiny(2, "1.5", "0.3", "S06", "rum"))
    with pytest.raises(IllegalAction, match="Red 4 is not in that party"):
        RULES.apply(state, 0, mutiny(1, "1.5", "0.4", "S06", "rum"))
    with pytest.raises(IllegalAction, match="Green 2 is not one of your pirates"):
        RULES.apply(state, 0, mutiny(1, "1.5", "2.2", "S06", "rum"))
    with pytest.raises(IllegalAction, match="against yourself"):
        RULES.apply(state, 0, mutiny(0, "1.5", "0.3", "S06", "rum"))
    with pytest.raises(IllegalAction, match="victim must be a seat number"):
        RULES.apply(state, 0, mutiny(True, "1.5", "0.3", "S06", "rum"))
    assert not [a for a in RULES.legal_actions(state, 0) if a.get("party") == "2.5" and a["type"] == "mutiny"]


def test_p_mut_2_party_unchanged_in_size_must_meet_the_minimum() -> None:
    """P-MUT-2: the whole party, as it is, must meet the card's minimum crew."""
    state = situation(parties=[["1.5", "0.3", "2.2"]], display=["S06", "S03", "S01", "S02"])
    with pytest.raises(IllegalAction, match="That party has 3 pirates; the Fluyt Amsterdam needs 4"):
        RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S06", "rum"))
    cards = {a["card"] for a in RULES.legal_actions(state, 0) if a["type"] == "mutiny"}
    assert cards == {"S03", "S01", "S02"}


def test_p_mut_3_rebel_on_top_old_captain_mate_rest_in_order() -> None:
    """P-MUT-3: the mutineer becomes captain, the old captain mate, the rest keep their order."""
    party = tuple(PIRATE_INDEX[p] for p in ["1.5", "2.2", "0.3", "3.4", "2.Q"])
    expected = tuple(PIRATE_INDEX[p] for p in ["0.3", "1.5", "2.2", "3.4", "2.Q"])
    assert mutineers(party, PIRATE_INDEX["0.3"]) == expected
    state = situation(parties=[["1.5", "2.2", "0.3"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S03", "saber"))
    assert booty_of(after, 0) == {"saber": 1}
    assert booty_of(after, 1) == {"rum": 1}  # the old captain is the mate
    assert booty_of(after, 2) == {}


def test_p_mut_4_black_spot_goes_to_the_victim() -> None:
    """P-MUT-4: the black spot moves in front of the victim (from anywhere but the victim)."""
    for holder in (None, 0, 2):
        state = situation(
            parties=[["1.5", "0.3", "2.2"]], display=["S03", "S01", "S02", "S04"], black_spot=holder
        )
        after = RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S03", "saber"))
        assert after.black_spot == 1
        assert RULES.view(after, None)["black_spot"] == 1


def test_p_mut_4_victim_holding_the_black_spot_passes_it_to_the_mutineer() -> None:
    """P-MUT-4: if the victim already holds the black spot, the mutineer takes it."""
    state = situation(parties=[["1.5", "0.3", "2.2"]], display=["S03", "S01", "S02", "S04"], black_spot=1)
    after = RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S03", "saber"))
    assert after.black_spot == 0


def test_p_mut_5_mutiny_pays_double() -> None:
    """P-MUT-5: every paid pirate gets double; the former captain is paid as mate."""
    # S03 Brig Mermaid: 11 ducats, "?" pay 2. Paid: Blue 5 (old captain) 10, Green ? 4.
    state = situation(parties=[["1.5", "0.3", "2.Q"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S03", "rum"))
    assert after.treasury == (5 + 11 - 14, 15, 9, 5)
    assert after.kept[0] == (CARDS.index["S03"],)
    assert party_ids(after) == []


def test_p_mut_5_double_pay_shortfall_discards() -> None:
    """P-MUT-5 with P-CAP-5: the doubled pay can exceed the treasury; the card is discarded."""
    state = situation(parties=[["1.5", "0.3", "2.5", "3.5"]], display=["S03", "S01", "S02", "S04"])
    after = RULES.apply(state, 0, mutiny(1, "1.5", "0.3", "S03", "rum"))
    assert after.treasury == (0, 15, 15, 15)
    assert after.discarded == (CARDS.index["S03"],)


def test_p_mut_1_mutiny_is_open_to_a_player_who_controls_no_party() -> None:
    """P-MUT-1: mutiny needs only a pirate in the victim's party, not a party of one's own."""
    parties = [["1.5", "0.2", "0.3"], ["2.5", "0.4", "0.5", "0.Q"]]
    state = situation(parties=parties, display=["S03", "S01", "S02", "S04"])
    kinds = {a["type"] for a in RULES.legal_actions(state, 0)}
    assert kinds == {"mutiny", "ransom"}


def test_p_sea_1_monster_gives_the_captain_wheel_and_anchor() -> None:
    """P-SEA-1: the captain takes wheel and anchor, the mate nothing; pay is normal."""
    # M01 Sea Monster: min 5, 20 ducats, "?" pay 5.
    party = ["0.2", "1.3", "2.4", "3.Q", "1.2"]
    state = situation(parties=[party], display=["M01", "S01", "S02", "S03"])
    with pytest.raises(IllegalAction, match="booty must be null"):
        RULES.apply(state, 0, capture("0.2", "M01", "wheel"))
    after = RULES.apply(state, 0, capture("0.2", "M01", None))
    assert booty_of(after, 0) == {"wheel": 1, "anchor": 1}
    assert booty_of(after, 1) == {}
    assert after.treasury == (5 + 20 - 14, 10, 9, 10)


def test_p_sea_1_monster_under_mutiny_pays_double() -> None:
    """P-SEA-1: the monster's pay is doubled under mutiny like any other card."""
    party = ["1.2", "0.3", "2.4", "3.Q", "1.3"]
    state = situation(parties=[party], display=["M01", "S01", "S02", "S03"], treasury=[30, 5, 5, 5])
    after = RULES.apply(state, 0, mutiny(1, "1.2", "0.3", "M01", None))
    assert after.treasury == (30 + 20 - 2 * (2 + 4 + 5 + 3), 5 + 10, 5 + 8, 5 + 10)
    assert booty_of(after, 0) == {"wheel": 1, "anchor": 1}
