"""Captain Lucky: components, setup and options (K-COMP, K-SET-1, K-SET-2)."""

from __future__ import annotations

import ast
import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import InvalidOptions
from engine.captain_lucky import RULE_SETS, CaptainLuckyRules
from engine.captain_lucky.cards import DATA, KINDS, composition, unshuffled_pile, validate
from tests.engine.captain_lucky_support import RULES, deck, shuffled_deck
from tests.source import parse


def test_k_comp_1_the_packs_hold_the_cards_of_the_specification() -> None:
    """K-COMP-1: base pack 18/17/16/14/12 (77), extra pack 5/4/4/4/3 (20), kinds by id."""
    packs = {pack["id"]: pack for pack in DATA["packs"]}
    assert [k["id"] for k in DATA["kinds"]] == ["silver_coin", "gold_bar", "pearl", "ruby", "jade_fish"]
    assert list(packs["base"]["cards"].values()) == [18, 17, 16, 14, 12]
    assert list(packs["extra"]["cards"].values()) == [5, 4, 4, 4, 3]
    packs_for = [[pack["id"] for pack in DATA["packs"] if n in pack["players"]] for n in range(2, 7)]
    assert packs_for == [["base"]] * 3 + [["base", "extra"]] * 2
    assert [sum(composition(n)) for n in range(2, 7)] == [77, 77, 77, 97, 97]
    assert composition(6) == (23, 21, 20, 18, 15)
    assert validate(DATA) == []


def test_k_comp_1_the_data_validator_names_every_problem() -> None:
    """K-COMP-1: a broken data file is refused with every problem named."""
    broken = copy.deepcopy(DATA)
    broken["game"] = "pirates"
    broken["kinds"][0]["plural"] = ""
    broken["packs"][0]["cards"]["ruby"] = -1
    broken["packs"][1]["players"] = [7]
    problems = validate(broken)
    assert len(problems) == 4, problems
    assert validate([]) == ["the card data must be an object"]
    del broken["packs"]
    assert "packs must be a non-empty list" in validate(broken)


def test_k_comp_3_seat_0_is_captain_heart_and_starts() -> None:
    """K-COMP-3: every seat has a captain card; seat 0 plays Captain Heart and starts."""
    for players in range(2, 7):
        state = RULES.new_game(players, players)
        view = RULES.view(state, None)
        assert RULES.to_act(state) == [0] and view["active"] == 0
        assert [s["captain_heart"] for s in view["seats"]] == [True] + [False] * (players - 1)
        assert not any(s["captain_bonus_used"] for s in view["seats"])


def test_k_set_1_two_to_six_players_and_the_declared_contract() -> None:
    """K-SET-1: 2-6 players; the rule set declares its option, chance and colours."""
    assert len(RULE_SETS) == 1 and isinstance(RULE_SETS[0], CaptainLuckyRules)
    assert engine.get_rules("captain-lucky", 1) is RULES
    assert ("captain-lucky", "Captain Lucky (2024)") in engine.available_rules()
    assert (RULES.min_players, RULES.max_players, RULES.version) == (2, 6, 1)
    assert RULES.chance_in_play and not RULES.simultaneous
    assert len(RULES.colours) >= 6 and RULES.seat_colours(6)[5] == "purple"
    (option,) = RULES.options
    assert (option.name, option.secret, option.fixes_chance) == ("deck", True, True)
    for bad in (1, 7, 0, "4", 4.0, True):
        with pytest.raises(InvalidOptions):
            RULES.new_game(bad, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"first_seat": 1}, "Unknown options: first_seat"),
        ({"deck": "ruby"}, "deck must be a list of kinds"),
        ({"deck": ["diamond", *deck(4)[1:]]}, "unknown kinds diamond"),
        ({"deck": deck(4)[1:]}, "exactly the packs for 4 players"),
        ({"deck": deck(5)}, "exactly the packs for 4 players"),
        ({"deck": ["ruby", *deck(4)[1:]]}, "exactly the packs for 4 players"),
    ],
)
def test_k_set_1_the_deck_option_must_hold_exactly_the_packs(options: dict[str, Any], message: str) -> None:
    """K-SET-1: option deck is an explicit order of exactly the packs in play."""
    with pytest.raises(InvalidOptions, match=message):
        RULES.new_game(4, 1, options)
    with pytest.raises(InvalidOptions, match="seed"):
        RULES.new_game(4, 1.5)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptions, match="options must be an object"):
        RULES.new_game(4, 1, ["deck"])  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_k_set_1_the_shuffle_uses_the_packs_for_the_player_count(players: int) -> None:
    """K-SET-1, K-TURN-7: the game's generator shuffles the packs in play, in data order."""
    seed = f"setup-{players}"
    state = RULES.new_game(players, seed)
    pile = unshuffled_pile(players)
    rng = random.Random(seed)
    rng.shuffle(pile)
    assert state.pile == tuple(pile[players * 5 + 3 :])
    assert state.rng_state == rng.getstate(), "the shuffle is the only draw at setup"
    assert RULES.view(state, None)["card_count"] == sum(composition(players))


def test_k_set_2_deal_five_per_seat_in_order_then_three_face_up() -> None:
    """K-SET-2: seat 0 takes the top 5, seat 1 the next 5; then 3 face up, equal kinds join."""
    top = ["ruby"] * 5 + ["pearl"] * 5 + ["jade_fish", "gold_bar", "jade_fish"]
    state = RULES.new_game(2, 1, {"deck": deck(2, *top)})
    assert state.hands[0] == (0, 0, 0, 5, 0) and state.hands[1] == (0, 0, 5, 0, 0)
    view = RULES.view(state, None)
    assert view["middle"] == [
        {"id": "m1", "kind": "jade_fish", "cards": 2, "complete": False},
        {"id": "m2", "kind": "gold_bar", "cards": 1, "complete": False},
    ]
    assert view["pile_count"] == 77 - 13
    assert [KINDS[k] for k in state.pile] == deck(2, *top)[13:]


def test_k_set_2_a_seed_deals_the_same_game_every_time() -> None:
    """K-SET-2, K-TURN-7: the same seed deals the same hands and middle; str seeds too."""
    for seed in (7, "seven", -3, 2**80):
        first, again = RULES.new_game(5, seed), RULES.new_game(5, seed)
        assert RULES.dump(first) == RULES.dump(again)
        assert RULES.new_game(5, seed, {"deck": shuffled_deck(5, seed)}) == first
    assert RULES.new_game(4, 1).pile != RULES.new_game(4, 2).pile


def test_k_turn_7_a_str_seed_deals_the_same_pile_in_every_process() -> None:
    """K-TURN-7: random.Random(str) seeds from the string's bytes, not from hash(), so a str
    seed deals the same pile whatever PYTHONHASHSEED a process runs with."""
    code = (
        "import engine, json; s = engine.get_rules('captain-lucky').new_game(4, 'same everywhere'); "
        "print(json.dumps(s.pile))"
    )
    root = Path(__file__).resolve().parents[2]
    piles = set()
    for hash_seed in ("1", "2", "random"):
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        piles.add(done.stdout)
    assert piles == {json.dumps(list(RULES.new_game(4, "same everywhere").pile)) + "\n"}


def test_k_end_4_the_seed_is_never_to_be_revealed() -> None:
    """K-END-4: hands are secret for ever, and the seed (or a fixed deck) with the public log
    would give every hand away: the rule set tells the platform not to reveal them."""
    assert RULES.reveal_seed_at_end is False
    assert all(option.secret for option in RULES.options)


def test_k_turn_7_no_clock_and_no_global_randomness() -> None:
    """K-TURN-7: the game's own generator is the only source of chance; nothing reads a clock."""
    package = Path(__file__).resolve().parents[2] / "engine" / "captain_lucky"
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "random":
                    assert node.attr == "Random", (path.name, node.attr)
                assert node.value.id not in ("time", "datetime", "os", "secrets"), (path.name, node.value.id)
            if isinstance(node, ast.ImportFrom):
                assert node.module not in ("time", "datetime", "random", "secrets"), (path.name, node.module)
