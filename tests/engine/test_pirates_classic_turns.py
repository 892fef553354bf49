"""Pirates (classic): stacks (P-PARTY-1 … P-PARTY-3), moving a pirate (C-MOVE, P-ASM-1, P-ASM-2,
P-ASM-4), turns and skips (C-TURN) and the action notation (C-ACT, P-ACT)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import IllegalAction
from tests.engine.pirates_classic_support import RULES, custom_ships, game, situation, stacks


def move(party: str, onto: str) -> dict[str, Any]:
    return {"type": "move", "party": party, "onto": onto}


# --- stacks ------------------------------------------------------------------------------


def test_p_party_1_top_pirate_is_captain_second_mate_rest_crew() -> None:
    """P-PARTY-1 (adopted by the classic rules): a stack is ordered top first; a single pirate is
    a stack of one; the view names the roles."""
    state = situation(parties=[["0.2", "1.3", "2.4", "3.5"]])
    view = RULES.view(state, None)
    stack = next(s for s in view["stacks"] if s["id"] == "0.2")
    assert [p["id"] for p in stack["pirates"]] == ["0.2", "1.3", "2.4", "3.5"]
    assert [p["role"] for p in stack["pirates"]] == ["captain", "mate", "crew", "crew"]
    single = next(s for s in view["stacks"] if s["id"] == "0.3")
    assert single["size"] == 1 and single["pirates"][0]["role"] == "captain"


def test_p_party_2_the_captains_owner_controls_the_stack() -> None:
    """P-PARTY-2 (adopted): a stack is controlled by its top pirate's owner; every pirate is in
    exactly one stack."""
    state = situation(parties=[["1.2", "0.3", "0.4"]])
    view = RULES.view(state, None)
    assert view["seats"][1]["stacks"][0] == "1.2"
    assert "0.3" not in view["seats"][0]["stacks"]
    with pytest.raises(IllegalAction, match="That stack is Blue's, not yours"):
        RULES.apply(state, 0, move("1.2", "2.2"))
    with pytest.raises(IllegalAction, match="Red 3 is not on top of a stack"):
        RULES.apply(state, 0, move("0.3", "2.2"))
    after = RULES.apply(state, 0, move("0.2", "1.2"))
    assert stacks(after) == [["0.2", "1.2", "0.3", "0.4"]]
    ids = [p for party in RULES.dump(after)["parties"] for p in party]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 20


def test_p_party_3_no_stack_ever_holds_more_than_nine() -> None:
    """P-PARTY-3 (adopted) and P-ASM-2: a move that would make 10 pirates is refused and never
    listed."""
    big = ["1.2", "0.2", "0.3", "0.4", "2.2", "2.3", "2.4", "2.5", "2.Q"]
    state = situation(parties=[big, ["0.5", "3.2"]])
    with pytest.raises(IllegalAction, match="would have 11 pirates; a stack holds at most 9"):
        RULES.apply(state, 0, move("0.5", "1.2"))
    with pytest.raises(IllegalAction, match="would have 10 pirates"):
        RULES.apply(state, 0, move("0.Q", "1.2"))
    assert move("0.Q", "1.2") not in RULES.legal_actions(state, 0)


# --- moving a pirate ---------------------------------------------------------------------


def test_c_move_1_own_single_or_stack_onto_another_players_single_or_stack() -> None:
    """C-MOVE-1 / P-ASM-1: a single pirate or a stack the player captains goes, whole and in
    order, on another player's single pirate or stack; the mover now controls the result."""
    state = situation(parties=[["0.2", "1.3"], ["2.2", "3.3", "1.4"]])
    after = RULES.apply(state, 0, move("0.2", "2.2"))
    assert stacks(after) == [["0.2", "1.3", "2.2", "3.3", "1.4"]]
    single = RULES.apply(game(), 0, move("0.Q", "3.5"))
    assert stacks(single) == [["0.Q", "3.5"]]
    assert single.active == 1


def test_p_asm_1_stacks_are_never_split() -> None:
    """P-ASM-1 (C-MOVE-1): only whole stacks move, named by their captain."""
    state = situation(parties=[["0.2", "1.3", "0.4"]])
    with pytest.raises(IllegalAction, match="Red 4 is not on top of a stack"):
        RULES.apply(state, 0, move("0.4", "2.2"))
    listed = {a["party"] for a in RULES.legal_actions(state, 0) if a["type"] == "move"}
    assert listed == {"0.2", "0.3", "0.5", "0.Q"}


def test_p_asm_2_the_result_may_not_exceed_nine() -> None:
    """P-ASM-2 (C-MOVE-1): 9 pirates is allowed, 10 is not."""
    five = ["1.2", "0.2", "0.3", "0.4", "2.2"]
    state = situation(parties=[five, ["0.5", "2.3", "3.4", "3.5"]])
    after = RULES.apply(state, 0, move("0.5", "1.2"))
    assert len(stacks(after)[0]) == 9
    state = situation(parties=[five, ["0.5", "2.3", "2.4", "3.4", "3.5"]])
    with pytest.raises(IllegalAction, match="would have 10 pirates"):
        RULES.apply(state, 0, move("0.5", "1.2"))


def test_p_asm_4_never_onto_a_stack_of_the_same_controller() -> None:
    """P-ASM-4 (C-MOVE-1): a player cannot put a stack on a stack they control."""
    state = situation(parties=[["0.2", "1.3"]])
    with pytest.raises(IllegalAction, match="You cannot put a stack on a stack you control"):
        RULES.apply(state, 0, move("0.3", "0.2"))
    assert all(a["onto"][0] != "0" for a in RULES.legal_actions(state, 0) if a["type"] == "move")


def test_c_move_2_every_value_in_a_stack_is_shown_to_everyone() -> None:
    """C-MOVE-2: covered values are shown to every viewer, as in the 2021 edition."""
    state = situation(parties=[["0.2", "1.Q", "2.5", "3.3"]])
    for viewer in (None, 0, 1, 2, 3):
        stack = next(s for s in RULES.view(state, viewer)["stacks"] if s["id"] == "0.2")
        assert [p["value"] for p in stack["pirates"]] == [2, "?", 5, 3]


# --- turns -------------------------------------------------------------------------------


def test_c_turn_1_the_active_player_must_move_or_board_when_possible() -> None:
    """C-TURN-1: the legal list holds moves and boardings, never skip, while either exists."""
    state = situation(parties=[["0.2", "1.2"]], display=["C01", "C02", "C03"])
    legal = RULES.legal_actions(state, 0)
    assert {a["type"] for a in legal} == {"move", "board"}
    assert RULES.forced_action(state, 0) is None
    with pytest.raises(IllegalAction, match="only skip when you can neither move nor board"):
        RULES.apply(state, 0, {"type": "skip"})
    assert RULES.legal_actions(state, 1) == [] and RULES.forced_action(state, 1) is None
    for nobody in (-1, 4, None, "0"):
        assert RULES.legal_actions(state, nobody) == []  # type: ignore[arg-type]


def test_c_turn_1_a_player_controlling_nothing_skips_and_the_service_applies_it() -> None:
    """C-TURN-1: a player controlling no stack and no single pirate has `skip` as its only
    action, which forced_action hands to the service."""
    parties = [["1.2", "0.2", "0.3"], ["2.2", "0.4", "0.5", "0.Q"]]
    state = situation(3, parties=parties, display=["C08", "C09", "C10"])
    assert RULES.legal_actions(state, 0) == [{"type": "skip"}]
    assert RULES.forced_action(state, 0) == {"type": "skip"}
    step = RULES.step(state, 0, {"type": "skip"})
    assert step.text == "Red can neither move nor board and skips."
    assert step.state.skips == 1 and step.state.active == 1 and not step.state.end


def test_c_turn_1_a_full_round_of_skips_ends_the_game() -> None:
    """C-TURN-1: n skips in a row in an n-player game end it, scored as it stands."""
    nine = custom_ships({"C13": {"min_crew": 9}, "C14": {"min_crew": 9}, "C15": {"min_crew": 9}})
    parties = [
        ["0.2", "1.3", "1.4", "1.5", "1.Q", "2.2", "2.3", "2.4"],
        ["1.2", "0.3", "0.4", "0.5", "0.Q", "2.5", "2.Q"],
    ]
    state = situation(3, parties=parties, display=["C13", "C14", "C15"], card_set=nine, treasury=[3, 9, 4])
    for seat in (0, 1, 2):
        assert RULES.to_act(state) == [seat]
        assert RULES.forced_action(state, seat) == {"type": "skip"}
        step = RULES.step(state, seat, {"type": "skip"})
        state = step.state
    assert (
        step.text == "Green can neither move nor board and skips; after a full round of skips the game ends."
    )
    assert RULES.view(state, None)["end_reason"] == "full_round_of_skips"
    assert RULES.result(state) == {"scores": [3, 9, 4], "winners": [1]}
    assert RULES.to_act(state) == [] and RULES.forced_action(state, 0) is None


def test_c_turn_1_a_move_or_boarding_breaks_the_run_of_skips() -> None:
    """C-TURN-1: only skips in a row count."""
    state = situation(parties=[["0.2", "1.2"]], skips=3)
    after = RULES.apply(state, 0, move("0.3", "2.2"))
    assert after.skips == 0 and not after.end


def test_c_turn_1_challenge_answers_neither_count_towards_nor_break_a_run_of_skips() -> None:
    """C-TURN-1: a decline or a challenge leaves the run of skips as it was."""
    state = situation(
        parties=[["1.2", "0.2", "0.3", "0.4"]], display=["C08", "C01", "C02"], active=1, skips=2
    )
    assert RULES.to_act(state) == [0]
    after = RULES.apply(state, 0, {"type": "decline"})
    assert after.skips == 2 and not after.end
    challenged = RULES.apply(state, 0, {"type": "challenge", "party": "1.2"})
    assert challenged.skips == 2


def test_c_turn_2_the_game_ends_at_1000_actions() -> None:
    """C-TURN-2: the 1,000th action of any kind ends the game, scored as it stands."""
    state = situation(actions=999, treasury=[10, 12, 10, 12])
    after = RULES.apply(state, 0, move("0.2", "1.2"))
    assert after.end == "action_limit" and RULES.to_act(after) == []
    assert RULES.result(after) == {"scores": [10, 12, 10, 12], "winners": [1, 3]}
    assert RULES.step(state, 0, move("0.2", "1.2")).text.endswith(
        "; the game has reached its action limit and ends."
    )
    window = situation(parties=[["1.2", "0.2", "0.3", "0.4"]], display=["C08", "C01", "C02"], active=1)
    answered = RULES.apply(window._replace(actions=999), 0, {"type": "decline"})
    assert answered.end == "action_limit" and RULES.view(answered, None)["challenge"] is None


# --- notation ----------------------------------------------------------------------------


def test_c_act_every_listed_action_has_exactly_the_notation_keys() -> None:
    """C-ACT: move, board, challenge, decline and skip, with exactly their keys; numbers and
    ids as P-ACT."""
    keys = {
        "move": {"type", "party", "onto"},
        "board": {"type", "party", "ship", "booty"},
        "challenge": {"type", "party"},
        "decline": {"type"},
        "skip": {"type"},
    }
    state = situation(parties=[["0.2", "1.2", "1.3", "2.4"]], display=["C07", "C01", "C05"])
    listed = RULES.legal_actions(state, 0)
    assert {"type": "board", "party": "0.2", "ship": "C07", "booty": "rum"} in listed
    assert {"type": "board", "party": "0.2", "ship": "C01", "booty": None} in listed
    assert {"type": "move", "party": "0.3", "onto": "1.5"} in listed
    window = situation(parties=[["1.2", "0.2", "0.3", "0.4"]], display=["C08", "C01", "C02"], active=1)
    assert RULES.legal_actions(window, 0) == [{"type": "challenge", "party": "1.2"}, {"type": "decline"}]
    for action in [*listed, *RULES.legal_actions(window, 0), {"type": "skip"}]:
        assert set(action) == keys[action["type"]]


def test_c_act_legal_order_is_moves_then_boardings() -> None:
    """C-ACT: moves first (by captain id, then target), then boardings (by captain id, ship
    in display order, booty as the ship shows it)."""
    state = situation(parties=[["0.2", "1.2", "1.3"]], display=["C07", "C01", "C04"])
    legal = RULES.legal_actions(state, 0)
    types = [a["type"] for a in legal]
    assert types == sorted(types, key=["move", "board"].index)
    boards = [(a["ship"], a["booty"]) for a in legal if a["type"] == "board"]
    assert boards == [("C07", "rum"), ("C07", "chest"), ("C01", None), ("C04", "dagger"), ("C04", "rum")]
    assert len(legal) == len({tuple(sorted(a.items(), key=str)) for a in legal})
    assert RULES.legal_actions(state, 0) == legal


ILLEGAL: list[tuple[Any, Any, str]] = [
    (0, [], "An action must be a JSON object"),
    (0, {"type": "assemble", "party": "0.2", "onto": "1.2"}, "type must be one of: move, board"),
    (0, {"type": "move", "party": "0.2"}, "A move action needs onto"),
    (0, {"type": "move", "party": "0.2", "onto": "1.2", "card": "C01"}, "A move action has no card"),
    (0, {"type": "move", "party": 2, "onto": "1.2"}, 'such as "0.3", not 2'),
    (0, {"type": "move", "party": "0.2", "onto": "1.9"}, "such as"),
    (0, {"type": "skip", "extra": True}, "A skip action has no extra"),
    (1, {"type": "move", "party": "1.2", "onto": "0.2"}, "It is Red's turn, not Blue's"),
    (True, {"type": "move", "party": "0.2", "onto": "1.2"}, "There is no seat True"),
    (4, {"type": "move", "party": "0.2", "onto": "1.2"}, "There is no seat 4"),
    (0, {"type": "board", "party": "0.2", "ship": 1, "booty": None}, "There is no ship 1"),
    (0, {"type": "board", "party": "0.2", "ship": "C99", "booty": None}, "There is no ship 'C99'"),
    (0, {"type": "decline"}, "Nobody has asked you whether you challenge"),
]


@pytest.mark.parametrize(("seat", "action", "message"), ILLEGAL)
def test_c_act_malformed_actions_are_refused_with_a_sentence(seat: Any, action: Any, message: str) -> None:
    """C-ACT / P-ACT: unknown keys, missing keys, wrong types and unknown ids are refused."""
    with pytest.raises(IllegalAction, match=message):
        RULES.apply(game(), seat, action)


def test_c_act_a_finished_game_takes_no_action() -> None:
    """C-ACT: after the end nothing is legal."""
    over = RULES.apply(situation(actions=999), 0, move("0.2", "1.2"))
    with pytest.raises(IllegalAction, match="The game is over"):
        RULES.apply(over, 1, move("1.3", "0.2"))
    assert all(RULES.legal_actions(over, s) == [] for s in range(4))
