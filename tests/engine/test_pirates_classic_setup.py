"""Pirates (classic): what the rule set declares, setup (C-SET-1 … C-SET-4), the options and
the view."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import engine
from engine import IllegalAction, InvalidOptions
from engine.pirates_classic import RULE_SETS, PiratesClassicRules
from engine.pirates_classic.cards import KINDS
from tests.engine.pirates_classic_support import ALL_SHIPS, RULES, SHIPS, deck, game, json_round_trip


def test_rule_set_declares_what_the_platform_needs() -> None:
    """C-SET-1, C-SET-4, C-MUT-2: id, version, players, options, simultaneous answers."""
    assert isinstance(RULE_SETS[0], PiratesClassicRules)
    assert engine.get_rules("pirates-classic", 1) is RULES
    assert ("pirates-classic", "Pirates (classic)") in engine.available_rules()
    assert (RULES.id, RULES.version, RULES.min_players, RULES.max_players) == ("pirates-classic", 1, 3, 5)
    assert RULES.simultaneous and not RULES.chance_in_play
    options = {o.name: o for o in RULES.options}
    assert list(options) == ["card_set", "deck", "first_seat"]
    assert not options["card_set"].secret and not options["card_set"].fixes_chance
    for name in ("deck", "first_seat"):
        assert options[name].secret and options[name].fixes_chance
    assert RULES.seat_colours(5) == ["red", "blue", "green", "yellow", "black"]


def test_c_set_1_three_to_five_players_each_with_five_pirates_and_ten_ducats() -> None:
    """C-SET-1: 3-5 players; pirates 2, 3, 4, 5, ? of one colour each, all single; 10 ducats."""
    for players in (3, 4, 5):
        state = RULES.new_game(players, "setup")
        view = RULES.view(state, None)
        assert [s["treasury"] for s in view["seats"]] == [10] * players
        assert all(stack["size"] == 1 for stack in view["stacks"])
        pirates = [p for stack in view["stacks"] for p in stack["pirates"]]
        assert len(pirates) == 5 * players
        for seat in range(players):
            assert [p["value"] for p in pirates if p["seat"] == seat] == [2, 3, 4, 5, "?"]
    wrong: list[Any] = [2, 6, True, 4.0, "4"]
    for players in wrong:
        with pytest.raises(InvalidOptions, match="3 to 5 players"):
            RULES.new_game(players, "setup")


def test_c_set_1_pirates_of_unused_colours_are_out_of_the_game() -> None:
    """C-SET-1: in a 3-player game there is no Yellow or Black pirate."""
    state = game(3)
    with pytest.raises(IllegalAction, match=r"There is no pirate '3\.2' in this game"):
        RULES.apply(state, 0, {"type": "move", "party": "0.2", "onto": "3.2"})
    assert "3.2" not in str(RULES.view(state, None)["stacks"])


def test_c_set_2_fifteen_ships_shuffled_three_face_up() -> None:
    """C-SET-2: 15 ship cards, each with minimum crew 2-9, ducats, one or two booty pieces
    and the "?" pay; the top 3 are face up, the rest a face-down deck."""
    assert len(SHIPS) == 15
    for ship in range(15):
        card = SHIPS.ship_json(ship)
        assert set(card) == {"id", "name", "min_crew", "ducats", "booty", "question_pay"}
        assert 2 <= card["min_crew"] <= 9 and card["ducats"] >= 0 and card["question_pay"] >= 0
        assert 1 <= len(card["booty"]) <= 2
    view = RULES.view(game(4, "C07", "C01", "C12"), None)
    assert [s["id"] for s in view["display"]] == ["C07", "C01", "C12"]
    assert (view["deck_count"], view["ship_count"], view["boarded"]) == (12, 15, [])
    decks = {tuple(RULES.new_game(4, seed).deck) for seed in range(20)}
    assert len(decks) == 20, "the seed shuffles the deck"


def test_c_set_3_twenty_four_booty_pieces_six_of_each_kind() -> None:
    """C-SET-3: 6 each of chest, rum, candlestick and dagger, named so in actions and data."""
    assert KINDS == ("chest", "rum", "candlestick", "dagger")
    view = RULES.view(game(), None)
    assert view["supply"] == dict.fromkeys(KINDS, 6)
    assert all(seat["booty"] == dict.fromkeys(KINDS, 0) for seat in view["seats"])
    assert Counter(kind for booty in SHIPS.booty for kind in booty) == dict.fromkeys(KINDS, 6)


def test_c_set_4_the_seed_chooses_the_deal_and_the_first_seat() -> None:
    """C-SET-4: the same seed deals the same game; the starting seat is drawn from the seed;
    play goes in seat order."""
    assert RULES.dump(RULES.new_game(4, "same")) == RULES.dump(RULES.new_game(4, "same"))
    firsts = Counter(RULES.new_game(4, seed).active for seed in range(60))
    assert set(firsts) == {0, 1, 2, 3}
    state = game(4, first_seat=2)
    assert RULES.to_act(state) == [2]
    for expected in (3, 0, 1, 2):
        state = RULES.apply(state, state.active, RULES.legal_actions(state, state.active)[0])
        assert RULES.to_act(state) == [expected]


def test_c_set_4_deck_and_first_seat_options_fix_the_deal() -> None:
    """C-SET-4: `deck` (every ship id, top first) and `first_seat` replace the draws; the seed
    still drives the same draws, so the rest of a seeded game is unchanged."""
    fixed = RULES.new_game(5, "s", {"deck": deck("C15", "C14", "C13", "C12"), "first_seat": 4})
    assert [SHIPS.ids[s] for s in fixed.display] == ["C15", "C14", "C13"]
    assert SHIPS.ids[fixed.deck[0]] == "C12" and fixed.active == 4
    drawn = RULES.new_game(5, "s")
    assert RULES.new_game(5, "s", {"first_seat": 4}).deck == drawn.deck
    assert RULES.new_game(5, "s", {"deck": deck()}).active == drawn.active
    assert fixed.rng_state == drawn.rng_state


BAD_OPTIONS: list[tuple[Any, str]] = [
    ({"colour": "red"}, "Unknown options: colour; known: card_set, deck, first_seat"),
    ({"deck": "C01"}, "deck must be a list of ship ids"),
    ({"deck": [*ALL_SHIPS[:-1], "X99"]}, "unknown ship ids X99"),
    ({"deck": ALL_SHIPS[:-1]}, "each of the 15 ships exactly once"),
    ({"deck": [*ALL_SHIPS[:-1], ALL_SHIPS[0]]}, "each of the 15 ships exactly once"),
    ({"first_seat": 4}, "first_seat must be a seat number from 0 to 3"),
    ({"first_seat": True}, "first_seat must be a seat number"),
    ({"first_seat": "1"}, "first_seat must be a seat number"),
    ({"card_set": "pirates-2021-estimate"}, "Unknown card set 'pirates-2021-estimate'"),
    ({"card_set": 3}, "card_set must be the id of a bundled card set or a card-set object"),
    ([1], "options must be an object"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_c_set_4_bad_options_are_refused_with_a_sentence(options: Any, message: str) -> None:
    """C-SET-4: every option is checked; a mistake is an InvalidOptions naming it."""
    with pytest.raises(InvalidOptions, match=message):
        RULES.new_game(4, 1, options)


def test_seed_must_be_a_whole_number_or_a_string() -> None:
    """C-SET-4: the game's seed is an int or a str."""
    for seed in (1.5, None, [1]):
        with pytest.raises(InvalidOptions, match="seed must be"):
            RULES.new_game(4, seed, {})  # type: ignore[arg-type]


def test_view_keys_for_the_table() -> None:
    """The view carries the keys engine/pirates_classic/README.md documents."""
    view = RULES.view(game(5, first_seat=2), 1)
    assert set(view) == {
        "rules", "version", "title", "viewer", "players", "colours", "status", "end_reason", "active",
        "to_act", "action_count", "action_limit", "skips_in_a_row", "card_set", "display", "deck_count",
        "boarded", "ship_count", "supply", "seats", "stacks", "challenge", "result", "scoring",
    }  # fmt: skip
    assert (view["rules"], view["version"], view["title"]) == ("pirates-classic", 1, "Pirates (classic)")
    assert view["viewer"] == 1 and view["active"] == 2 and view["to_act"] == [2]
    assert view["status"] == "running" and view["result"] is None and view["scoring"] is None
    assert view["challenge"] is None and view["end_reason"] is None
    assert view["colours"] == ["red", "blue", "green", "yellow", "black"]
    assert set(view["seats"][0]) == {"seat", "colour", "treasury", "booty", "stacks"}
    assert set(view["stacks"][0]) == {"id", "controller", "size", "pirates"}
    assert set(view["card_set"]) == {"id", "note", "majority_bonus"}
    assert view["card_set"]["majority_bonus"] == {"chest": 15, "rum": 9, "candlestick": 12, "dagger": 6}
    assert "Estimated" in view["card_set"]["note"]
    assert json_round_trip(view) == view


def test_every_viewer_sees_the_same_table() -> None:
    """C-END: treasuries and booty are public; the classic game hides only the deck."""
    state = game()
    spectator = RULES.view(state, None)
    for seat in range(4):
        assert {**RULES.view(state, seat), "viewer": None} == spectator
