"""Final scoring (P-END), the black spot (P-SPOT) and the sea monster's exemption (P-SEA-2)."""

from __future__ import annotations

import random
from typing import Any

from engine.bots import next_move
from engine.pirates.scoring import score_sheet, totals, wheel_rate
from engine.pirates.state import PiratesState
from tests.engine.pirates_support import RULES, situation

RATES: dict[int, tuple[int, ...]] = {3: (0, 2, 4, 6, 10), 4: (2, 4, 6, 10, 15), 5: (3, 6, 10, 15, 20)}


def finished(players: int = 4, **kwargs: Any) -> PiratesState:
    """A state scored as it stands (as after a full round of passes)."""
    return situation(players, end="full_round_of_passes", **kwargs)


def scores(state: PiratesState) -> list[int]:
    result = RULES.result(state)
    assert result is not None
    return result["scores"]


def test_p_end_1_majority_bonus_to_every_leader_and_one_ducat_per_token_to_others() -> None:
    """P-END-1: most tokens of a kind earn the bonus (ties all earn it); others 1 per token."""
    # Bonuses: saber 6, rum 8, relics 10, chest 12.
    state = finished(
        booty={0: {"saber": 2, "rum": 1}, 1: {"saber": 2, "chest": 1}, 2: {"saber": 1, "rum": 3}},
        treasury=[0, 0, 0, 0],
    )
    sheet = score_sheet(state)
    assert sheet[0].majority == {"saber": 6, "rum": 1, "relics": 0, "chest": 0}
    assert sheet[1].majority == {"saber": 6, "rum": 0, "relics": 0, "chest": 12}
    assert sheet[2].majority == {"saber": 1, "rum": 8, "relics": 0, "chest": 0}
    assert scores(state) == [7, 18, 9, 0]


def test_p_end_1_no_tokens_of_a_kind_earn_no_bonus() -> None:
    """P-END-1: a majority needs at least one token."""
    state = finished(treasury=[0, 0, 0, 0])
    assert scores(state) == [0, 0, 0, 0]


def test_p_end_2_most_anchor_and_wheel_tokens_add_one_each() -> None:
    """P-END-2: most anchor tokens add an anchor, most wheel tokens a wheel; other tokens 1 ducat."""
    state = finished(
        booty={0: {"anchor": 2, "wheel": 1}, 1: {"anchor": 1, "wheel": 1}},
        kept={0: ["S01", "R01"], 1: ["S03"]},
        treasury=[0, 0, 0, 0],
    )
    sheet = score_sheet(state)
    # Red: 1 anchor printed + 1 = 2; wheels 1 printed + 1 (tied most wheel tokens) = 2.
    assert (sheet[0].anchors, sheet[0].wheels, sheet[0].token_ducats) == (2, 2, 0)
    assert sheet[0].wheel_ducats == 2 * 6
    # Blue: anchor token earns 1 ducat; tied for wheels: 1 printed + 1 = 2 wheels at 0 anchors.
    assert (sheet[1].anchors, sheet[1].wheels, sheet[1].token_ducats) == (0, 2, 1)
    assert sheet[1].wheel_ducats == 2 * 2
    assert scores(state) == [12, 5, 0, 0]


def test_p_end_2_only_kept_ruins_carry_anchors_and_kept_ships_wheels() -> None:
    """P-END-2: anchors come from kept lost ruins, wheels from kept ships; discards count nothing."""
    state = finished(kept={2: ["S07", "S12", "R05", "M01"]}, discarded=["S09", "R06"], treasury=[0, 0, 0, 0])
    sheet = score_sheet(state)
    assert (sheet[2].anchors, sheet[2].wheels) == (2, 4)
    assert sheet[2].wheel_ducats == 4 * 6


def test_p_end_3_rulebook_example_two_anchors_four_wheels_is_24() -> None:
    """P-END-3: rulebook example, 4 players, 2 anchors and 4 wheels: 6 per wheel = 24 ducats."""
    assert wheel_rate(RATES, 4, 2) * 4 == 24
    state = finished(kept={0: ["S07", "S09", "R01", "R02"]}, treasury=[0, 0, 0, 0])
    assert (score_sheet(state)[0].anchors, score_sheet(state)[0].wheels) == (2, 4)
    assert scores(state)[0] == 24


def test_p_end_3_rulebook_example_sixty_ducats() -> None:
    """P-END-3: rulebook example: 4 ships and 2 lost ruins with 6 wheels and 2 anchors, plus
    the most anchor tokens: 3 anchors, 10 per wheel, 6 wheels = 60 ducats."""
    state = finished(
        kept={1: ["S07", "S09", "S01", "S03", "R01", "R02"]}, booty={1: {"anchor": 1}}, treasury=[0, 0, 0, 0]
    )
    sheet = score_sheet(state)
    assert (sheet[1].anchors, sheet[1].wheels) == (3, 6)
    assert sheet[1].wheel_ducats == 60
    assert scores(state)[1] == 60


def test_p_end_3_rate_table_by_players_and_anchors_with_four_or_more_in_the_last_column() -> None:
    """P-END-3: the rate comes from the card set's table; 4+ anchors use the last column."""
    for players, row in RATES.items():
        for anchors in range(7):
            assert wheel_rate(RATES, players, anchors) == row[min(anchors, 4)]
    five = finished(5, kept={0: ["S01", "R05", "R06"]}, treasury=[0] * 5)
    assert scores(five)[0] == 1 * 20  # 4 anchors, 5 players
    three = finished(3, kept={0: ["S01"]}, treasury=[0] * 3)
    assert scores(three)[0] == 0  # 0 anchors, 3 players: wheels are worth nothing


def test_p_end_4_black_spot_after_the_other_steps() -> None:
    """P-END-4: the black spot penalty comes after P-END-1…3, so those ducats can pay it."""
    state = finished(booty={3: {"chest": 1}}, treasury=[0, 0, 0, 0], black_spot=3)
    assert scores(state)[3] == 12 - 10


def test_p_spot_1_holder_pays_ten_down_to_zero() -> None:
    """P-SPOT-1: the holder loses 10 ducats, never going below 0."""
    assert scores(finished(treasury=[25, 5, 5, 5], black_spot=0)) == [15, 5, 5, 5]
    assert scores(finished(treasury=[4, 5, 5, 5], black_spot=0)) == [0, 5, 5, 5]
    assert score_sheet(finished(treasury=[4, 5, 5, 5], black_spot=0))[0].black_spot_penalty == 4


def test_p_sea_2_kept_sea_monster_exempts_from_the_black_spot() -> None:
    """P-SEA-2: keeping the sea monster exempts its owner from the black spot."""
    assert scores(finished(treasury=[25, 5, 5, 5], black_spot=0, kept={0: ["M01"]})) == [25, 5, 5, 5]


def test_p_sea_2_discarded_sea_monster_exempts_nobody() -> None:
    """P-SEA-2: a discarded sea monster exempts nobody; another's kept monster neither."""
    assert scores(finished(treasury=[25, 5, 5, 5], black_spot=0, discarded=["M01"])) == [15, 5, 5, 5]
    assert scores(finished(treasury=[25, 5, 5, 5], black_spot=0, kept={1: ["M01"]})) == [15, 5, 5, 5]


def test_p_end_5_most_ducats_wins() -> None:
    """P-END-5: the player with the most ducats wins."""
    assert RULES.result(finished(treasury=[5, 9, 7, 5])) == {"scores": [5, 9, 7, 5], "winners": [1]}


def test_p_end_5_tie_goes_to_the_best_kept_card() -> None:
    """P-END-5: among tied players, the best single kept card wins (not the sum)."""
    # Red keeps S01 (8) + S02 (9); Blue keeps R02 (10). Set treasuries so totals tie.
    state = finished(kept={0: ["S01", "S02"], 1: ["R02"]}, treasury=[0, 0, 0, 0])
    sheet = score_sheet(state)
    assert sheet[0].total != sheet[1].total
    state = state._replace(treasury=(sheet[1].total, sheet[0].total, 0, 0))
    result = RULES.result(state)
    assert result is not None and result["scores"][0] == result["scores"][1]
    assert result["winners"] == [1]


def test_p_end_5_tied_players_without_kept_cards_share() -> None:
    """P-END-5 clarification: tied players with no cards at all share the win; a kept card
    (here one worth no points) still breaks the tie."""
    even = finished(treasury=[10, 10, 3, 10])
    assert RULES.result(even) == {"scores": [10, 10, 3, 10], "winners": [0, 1, 3]}
    ruins = finished(treasury=[10, 10, 3, 10], kept={3: ["R01"]})
    assert RULES.result(ruins) == {"scores": [10, 10, 3, 10], "winners": [3]}


def test_p_end_5_kept_card_beats_no_card_at_equal_ducats() -> None:
    """P-END-5 clarification: a tied player with no kept card loses to one with a kept card."""
    # A kept S01 is worth 1 wheel at 0 anchors: 2 ducats with 4 players.
    state = finished(treasury=[12, 10, 0, 0], kept={1: ["S01"]})
    result = RULES.result(state)
    assert result == {"scores": [12, 12, 0, 0], "winners": [1]}


def test_p_end_5_equal_best_cards_share_the_win() -> None:
    """P-END-5 clarification: equal best kept cards mean the tied players share the win."""
    # S01 (8 ducats) and R01 (7): not equal; S03 (11) and R03 (11) are.
    state = finished(treasury=[10, 10, 0, 0], kept={0: ["S03"], 1: ["R03"]})
    sheet = score_sheet(state)
    state = state._replace(treasury=(10 + sheet[1].total - 10, 10 + sheet[0].total - 10, 0, 0))
    result = RULES.result(state)
    assert result is not None
    assert result["scores"][0] == result["scores"][1]
    assert result["winners"] == [0, 1]


def test_p_end_scoring_runs_in_order_and_is_shown_in_the_view() -> None:
    """P-END: the finished view carries the result and each seat's scoring breakdown."""
    state = finished(booty={0: {"rum": 1}}, kept={0: ["S01"]}, black_spot=0, treasury=[20, 5, 5, 5])
    view = RULES.view(state, None)
    breakdown = view["scoring"][0]
    assert breakdown["majority"]["rum"] == 8
    assert breakdown["wheel_ducats"] == 2
    assert breakdown["black_spot_penalty"] == 10
    assert breakdown["total"] == 20 + 8 + 2 - 10 == view["result"]["scores"][0]


def test_the_bots_totals_equal_the_score_sheets_totals() -> None:
    """``totals`` (what ``evaluate`` and ``score_now`` read) is the score sheet's total, in
    every position of some bot games, finished ones included."""
    rules = RULES
    for game, players in enumerate(rules.player_counts):
        state = rules.new_game(players, f"totals:{game}")
        rng = random.Random(game)
        while True:
            assert totals(state) == [score.total for score in score_sheet(state)]
            if rules.is_finished(state):
                break
            seat, action = next_move(rules, state, ["greedy"] * players, rng)
            state = rules.apply(state, seat, action)
