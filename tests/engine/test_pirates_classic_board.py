"""Pirates (classic): boarding a ship (C-BOARD-1 … C-BOARD-5), its booty (P-CAP-2 and the
`booty: null` rule of P-ACT)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import IllegalAction
from tests.engine.pirates_classic_support import (
    ALL_SHIPS,
    RULES,
    SHIPS,
    booty_of,
    custom_ships,
    situation,
    stacks,
)


def board(party: str, ship: str, booty: str | None = None) -> dict[str, Any]:
    return {"type": "board", "party": party, "ship": ship, "booty": booty}


def test_c_board_1_a_stack_the_player_captains_with_the_minimum_crew() -> None:
    """C-BOARD-1: the stack must be the active player's, hold at least the ship's minimum crew,
    and the ship must be face up."""
    state = situation(parties=[["0.2", "1.3", "2.4"], ["1.2", "0.3", "3.3"]], display=["C08", "C01", "C05"])
    with pytest.raises(IllegalAction, match="That stack has 3 pirates; the Xebec Al-Bahr needs 4"):
        RULES.apply(state, 0, board("0.2", "C08"))
    with pytest.raises(IllegalAction, match="That stack has 1 pirate; the Pinnace Dove needs 2"):
        RULES.apply(state, 0, board("0.4", "C01"))
    with pytest.raises(IllegalAction, match="That stack is Blue's, not yours"):
        RULES.apply(state, 0, board("1.2", "C05"))
    with pytest.raises(IllegalAction, match="The Galleon San Jose is not face up on the display"):
        RULES.apply(state, 0, board("0.2", "C12"))
    after = RULES.apply(state, 0, board("0.2", "C05"))
    assert [SHIPS.ids[s] for s in after.boarded] == ["C05"]
    boards = {(a["party"], a["ship"]) for a in RULES.legal_actions(state, 0) if a["type"] == "board"}
    assert boards == {("0.2", "C01"), ("0.2", "C05")}


def test_p_cap_2_the_captain_picks_the_booty_and_the_mates_owner_gets_the_other() -> None:
    """C-BOARD-2 / P-CAP-2 (adopted): with two kinds, the captain chooses one and the second
    pirate's owner takes the other."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["C07", "C01", "C02"])
    after = RULES.apply(state, 0, board("0.2", "C07", "chest"))
    assert booty_of(after, 0) == {"chest": 1} and booty_of(after, 1) == {"rum": 1}
    assert booty_of(after, 2) == {}
    other = RULES.apply(state, 0, board("0.2", "C07", "rum"))
    assert booty_of(other, 0) == {"rum": 1} and booty_of(other, 1) == {"chest": 1}
    assert RULES.view(other, None)["supply"] == {"chest": 5, "rum": 5, "candlestick": 6, "dagger": 6}


def test_p_cap_2_the_mate_gets_the_other_piece_also_when_it_is_the_captains_own() -> None:
    """P-CAP-2: a mate of the captain's own colour brings the second piece to the captain."""
    state = situation(parties=[["0.2", "0.3", "2.4"]], display=["C07", "C01", "C02"])
    after = RULES.apply(state, 0, board("0.2", "C07", "rum"))
    assert booty_of(after, 0) == {"rum": 1, "chest": 1}


def test_p_cap_2_with_one_kind_the_mate_gets_nothing() -> None:
    """P-CAP-2: a ship showing one booty piece gives it to the captain only."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["C05", "C01", "C02"])
    after = RULES.apply(state, 0, board("0.2", "C05"))
    assert booty_of(after, 0) == {"chest": 1} and booty_of(after, 1) == {}


def test_p_act_booty_is_null_exactly_when_there_is_nothing_to_choose() -> None:
    """P-ACT (`booty: null`): null for one kind or two equal kinds, else one of the kinds."""
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["C07", "C05", "C02"])
    with pytest.raises(IllegalAction, match="Choose the booty of the Brigantine Charity: rum or chest"):
        RULES.apply(state, 0, board("0.2", "C07"))
    with pytest.raises(IllegalAction, match="carries rum and chest, not 'dagger'"):
        RULES.apply(state, 0, board("0.2", "C07", "dagger"))
    with pytest.raises(IllegalAction, match="carries rum and chest, not 0"):
        RULES.apply(state, 0, board("0.2", "C07", 0))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="leaves no choice of booty: booty must be null"):
        RULES.apply(state, 0, board("0.2", "C05", "chest"))
    doubled = custom_ships({"C02": {"booty": ["rum", "rum"]}, "C04": {"booty": ["dagger"]}})
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["C02", "C05", "C01"], card_set=doubled)
    assert [a["booty"] for a in RULES.legal_actions(state, 0) if a.get("ship") == "C02"] == [None]
    after = RULES.apply(state, 0, board("0.2", "C02"))
    assert booty_of(after, 0) == {"rum": 1} and booty_of(after, 1) == {"rum": 1}


def test_c_board_3_ducats_first_then_every_other_players_pirate_is_paid() -> None:
    """C-BOARD-3: the captain takes the ship's ducats, then pays each pirate of another player
    its value, "?" the ship's "?" pay; the captain's own pirates are not paid."""
    # C09: 19 ducats, "?" pay 6. Pay: Blue 3 + Green ? (6) + Yellow 5; Red 4 unpaid.
    state = situation(parties=[["0.2", "1.3", "2.Q", "0.4", "3.5"]], display=["C09", "C01", "C02"])
    step = RULES.step(state, 0, board("0.2", "C09", "rum"))
    assert step.state.treasury == (10 + 19 - 14, 13, 16, 15)
    assert step.text == (
        "Red boards the Fluyt Zeeland with 5 pirates: 19 ducats and rum, Blue's mate gets candlestick, "
        "pays 14 ducats (Blue 3, Green 6, Yellow 5)."
    )


def test_c_board_3_what_the_treasury_cannot_cover_comes_from_the_supply() -> None:
    """C-BOARD-3: the captain ends at 0 but keeps the booty; every pirate is paid in full."""
    # C01: 10 ducats, "?" pay 2; pay 5 + 2 + 4 + 3 = 14 against 1 + 10.
    state = situation(
        parties=[["0.2", "1.5", "2.Q", "2.4", "3.3"]], display=["C01", "C02", "C03"], treasury=[1, 0, 0, 0]
    )
    step = RULES.step(state, 0, board("0.2", "C01"))
    assert step.state.treasury == (0, 5, 6, 3)
    assert booty_of(step.state, 0) == {"dagger": 1}
    assert step.text.endswith("pays 14 ducats (Blue 5, Green 6, Yellow 3), 3 of them from the supply.")


def test_c_board_3_a_stack_of_the_captains_own_pirates_pays_nobody() -> None:
    """C-BOARD-3: only other players' pirates are paid."""
    state = situation(parties=[["1.2", "0.2"], ["0.3", "0.4", "0.5"]], display=["C04", "C01", "C02"])
    step = RULES.step(state, 0, board("0.3", "C04", "dagger"))
    assert step.state.treasury == (23, 10, 10, 10)
    assert booty_of(step.state, 0) == {"dagger": 1, "rum": 1}
    assert step.text == (
        "Red boards the Barque Fortune with 3 pirates: 13 ducats and dagger, Red's mate gets rum, "
        "pays nobody."
    )


def test_c_board_4_the_ship_leaves_the_game_and_the_pirates_go_home_single() -> None:
    """C-BOARD-4: no ship is kept: it is out of the game; every pirate of the stack is single."""
    state = situation(parties=[["0.2", "1.3", "2.4"], ["1.2", "0.3"]], display=["C05", "C01", "C02"])
    after = RULES.apply(state, 0, board("0.2", "C05"))
    assert stacks(after) == [["1.2", "0.3"]]
    view = RULES.view(after, None)
    assert [s["id"] for s in view["boarded"]] == ["C05"]
    assert view["display"][0] is None and view["deck_count"] == 12
    assert "C05" not in [a.get("ship") for a in RULES.legal_actions(after, 1)]


def test_c_board_4_three_new_ships_only_when_the_last_face_up_one_is_boarded() -> None:
    """C-BOARD-4: the display is refilled with the next 3 of the deck when its last ship goes."""
    state = situation(
        parties=[["0.2", "1.3", "2.4"]],
        display=[None, "C05", None],
        deck_rest=["C12", "C03", "C09"],
        boarded=["C01", "C02"],
    )
    step = RULES.step(state, 0, board("0.2", "C05"))
    assert [SHIPS.ids[s] for s in step.state.display] == ["C12", "C03", "C09"]
    assert len(step.state.deck) == 9
    assert step.text.endswith(
        "; the next ships come up: the Galleon San Jose, the Hoy Saint Nicholas and the Fluyt Zeeland."
    )
    half = situation(parties=[["0.2", "1.3", "2.4"]], display=["C01", "C05", None], boarded=["C02"])
    after = RULES.apply(half, 0, board("0.2", "C05"))
    assert [SHIPS.ids[s] if s >= 0 else None for s in after.display] == ["C01", None, None]


def test_c_board_5_the_game_ends_when_all_fifteen_ships_are_boarded() -> None:
    """C-BOARD-5: boarding the 15th ship ends the game, which is then scored."""
    boarded = [s for s in ALL_SHIPS if s != "C15"]
    state = situation(
        parties=[["0.2", "1.3", "2.4", "3.5", "1.2", "2.2"]], display=[None, None, "C15"], boarded=boarded
    )
    step = RULES.step(state, 0, board("0.2", "C15", "chest"))
    assert step.state.end == "all_ships_boarded" and RULES.to_act(step.state) == []
    assert step.text.endswith("; that was the last ship, so the game ends.")
    view = RULES.view(step.state, None)
    assert view["status"] == "finished" and view["deck_count"] == 0 and len(view["boarded"]) == 15
    assert RULES.result(step.state) is not None
