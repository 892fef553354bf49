"""Card-set loading and validation ("Card set" in pirates.md): one test per check."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from engine import CardSetError, InvalidOptions
from engine.pirates.cards import bundled_card_set, card_set_from_data, validate
from tests.engine.pirates_support import RULES, json_round_trip


def bundled() -> dict[str, Any]:
    data = copy.deepcopy(bundled_card_set().data)
    data["id"] = "custom"
    return data


def changed(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = bundled()
    change(data)
    return data


def card(data: dict[str, Any], card_id: str) -> dict[str, Any]:
    return next(c for c in data["cards"] if c["id"] == card_id)


def test_bundled_estimate_is_valid_and_matches_the_shared_data_file() -> None:
    """Card set: the bundled estimate passes every check and keeps the shared ids."""
    data = bundled_card_set().data
    assert validate(data) == []
    assert data["id"] == "pirates-2021-estimate"
    assert "Estimated" in data["note"]
    assert [c["id"] for c in data["cards"]][:3] == ["S01", "S02", "S03"]


def test_custom_card_set_plays_dumps_and_loads() -> None:
    """Card set: a valid custom set is accepted, played, and travels inside dumps."""
    data = changed(lambda d: card(d, "S01").update(ducats=99))
    state = RULES.new_game(4, 1, {"card_set": data, "deck": [c["id"] for c in data["cards"]]})
    assert RULES.view(state, None)["display"][0]["ducats"] == 99
    dumped = json_round_trip(RULES.dump(state))
    assert dumped["card_set"]["cards"][0]["ducats"] == 99
    assert RULES.dump(RULES.load(dumped)) == dumped
    assert RULES.dump(RULES.new_game(4, 1))["card_set"] == "pirates-2021-estimate"


def test_card_set_is_cached_per_content() -> None:
    """Card set: equal data gives one shared lookup object."""
    assert card_set_from_data(bundled()) is card_set_from_data(bundled())


BAD: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("missing keys", lambda d: d.pop("majority_bonus"), "missing keys: majority_bonus"),
    ("unknown keys", lambda d: d.update(colour="red"), "unknown keys: colour"),
    ("empty id", lambda d: d.update(id=""), "id must be a non-empty string"),
    ("other game", lambda d: d.update(game="libertalia"), "game must be 'pirates'"),
    ("note", lambda d: d.update(note=3), "note must be a string"),
    ("pirate values", lambda d: d.update(pirate_values=[1, 2, 3, 4, 5]), "pirate_values must be"),
    (
        "bonus not object",
        lambda d: d.update(majority_bonus=[6, 8, 10, 12]),
        "majority_bonus must be an object",
    ),
    ("bonus kinds", lambda d: d["majority_bonus"].pop("rum"), "exactly saber, rum, relics and chest"),
    ("bonus negative", lambda d: d["majority_bonus"].update(rum=-1), "majority_bonus.rum must be"),
    ("bonus bool", lambda d: d["majority_bonus"].update(rum=True), "majority_bonus.rum must be"),
    ("rate rows", lambda d: d["wheel_rate"].pop("5"), 'wheel_rate must be an object with rows "3"'),
    ("rate row length", lambda d: d["wheel_rate"].update({"4": [1, 2, 3]}), "wheel_rate.4 must be 5 whole"),
    ("cards not list", lambda d: d.update(cards={}), "cards must be a list"),
    ("card count", lambda d: d["cards"].pop(), "there must be 20 cards, not 19"),
    ("card not object", lambda d: d["cards"].__setitem__(0, "S01"), "card 1 must be an object"),
    ("card missing key", lambda d: card(d, "S02").pop("wheels"), "card S02: missing wheels"),
    ("card unknown key", lambda d: card(d, "S02").update(colour=1), "card S02: unknown colour"),
    ("card id format", lambda d: card(d, "S02").update(id="S 02"), "id must be 1-16 letters"),
    ("card id twice", lambda d: card(d, "S02").update(id="S01"), "card S01: id is used twice"),
    ("card kind", lambda d: card(d, "S02").update(kind="raft"), "kind must be ship, ruins or monster"),
    ("card name", lambda d: card(d, "S02").update(name=" "), "card S02: name must be a non-empty string"),
    ("negative ducats", lambda d: card(d, "S02").update(ducats=-1), "card S02: ducats must be"),
    ("float pay", lambda d: card(d, "S02").update(question_pay=2.5), "card S02: question_pay must be"),
    ("bool wheels", lambda d: card(d, "S02").update(wheels=True), "card S02: wheels must be"),
    ("negative anchors", lambda d: card(d, "R02").update(anchors=-2), "card R02: anchors must be"),
    (
        "min crew 0",
        lambda d: card(d, "S02").update(min_crew=0),
        "min_crew must be a whole number from 1 to 9",
    ),
    (
        "min crew 10",
        lambda d: card(d, "S02").update(min_crew=10),
        "min_crew must be a whole number from 1 to 9",
    ),
    ("booty empty", lambda d: card(d, "S02").update(booty=[]), "booty must list one or two"),
    (
        "booty three",
        lambda d: card(d, "S02").update(booty=["rum", "rum", "rum"]),
        "booty must list one or two",
    ),
    ("booty kind", lambda d: card(d, "S02").update(booty=["gold"]), "booty must list one or two"),
    ("monster booty", lambda d: card(d, "M01").update(booty=["wheel", "rum"]), "sea monster must show wheel"),
    ("ship count", lambda d: card(d, "S02").update(kind="ruins"), "there must be 13 ship cards, not 12"),
    ("ruins count", lambda d: card(d, "R02").update(kind="ship"), "there must be 6 ruins cards, not 5"),
    ("monster count", lambda d: card(d, "M01").update(kind="ship"), "there must be 1 monster cards, not 0"),
    ("pictured > 6", lambda d: card(d, "S02").update(booty=["saber", "rum"]), "rum is pictured 7 times"),
]


@pytest.mark.parametrize(("check", "change", "message"), BAD, ids=[b[0] for b in BAD])
def test_card_set_validation_check(
    check: str, change: Callable[[dict[str, Any]], None], message: str
) -> None:
    """Card set: every validation check refuses its mistake with a clear message."""
    data = changed(change)
    with pytest.raises(CardSetError, match=message.replace("(", r"\(")) as caught:
        RULES.new_game(4, 1, {"card_set": data})
    assert isinstance(caught.value, InvalidOptions)
    assert "Card set" in str(caught.value)


def test_card_set_must_be_an_object_of_plain_json() -> None:
    """Card set: a card set is a JSON object."""
    with pytest.raises(CardSetError, match="must be a JSON object"):
        card_set_from_data([1, 2])
    with pytest.raises(CardSetError, match="plain JSON"):
        card_set_from_data({"id": "x", "cards": {1, 2}})


def test_card_set_errors_list_every_problem() -> None:
    """Card set: all problems are reported together."""
    data = bundled()
    card(data, "S02")["min_crew"] = 0
    card(data, "S03")["ducats"] = -5
    with pytest.raises(CardSetError) as caught:
        card_set_from_data(data)
    assert len(caught.value.problems) == 2
    assert caught.value.card_set_id == "custom"


def test_wheel_rate_is_optional_and_defaults_to_the_rulebook_table() -> None:
    """Card set / P-END-3: without wheel_rate the rulebook table applies."""
    data = bundled()
    del data["wheel_rate"]
    assert card_set_from_data(data).wheel_rate[4] == (2, 4, 6, 10, 15)
    assert json.dumps(data)
