"""Setup (P-COMP, P-SET), parties (P-PARTY), turns (P-TURN), assemble (P-ASM), ransom (P-RAN)
and the action notation (P-ACT)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine import IllegalAction, InvalidOptions
from engine.pirates.cards import KINDS
from engine.pirates.state import PiratesState
from tests.engine.pirates_support import ALL_CARDS, CARDS, RULES, deck, game, party_ids, situation


def assemble(party: str, onto: str) -> dict[str, object]:
    return {"type": "assemble", "party": party, "onto": onto}


def ransom(pirate: str, onto: str | None) -> dict[str, object]:
    return {"type": "ransom", "pirate": pirate, "onto": onto}


# --- components and setup -------------------------------------------------------------


def test_p_comp_1_twenty_cards_thirteen_ships_six_ruins_one_monster() -> None:
    """P-COMP-1: the bundled card set has 13 ships, 6 lost ruins and 1 sea monster."""
    assert Counter(CARDS.kind) == {"ship": 13, "ruins": 6, "monster": 1}
    for card in range(len(CARDS)):
        assert CARDS.min_crew[card] >= 1 and CARDS.ducats[card] >= 0 and 1 <= len(CARDS.booty[card]) <= 2
    assert all(CARDS.wheels[c] >= 1 for c in range(len(CARDS)) if CARDS.kind[c] == "ship")
    assert all(CARDS.anchors[c] >= 1 for c in range(len(CARDS)) if CARDS.kind[c] == "ruins")


def test_p_comp_2_five_pirates_per_colour_valued_2_to_5_and_question() -> None:
    """P-COMP-2: each colour has pirates 2, 3, 4, 5 and "?"; all colours are alike."""
    view = RULES.view(game(5), None)
    pirates = [p for party in view["parties"] for p in party["pirates"]]
    assert len(pirates) == 25
    for seat in range(5):
        values = [p["value"] for p in pirates if p["seat"] == seat]
        assert values == [2, 3, 4, 5, "?"]
    assert [p["id"] for p in pirates[:5]] == ["0.2", "0.3", "0.4", "0.5", "0.Q"]


def test_p_comp_3_six_booty_tokens_of_each_kind_and_each_pictured_six_times() -> None:
    """P-COMP-3: the supply holds 6 of each kind; the bundled set pictures each kind 6 times."""
    view = RULES.view(game(), None)
    assert view["supply"] == dict.fromkeys(KINDS, 6)
    pictured = Counter(kind for booty in CARDS.booty for kind in booty)
    assert pictured == dict.fromkeys(KINDS, 6)


def test_p_comp_4_ransom_shortfall_leaves_treasury_at_zero() -> None:
    """P-COMP-4: a treasury never goes below 0 (a short ransom is made up from the supply)."""
    parties = [["1.2", "0.2", "0.3", "0.4", "0.5", "0.Q"]]
    state = situation(parties=parties, treasury=[3, 5, 5, 5])
    after = RULES.apply(state, 0, ransom("0.Q", "2.2"))
    assert after.treasury == (0, 10, 5, 5)


def test_p_comp_5_there_is_one_black_spot() -> None:
    """P-COMP-5: at most one seat holds the black spot."""
    state = situation(black_spot=2)
    seats = RULES.view(state, None)["seats"]
    assert [s["black_spot"] for s in seats] == [False, False, True, False]


def test_p_set_1_players_treasury_and_single_pirates() -> None:
    """P-SET-1: 3 to 5 players, 5 ducats each, every pirate single."""
    for players in (3, 4, 5):
        state = RULES.new_game(players, "setup")
        assert state.treasury == (5,) * players
        assert len(state.parties) == 5 * players and all(len(p) == 1 for p in state.parties)
    wrong: list[Any] = [2, 6, True, 4.0]
    for players in wrong:
        with pytest.raises(InvalidOptions, match="3 to 5 players"):
            RULES.new_game(players, "setup")


def test_p_set_2_top_four_cards_face_up() -> None:
    """P-SET-2: the top 4 cards of the shuffled deck are the display."""
    state = game(4, "S09", "R02", "M01", "S01")
    view = RULES.view(state, None)
    assert [c["id"] for c in view["display"]] == ["S09", "R02", "M01", "S01"]
    assert view["deck_count"] == 16
    assert state.deck == tuple(CARDS.index[c] for c in deck("S09", "R02", "M01", "S01")[4:])


def test_p_set_3_black_spot_starts_beside_the_board() -> None:
    """P-SET-3: nobody holds the black spot at the start."""
    assert RULES.view(game(), None)["black_spot"] is None


def test_p_set_4_first_player_from_seed_and_turns_in_seat_order() -> None:
    """P-SET-4: the first player is drawn; turns go in seat order, wrapping round."""
    firsts = {RULES.to_act(RULES.new_game(4, seed))[0] for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    state = game(3, first_seat=2)
    assert RULES.to_act(state) == [2]
    state = RULES.apply(state, 2, assemble("2.2", "0.2"))
    assert RULES.to_act(state) == [0]
    state = RULES.apply(state, 0, assemble("0.3", "1.2"))
    assert RULES.to_act(state) == [1]


def test_p_set_5_same_seed_same_deal_and_explicit_deck_and_first_seat() -> None:
    """P-SET-5: the seed fixes shuffle and first player; options can fix both instead."""
    a, b = RULES.new_game(4, "same"), RULES.new_game(4, "same")
    assert RULES.dump(a) == RULES.dump(b)
    assert RULES.dump(RULES.new_game(4, "other")) != RULES.dump(a)
    assert RULES.dump(RULES.new_game(4, 12345)) == RULES.dump(RULES.new_game(4, 12345))
    order = list(reversed(ALL_CARDS))
    fixed = RULES.new_game(4, "same", {"deck": order, "first_seat": 3})
    assert RULES.dump(fixed)["display"] + RULES.dump(fixed)["deck"] == order
    assert RULES.to_act(fixed) == [3]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colour": "red"}, "Unknown options: colour"),
        ({"deck": ALL_CARDS[:19]}, "each of the 20 cards exactly once"),
        ({"deck": [*ALL_CARDS[:19], "S01"]}, "each of the 20 cards exactly once"),
        ({"deck": [*ALL_CARDS[:19], "X99"]}, "unknown card ids X99"),
        ({"deck": "S01"}, "deck must be a list"),
        ({"first_seat": 4}, "first_seat must be a seat number from 0 to 3"),
        ({"first_seat": True}, "first_seat must be a seat number"),
        ({"card_set": "nope"}, "Unknown card set 'nope'"),
        ({"card_set": 7}, "card_set must be"),
    ],
)
def test_p_set_5_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    """P-SET-5: explicit deck and first seat are checked; unknown options refused."""
    with pytest.raises(InvalidOptions, match=message):
        RULES.new_game(4, 1, options)


def test_p_set_5_seed_must_be_int_or_string() -> None:
    """P-SET-5: a seed is a whole number or a string."""
    wrong: list[Any] = [1.5, None, True]
    for seed in wrong:
        with pytest.raises(InvalidOptions, match="seed"):
            RULES.new_game(4, seed)


# --- parties --------------------------------------------------------------------------


def test_p_party_1_captain_mate_and_crew() -> None:
    """P-PARTY-1: a party is top first: captain, mate, crew; named by its captain."""
    state = situation(parties=[["0.3", "1.2", "2.4", "3.Q"]])
    party = next(p for p in RULES.view(state, None)["parties"] if p["id"] == "0.3")
    assert [p["role"] for p in party["pirates"]] == ["captain", "mate", "crew", "crew"]
    assert [p["id"] for p in party["pirates"]] == ["0.3", "1.2", "2.4", "3.Q"]


def test_p_party_2_controller_is_the_captains_owner() -> None:
    """P-PARTY-2: the owner of the captain controls the party."""
    state = situation(parties=[["1.3", "0.2", "0.4"]])
    view = RULES.view(state, None)
    party = next(p for p in view["parties"] if p["id"] == "1.3")
    assert party["controller"] == 1
    assert "1.3" in view["seats"][1]["parties"]
    assert "1.3" not in view["seats"][0]["parties"]


def test_p_party_3_no_party_over_nine() -> None:
    """P-PARTY-3 / P-ASM-2: a party of 10 pirates may not be formed (rulebook example)."""
    five_a = ["0.2", "1.2", "1.3", "1.4", "1.5"]
    five_b = ["2.2", "3.2", "3.3", "3.4", "3.5"]
    state = situation(parties=[five_a, five_b])
    with pytest.raises(IllegalAction, match="would have 10 pirates; a party holds at most 9"):
        RULES.apply(state, 0, assemble("0.2", "2.2"))
    assert assemble("0.2", "2.2") not in RULES.legal_actions(state, 0)
    assert assemble("0.3", "2.2") in RULES.legal_actions(state, 0)


def test_p_party_4_pirate_values_are_public() -> None:
    """P-PARTY-4: every viewer sees the full composition of every party, values included."""
    state = situation(parties=[["0.3", "1.Q", "2.4"]])
    for viewer in (None, 0, 1, 3):
        party = next(p for p in RULES.view(state, viewer)["parties"] if p["id"] == "0.3")
        assert [(p["id"], p["value"]) for p in party["pirates"]] == [("0.3", 3), ("1.Q", "?"), ("2.4", 4)]


# --- turn -----------------------------------------------------------------------------


def test_p_turn_exactly_one_action_then_the_next_seat() -> None:
    """P-TURN: the active player does one action, then the next seat is active."""
    state = game(4, first_seat=3)
    with pytest.raises(IllegalAction, match="It is Yellow's turn, not Red's"):
        RULES.apply(state, 0, assemble("0.2", "1.2"))
    assert RULES.legal_actions(state, 0) == []
    state = RULES.apply(state, 3, assemble("3.2", "1.2"))
    assert RULES.to_act(state) == [0]
    assert RULES.action_count(state) == 1


def stuck(active: int = 0, passes: int = 0) -> PiratesState:
    """Every player controls one party of 5 and the display holds only 6+ crew cards."""
    parties = [[f"{s}.2", f"{s}.3", f"{s}.4", f"{s}.5", f"{s}.Q"] for s in range(3)]
    return situation(3, parties=parties, display=["S11", "S12", "S13", "R06"], active=active, passes=passes)


def test_p_turn_1_pass_is_the_only_action_when_nothing_else_is_legal() -> None:
    """P-TURN-1: with no other legal action the only action is pass."""
    state = stuck()
    assert RULES.legal_actions(state, 0) == [{"type": "pass"}]
    after = RULES.apply(state, 0, {"type": "pass"})
    assert RULES.to_act(after) == [1]
    assert RULES.view(after, None)["passes_in_a_row"] == 1


def test_p_turn_1_pass_is_refused_when_another_action_exists() -> None:
    """P-TURN-1: pass is not legal while any other action is."""
    state = game()
    assert {"type": "pass"} not in RULES.legal_actions(state, 0)
    with pytest.raises(IllegalAction, match="only pass when you have no other action"):
        RULES.apply(state, 0, {"type": "pass"})


def test_p_turn_1_forced_action_is_the_pass_of_a_seat_with_nothing_else() -> None:
    """P-TURN-1: the service passes at once for the seat to act when pass is its only action."""
    assert RULES.forced_action(stuck(), 0) == {"type": "pass"}
    assert RULES.forced_action(stuck(active=1), 0) is None, "only the seat to act"
    assert RULES.forced_action(game(), 0) is None
    assert RULES.forced_action(situation(end="full_round_of_passes"), 0) is None


def test_p_turn_1_forced_action_agrees_with_legal_actions() -> None:
    """P-TURN-1: forced_action (which stops at the first possible action) passes exactly
    when legal_actions lists only pass, in random tables of parties and cards — half of them
    drawn the way a seat gets stuck (its pirates together, only large ships showing)."""
    rng = random.Random("p-turn-1")
    large = [c for c in ALL_CARDS if CARDS.min_crew[CARDS.index[c]] >= 6]
    outcomes: Counter[bool] = Counter()
    for table in range(1500):
        players = rng.choice([3, 4, 5])
        pirates = [f"{s}.{v}" for s in range(players) for v in ("2", "3", "4", "5", "Q")]
        if table % 2:
            rng.shuffle(pirates)
        parties: list[list[str]] = []
        while pirates:
            size = rng.randint(1, 9) if table % 2 else rng.choice([4, 5, 5, 6, 9])
            parties.append(pirates[:size])
            pirates = pirates[size:]
        shown = rng.sample([*(ALL_CARDS if table % 2 else large), None], 4)
        state = situation(players, parties=parties, display=shown)
        stuck_now = RULES.legal_actions(state, 0) == [{"type": "pass"}]
        assert RULES.forced_action(state, 0) == ({"type": "pass"} if stuck_now else None), (parties, shown)
        outcomes[stuck_now] += 1
    assert outcomes[True] > 20 and outcomes[False] > 20, outcomes


def test_p_turn_1_a_full_round_of_passes_ends_the_game() -> None:
    """P-TURN-1: n passes in a row in an n-player game end it, scored as it stands."""
    state = stuck()
    for seat in range(3):
        assert RULES.result(state) is None
        state = RULES.apply(state, seat, {"type": "pass"})
    assert RULES.to_act(state) == []
    assert RULES.view(state, None)["end_reason"] == "full_round_of_passes"
    assert RULES.result(state) == {"scores": [5, 5, 5], "winners": [0, 1, 2]}


def test_p_turn_1_any_other_action_breaks_the_run_of_passes() -> None:
    """P-TURN-1: the pass count restarts after any other action."""
    state = situation(passes=2)
    after = RULES.apply(state, 0, assemble("0.2", "1.2"))
    assert after.passes == 0


def test_p_turn_2_the_thousandth_action_ends_the_game() -> None:
    """P-TURN-2: a game that reaches 1,000 actions ends and is scored as it stands."""
    state = situation(actions=998)
    state = RULES.apply(state, 0, assemble("0.2", "1.2"))
    assert RULES.result(state) is None
    state = RULES.apply(state, 1, assemble("1.3", "2.2"))
    assert RULES.action_count(state) == 1000
    assert RULES.to_act(state) == []
    assert RULES.view(state, None)["end_reason"] == "action_limit"
    assert RULES.result(state) is not None


# --- assemble -------------------------------------------------------------------------


def test_p_asm_1_party_goes_whole_and_in_order_on_top() -> None:
    """P-ASM-1: the whole party goes on top of another's party; the active player controls it."""
    state = situation(parties=[["0.3", "2.2"], ["1.5", "3.3", "0.Q"]])
    after = RULES.apply(state, 0, assemble("0.3", "1.5"))
    assert party_ids(after) == [["0.3", "2.2", "1.5", "3.3", "0.Q"]]
    assert "0.3" in RULES.view(after, None)["seats"][0]["parties"]


def test_p_asm_2_result_may_hold_exactly_nine() -> None:
    """P-ASM-2: nine pirates is allowed, ten is not."""
    state = situation(parties=[["0.2", "1.2", "1.3", "1.4"], ["2.2", "3.2", "3.3", "3.4", "3.5"]])
    after = RULES.apply(state, 0, assemble("0.2", "2.2"))
    assert len(party_ids(after)[0]) == 9


def test_p_asm_3_pirate_values_play_no_part() -> None:
    """P-ASM-3: any pirate may go on any pirate, whatever their values."""
    state = game()
    actions = RULES.legal_actions(state, 0)
    assert assemble("0.2", "1.5") in actions and assemble("0.Q", "1.2") in actions
    assert len([a for a in actions if a["type"] == "assemble"]) == 5 * 15


def test_p_asm_4_never_onto_a_party_of_the_same_controller() -> None:
    """P-ASM-4: a party cannot be placed on a party its player controls."""
    state = situation(parties=[["0.3", "1.2"]])
    with pytest.raises(IllegalAction, match="cannot place a party on a party you control"):
        RULES.apply(state, 0, assemble("0.2", "0.3"))
    with pytest.raises(IllegalAction, match="That party is Blue's, not yours"):
        RULES.apply(state, 0, assemble("1.3", "2.2"))
    with pytest.raises(IllegalAction, match="Blue 2 is not a captain"):
        RULES.apply(state, 0, assemble("0.2", "1.2"))
    assert all(a["onto"][0] != "0" for a in RULES.legal_actions(state, 0) if a["type"] == "assemble")


# --- ransom ---------------------------------------------------------------------------


def no_party_of_red() -> PiratesState:
    return situation(
        parties=[["1.2", "0.2", "2.3", "0.3"], ["2.2", "0.4", "0.5", "0.Q"]], treasury=[6, 5, 5, 5]
    )


def test_p_ran_1_only_while_controlling_no_party() -> None:
    """P-RAN-1: ransom is legal only for a player who controls no party."""
    state = situation(parties=[["1.2", "0.2"]])
    with pytest.raises(IllegalAction, match="only pay a ransom while you control no party"):
        RULES.apply(state, 0, ransom("0.2", "2.2"))
    assert not [a for a in RULES.legal_actions(state, 0) if a["type"] == "ransom"]
    assert [a for a in RULES.legal_actions(no_party_of_red(), 0) if a["type"] == "ransom"]


def test_p_ran_2_pay_the_controller_five_and_take_the_pirate_back() -> None:
    """P-RAN-2: 5 ducats to the party's controller; the rest of the party keeps its order."""
    state = no_party_of_red()
    after = RULES.apply(state, 0, ransom("0.2", "3.2"))
    assert after.treasury == (1, 10, 5, 5)
    assert party_ids(after) == [["0.2", "3.2"], ["1.2", "2.3", "0.3"], ["2.2", "0.4", "0.5", "0.Q"]]


def test_p_ran_2_ransom_from_a_poor_treasury_still_gives_five() -> None:
    """P-RAN-2: the controller always receives 5; what the payer lacks comes from the supply."""
    state = no_party_of_red()._replace(treasury=(2, 5, 5, 5))
    after = RULES.apply(state, 0, ransom("0.5", "1.2"))
    assert after.treasury == (0, 5, 10, 5)


def test_p_ran_3_assemble_is_part_of_the_same_action() -> None:
    """P-RAN-3: the retrieved pirate is placed at once; the turn passes afterwards."""
    state = no_party_of_red()
    after = RULES.apply(state, 0, ransom("0.3", "2.2"))
    assert ["0.3", "2.2", "0.4", "0.5", "0.Q"] in party_ids(after)
    assert RULES.to_act(after) == [1]
    assert RULES.action_count(after) == 1


def test_p_ran_3_placing_back_on_the_same_party_makes_it_captain() -> None:
    """P-RAN-3: the pirate may go back on the party it came from, now as its captain."""
    state = no_party_of_red()
    after = RULES.apply(state, 0, ransom("0.3", "1.2"))
    assert party_ids(after)[0] == ["0.3", "1.2", "0.2", "2.3"]
    assert after.treasury == (1, 10, 5, 5)


def test_p_ran_3_onto_null_only_when_no_assemble_is_possible() -> None:
    """P-RAN-3: onto is null only when no assemble is possible, which never happens: the
    party the pirate came from always has room for it again."""
    state = no_party_of_red()
    with pytest.raises(IllegalAction, match="name it in onto"):
        RULES.apply(state, 0, ransom("0.2", None))
    assert all(a["onto"] is not None for a in RULES.legal_actions(state, 0) if a["type"] == "ransom")
    nine = situation(parties=[["1.2", "0.2", "2.2", "2.3", "2.4", "2.5", "2.Q", "3.2", "3.3"]])
    with pytest.raises(IllegalAction, match="only pay a ransom while you control no party"):
        RULES.apply(nine, 0, ransom("0.2", None))


def test_p_ran_3_target_checks() -> None:
    """P-RAN-3: the target is a party of another player with room for one more."""
    full = ["1.2", "2.2", "2.3", "2.4", "2.5", "2.Q", "3.2", "3.3", "3.4"]
    state = situation(parties=[full, ["1.3", "0.2", "0.3", "0.4", "0.5", "0.Q"]])
    with pytest.raises(IllegalAction, match="already has 9 pirates"):
        RULES.apply(state, 0, ransom("0.2", "1.2"))
    with pytest.raises(IllegalAction, match="Blue 4 is not one of your pirates"):
        RULES.apply(state, 0, ransom("1.4", "1.2"))
    with pytest.raises(IllegalAction, match="must join another player's party"):
        RULES.apply(state, 0, ransom("0.2", "0.2"))
    targets = {
        a["onto"] for a in RULES.legal_actions(state, 0) if a["type"] == "ransom" and a["pirate"] == "0.2"
    }
    assert "1.2" not in targets and "1.3" in targets and "3.5" in targets


# --- action notation ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ("assemble", "An action must be a JSON object"),
        ({"type": "sail"}, "type must be one of"),
        ({"type": None}, "type must be one of"),
        ({"party": "0.2", "onto": "1.2"}, "type must be one of"),
        ({"type": "assemble", "party": "0.2"}, "^An assemble action needs onto$"),
        ({"type": "assemble", "party": "0.2", "onto": "1.2", "note": 1}, "^An assemble action has no note$"),
        ({"type": "capture", "party": "0.2", "card": "S01"}, "^A capture action needs booty$"),
        ({"type": "assemble", "party": 0.2, "onto": "1.2"}, "party must be a pirate id"),
        ({"type": "assemble", "party": "0.2", "onto": "4.2"}, "There is no pirate '4.2'"),
        ({"type": "assemble", "party": "0.7", "onto": "1.2"}, "There is no pirate '0.7'"),
        ({"type": "assemble", "party": "0.q", "onto": "1.2"}, "There is no pirate '0.q'"),
        ({"type": "capture", "party": "0.2", "card": "S99", "booty": None}, "There is no card 'S99'"),
        ({"type": "capture", "party": "0.2", "card": 5, "booty": None}, "card must be a card id"),
        ({"type": "pass", "seat": 0}, "^A pass action has no seat$"),
    ],
)
def test_p_act_malformed_actions_are_refused(action: Any, message: str) -> None:
    """P-ACT: unknown keys, missing keys, wrong types and unknown ids are refused."""
    with pytest.raises(IllegalAction, match=message):
        RULES.apply(game(), 0, action)


def test_p_act_numbers_are_json_integers() -> None:
    """P-ACT: victim must be an integer: never 1.0 or true."""
    state = situation(parties=[["1.5", "0.3", "2.2"]], display=["S03", "S01", "S02", "S04"])
    good = {"type": "mutiny", "victim": 1, "party": "1.5", "pirate": "0.3", "card": "S03", "booty": "rum"}
    RULES.apply(state, 0, good)
    for bad in (1.0, True, "1"):
        with pytest.raises(IllegalAction, match="victim must be a seat number"):
            RULES.apply(state, 0, {**good, "victim": bad})
    seats: list[Any] = [True, 0.0, "0", 9, -1]
    for seat in seats:
        with pytest.raises(IllegalAction, match="There is no seat"):
            RULES.apply(state, seat, good)


def test_p_act_legal_actions_are_unique_and_deterministic() -> None:
    """P-ACT: legal_actions lists each action once, always in the same order, by type."""
    state = situation(
        parties=[["0.2", "1.3", "2.4"], ["1.5", "0.3", "3.3"]], display=["S03", "S01", "R02", "S04"]
    )
    first = RULES.legal_actions(state, 0)
    assert first == RULES.legal_actions(state, 0)
    keys = [tuple(sorted(a.items(), key=lambda kv: kv[0])) for a in first]
    assert len(set(keys)) == len(keys)
    order = ["assemble", "capture", "mutiny", "ransom", "pass"]
    types = [order.index(a["type"]) for a in first]
    assert types == sorted(types)
    assert {"assemble", "capture", "mutiny"} == {a["type"] for a in first}
