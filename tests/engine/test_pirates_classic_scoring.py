"""Pirates (classic): final scoring (C-END-1 … C-END-3) and the greedy bot's evaluation."""

from __future__ import annotations

from engine.pirates_classic.scoring import booty_ducats, score_sheet
from tests.engine.pirates_classic_support import RULES, situation


def test_c_end_3_worked_example_two_chest_leaders_share_fifteen() -> None:
    """C-END-3: two players hold 2 chests each, two hold 1: the first two get 7 each of the
    15, the others 1 each."""
    assert booty_ducats([2, 2, 1, 1], 15) == [7, 7, 1, 1]
    state = situation(
        booty={0: {"chest": 2}, 1: {"chest": 2}, 2: {"chest": 1}, 3: {"chest": 1}}, treasury=[0] * 4
    )
    assert RULES.view(state, None)["card_set"]["majority_bonus"]["chest"] == 15
    assert [score.booty[0] for score in score_sheet(state)] == [7, 7, 1, 1]
    over = state._replace(end="action_limit")
    assert RULES.result(over) == {"scores": [7, 7, 1, 1], "winners": [0, 1]}


def test_c_end_1_the_single_leader_takes_the_whole_bonus_the_rest_one_per_piece() -> None:
    """C-END-1: most pieces (at least one) take the kind's bonus; every other holder gets 1
    ducat per piece; nobody gains for a kind nobody holds."""
    assert booty_ducats([3, 1, 0], 12) == [12, 1, 0]
    assert booty_ducats([0, 0, 0, 0], 9) == [0, 0, 0, 0]
    assert booty_ducats([1, 1, 1], 10) == [3, 3, 3], "the remainder of 10 / 3 is lost"
    assert booty_ducats([2, 2, 2, 2, 1], 6) == [1, 1, 1, 1, 1]
    state = situation(
        3,
        booty={0: {"rum": 3, "dagger": 1}, 1: {"rum": 1, "dagger": 1, "candlestick": 2}, 2: {"chest": 1}},
        treasury=[5, 6, 7],
    )
    sheet = [score.as_json() for score in score_sheet(state)]
    assert sheet[0] == {
        "treasury": 5,
        "booty": {"chest": 0, "rum": 9, "candlestick": 0, "dagger": 3},
        "total": 17,
    }
    assert sheet[1] == {
        "treasury": 6,
        "booty": {"chest": 0, "rum": 1, "candlestick": 12, "dagger": 3},
        "total": 22,
    }
    assert sheet[2] == {
        "treasury": 7,
        "booty": {"chest": 15, "rum": 0, "candlestick": 0, "dagger": 0},
        "total": 22,
    }


def test_c_end_2_most_ducats_wins_and_ties_share_the_win() -> None:
    """C-END-2: the highest total wins; tied players all win."""
    state = situation(3, booty={2: {"chest": 1}}, treasury=[20, 35, 20])
    assert RULES.result(state) is None, "no result while the game runs"
    over = state._replace(end="full_round_of_skips")
    assert RULES.result(over) == {"scores": [20, 35, 35], "winners": [1, 2]}
    view = RULES.view(over, 0)
    assert view["result"] == RULES.result(over) and view["status"] == "finished"
    assert [s["total"] for s in view["scoring"]] == [20, 35, 35]


def test_greedy_evaluation_is_score_now_less_the_best_opponent() -> None:
    """The greedy bot's evaluate: ducats if the game ended now, majorities included, minus the
    best opponent's."""
    state = situation(3, booty={0: {"dagger": 1}, 1: {"dagger": 2}}, treasury=[30, 20, 25])
    # Totals: Red 30 + 1, Blue 20 + 6, Green 25.
    assert RULES.evaluate(state, 0) == 31 - 26
    assert RULES.evaluate(state, 1) == 26 - 31
    assert RULES.evaluate(state, 2) == 25 - 31
