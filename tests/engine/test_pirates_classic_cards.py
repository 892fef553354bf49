"""Pirates (classic): the ship-set file and its validator (C-SET-5), one test per check."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import CardSetError, InvalidOptions
from engine.pirates_classic.cards import bundled_ship_set, ship_set_from_data, validate
from tests.engine.pirates_classic_support import RULES, custom_ships, json_round_trip

Data = dict[str, Any]


def changed(change: Callable[[Data], object]) -> Data:
    data = custom_ships({})
    change(data)
    return data


def ship(data: Data, ship_id: str) -> Data:
    return next(s for s in data["ships"] if s["id"] == ship_id)


def test_c_set_5_the_bundled_estimate_is_valid_and_says_it_is_an_estimate() -> None:
    """C-SET-5: the bundled ship set passes every check, keeps the shared ids and says it is an
    estimate (only the chest bonus of 15 is printed in the rules)."""
    data = bundled_ship_set().data
    assert validate(data) == []
    assert (data["id"], data["game"]) == ("pirates-classic-estimate", "pirates-classic")
    assert data["note"].startswith("Estimated values")
    assert [s["id"] for s in data["ships"]] == [f"C{n:02}" for n in range(1, 16)]
    assert data["majority_bonus"]["chest"] == 15
    bundled = Path(__file__).resolve().parents[2] / "engine" / "pirates_classic" / "data"
    assert json.loads((bundled / "pirates-classic-estimate.json").read_text("utf-8")) == data


def test_c_set_5_a_custom_ship_set_plays_and_travels_inside_dumps() -> None:
    """C-SET-5: a group's own valid ship set is accepted by the `card_set` option, played, and
    kept whole in snapshots; the bundled set is named by id."""
    data = custom_ships({"C01": {"ducats": 99, "name": "Pinnace Gold"}})
    state = RULES.new_game(4, 1, {"card_set": data, "deck": [s["id"] for s in data["ships"]]})
    shown = RULES.view(state, None)["display"][0]
    assert (shown["ducats"], shown["name"]) == (99, "Pinnace Gold")
    dumped = json_round_trip(RULES.dump(state))
    assert dumped["card_set"]["ships"][0]["ducats"] == 99
    assert RULES.dump(RULES.load(dumped)) == dumped
    assert RULES.dump(RULES.new_game(4, 1))["card_set"] == "pirates-classic-estimate"
    assert RULES.dump(RULES.new_game(4, 1, {"card_set": "pirates-classic-estimate"}))["card_set"] == (
        "pirates-classic-estimate"
    )


def test_c_set_5_names_are_optional() -> None:
    """C-SET-5 names no `name`: an unnamed ship is called by its id."""
    data = changed(lambda d: ship(d, "C03").pop("name"))
    ships = ship_set_from_data(data)
    assert ships.ship_json(ships.index["C03"])["name"] == "ship C03"


def test_c_set_5_equal_data_gives_one_shared_ship_set() -> None:
    """C-SET-5: ship sets are cached by content."""
    assert ship_set_from_data(custom_ships({})) is ship_set_from_data(custom_ships({}))


BAD: list[tuple[str, Callable[[Data], object], str]] = [
    ("missing keys", lambda d: d.pop("majority_bonus"), "missing keys: majority_bonus"),
    ("missing game", lambda d: d.pop("game"), "missing keys: game"),
    ("unknown keys", lambda d: d.update(colour="red"), "unknown keys: colour"),
    ("empty id", lambda d: d.update(id=" "), "id must be a non-empty string"),
    ("other game", lambda d: d.update(game="pirates"), "game must be 'pirates-classic', not 'pirates'"),
    ("note", lambda d: d.update(note=3), "note must be a string"),
    ("pirate values", lambda d: d.update(pirate_values=[1, 2, 3, 4, 5]), "pirate_values must be"),
    (
        "bonus not object",
        lambda d: d.update(majority_bonus=[6, 9, 12, 15]),
        "majority_bonus must be an object",
    ),
    ("bonus kinds", lambda d: d["majority_bonus"].pop("rum"), "exactly chest, rum, candlestick, dagger"),
    ("bonus negative", lambda d: d["majority_bonus"].update(rum=-1), "majority_bonus.rum must be"),
    ("bonus bool", lambda d: d["majority_bonus"].update(rum=True), "majority_bonus.rum must be"),
    ("ships not list", lambda d: d.update(ships={}), "ships must be a list"),
    ("ship count", lambda d: d["ships"].pop(), "there must be 15 ships, not 14"),
    ("ship not object", lambda d: d["ships"].__setitem__(0, "C01"), "ship 1 must be an object"),
    ("ship missing key", lambda d: ship(d, "C02").pop("question_pay"), "ship C02: missing question_pay"),
    ("ship unknown key", lambda d: ship(d, "C02").update(wheels=1), "ship C02: unknown wheels"),
    ("ship id format", lambda d: ship(d, "C02").update(id="C 02"), "id must be 1-16 letters"),
    ("ship id missing", lambda d: ship(d, "C02").pop("id"), "ship 2: missing id"),
    ("ship id twice", lambda d: ship(d, "C02").update(id="C01"), "ship C01: id is used twice"),
    ("ship name", lambda d: ship(d, "C02").update(name=""), "ship C02: name must be a non-empty string"),
    ("negative ducats", lambda d: ship(d, "C02").update(ducats=-1), "ship C02: ducats must be"),
    ("float pay", lambda d: ship(d, "C02").update(question_pay=2.5), "ship C02: question_pay must be"),
    ("bool ducats", lambda d: ship(d, "C02").update(ducats=True), "ship C02: ducats must be"),
    (
        "min crew 1",
        lambda d: ship(d, "C02").update(min_crew=1),
        "min_crew must be a whole number from 2 to 9",
    ),
    (
        "min crew 10",
        lambda d: ship(d, "C02").update(min_crew=10),
        "min_crew must be a whole number from 2 to 9",
    ),
    ("booty empty", lambda d: ship(d, "C02").update(booty=[]), "booty must list one or two of"),
    ("booty three", lambda d: ship(d, "C02").update(booty=["rum"] * 3), "booty must list one or two of"),
    ("booty kind", lambda d: ship(d, "C02").update(booty=["saber"]), "booty must list one or two of"),
    ("booty unhashable", lambda d: ship(d, "C02").update(booty=[["rum"]]), "booty must list one or two of"),
    ("pictured > 6", lambda d: ship(d, "C01").update(booty=["dagger", "rum"]), "rum is pictured 7 times"),
]


@pytest.mark.parametrize(("check", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_c_set_5_validation_check(check: str, change: Callable[[Data], object], message: str) -> None:
    """C-SET-5: every check refuses its mistake with a sentence, through the `card_set` option."""
    with pytest.raises(CardSetError, match=message.replace("(", r"\(")) as caught:
        RULES.new_game(4, 1, {"card_set": changed(change)})
    assert isinstance(caught.value, InvalidOptions) and "Card set" in str(caught.value)


def test_c_set_5_every_problem_is_reported_at_once() -> None:
    """C-SET-5: a ship set with several mistakes lists them all, like engine/pirates/cards.py."""
    data = changed(lambda d: d.pop("game"))
    ship(data, "C02")["min_crew"] = 0
    ship(data, "C03")["ducats"] = -5
    ship(data, "C04")["booty"] = ["gold"]
    with pytest.raises(CardSetError) as caught:
        ship_set_from_data(data)
    assert caught.value.card_set_id == "test-ships"
    assert caught.value.problems == [
        "missing keys: game",
        "ship C02: min_crew must be a whole number from 2 to 9",
        "ship C03: ducats must be a whole number of at least 0",
        "ship C04: booty must list one or two of chest, rum, candlestick, dagger",
    ]


def test_c_set_5_a_card_set_is_a_json_object_of_plain_json() -> None:
    """C-SET-5: anything but a JSON object is refused."""
    assert validate([1]) == ["a card set must be a JSON object"]
    with pytest.raises(CardSetError, match="must be a JSON object"):
        ship_set_from_data([1, 2])
    with pytest.raises(CardSetError, match="plain JSON"):
        ship_set_from_data({"id": "x", "ships": {1, 2}})
