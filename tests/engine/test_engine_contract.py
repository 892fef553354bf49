"""The engine contract (design.md "The engine contract") as the web service relies on it."""

from __future__ import annotations

import json

import pytest

import engine
from engine import IllegalAction, InvalidSnapshot, UnknownRules
from engine.base import Rules
from tests.engine.pirates_support import RULES, game, json_round_trip, situation


def test_get_rules_latest_and_by_version() -> None:
    rules = engine.get_rules("pirates")
    assert isinstance(rules, Rules)
    assert (rules.id, rules.version, rules.title) == ("pirates", 1, "Pirates (2021)")
    assert (rules.min_players, rules.max_players) == (3, 5)
    assert engine.get_rules("pirates", 1) is rules
    assert ("pirates", "Pirates (2021)") in engine.available_rules()


def test_unknown_rules_and_versions_name_what_exists() -> None:
    with pytest.raises(UnknownRules, match="Unknown rules 'chess'; known rules: libertalia, pirates"):
        engine.get_rules("chess")
    with pytest.raises(UnknownRules, match="no version 7; known versions: 1"):
        engine.get_rules("pirates", 7)
    assert issubclass(UnknownRules, ValueError)
    assert issubclass(engine.CardSetError, engine.InvalidOptions)
    assert issubclass(engine.InvalidOptions, ValueError)
    assert issubclass(IllegalAction, Exception)


def test_apply_is_pure() -> None:
    """apply never changes the state it is given."""
    state = game()
    before = RULES.dump(state)
    action = RULES.legal_actions(state, 0)[0]
    after = RULES.apply(state, 0, action)
    assert RULES.dump(state) == before
    assert after is not state and RULES.dump(after) != before


def test_view_keys_and_colours() -> None:
    """The view carries the documented keys (engine/README.md) and the seat colours."""
    view = RULES.view(game(5, first_seat=2), 1)
    assert set(view) == {
        "rules", "version", "title", "viewer", "players", "colours", "status", "end_reason", "active",
        "to_act", "action_count", "action_limit", "passes_in_a_row", "card_set", "display", "deck_count",
        "boarded_count", "card_count", "discarded", "supply", "black_spot", "seats", "parties", "result",
        "scoring",
    }  # fmt: skip
    assert view["colours"] == ["red", "blue", "green", "yellow", "black"]
    assert [s["colour"] for s in view["seats"]] == view["colours"]
    assert view["viewer"] == 1 and view["active"] == 2 and view["to_act"] == [2]
    assert view["status"] == "running" and view["result"] is None and view["scoring"] is None
    assert set(view["seats"][0]) == {"seat", "colour", "treasury", "booty", "kept", "black_spot", "parties"}
    assert set(view["parties"][0]) == {"id", "controller", "size", "pirates"}
    assert set(view["display"][0]) == {
        "id", "kind", "name", "min_crew", "ducats", "booty", "question_pay", "wheels", "anchors"
    }  # fmt: skip
    assert view["card_set"]["wheel_rate"] == [3, 6, 10, 15, 20]
    assert json_round_trip(view) == view


def test_spectator_and_seat_views_differ_only_in_viewer() -> None:
    """Pirates hides nothing but the deck, so every viewer sees the same table."""
    state = game()
    spectator = RULES.view(state, None)
    for seat in range(4):
        assert {**RULES.view(state, seat), "viewer": None} == spectator


def test_describe_sentences() -> None:
    state = situation(parties=[["0.2", "1.3", "2.4"]], display=["S03", "S01", "S02", "S04"])
    sentence = RULES.describe(state, 0, {"type": "capture", "party": "0.2", "card": "S03", "booty": "rum"})
    assert sentence == (
        "Red captures the Brig Mermaid with 3 pirates, takes rum, Blue's mate gets saber, "
        "pays 7 ducats and keeps the card."
    )
    single = situation(parties=[["0.2", "0.3"]], display=["S01", "S02", "S03", "S04"])
    assert RULES.describe(single, 0, {"type": "capture", "party": "0.2", "card": "S01", "booty": None}) == (
        "Red captures the Sloop Gull with 2 pirates, takes rum, pays nothing and keeps the card."
    )
    assert RULES.describe(game(), 0, {"type": "assemble", "party": "0.3", "onto": "2.5"}) == (
        "Red places Red 3 on Green 5, forming a party of 2 with Red 3 as captain."
    )
    with pytest.raises(IllegalAction):
        RULES.describe(game(), 1, {"type": "assemble", "party": "1.3", "onto": "2.5"})


def test_describe_mutiny_ransom_and_pass() -> None:
    state = situation(parties=[["1.5", "0.3", "2.Q"]], display=["S03", "S01", "S02", "S04"], black_spot=1)
    action = {"type": "mutiny", "victim": 1, "party": "1.5", "pirate": "0.3", "card": "S03", "booty": "rum"}
    assert RULES.describe(state, 0, action) == (
        "Red leads a mutiny with Red 3 in Blue's party of 3 led by Blue 5, captures the Brig Mermaid, "
        "takes rum, Blue's mate gets saber, pays double, 14 ducats and keeps the card; "
        "Red takes the black spot from Blue."
    )
    ransom = situation(parties=[["1.2", "0.2", "0.3", "0.4", "0.5", "0.Q"]], treasury=[2, 5, 5, 5])
    assert RULES.describe(ransom, 0, {"type": "ransom", "pirate": "0.Q", "onto": "1.2"}) == (
        "Red pays Blue 5 ducats (3 from the supply) to ransom Red ? and puts it back on top of that party "
        "as captain."
    )
    parties = [[f"{s}.2", f"{s}.3", f"{s}.4", f"{s}.5", f"{s}.Q"] for s in range(3)]
    stuck = situation(3, parties=parties, display=["S11", "S12", "S13", "R06"], passes=2)
    assert RULES.describe(stuck, 0, {"type": "pass"}) == (
        "Red has no possible action and passes; after a full round of passes the game ends."
    )


def test_result_and_is_finished() -> None:
    state = game()
    assert RULES.result(state) is None and not RULES.is_finished(state)
    assert RULES.action_count(state) == 0
    over = situation(end="full_round_of_passes")
    assert RULES.is_finished(over)
    assert RULES.result(over) == {"scores": [5, 5, 5, 5], "winners": [0, 1, 2, 3]}


def test_dump_never_shares_state_and_load_refuses_broken_snapshots() -> None:
    state = game()
    dumped = RULES.dump(state)
    json.dumps(dumped)
    assert dumped["rng"]["version"] == 3 and len(dumped["rng"]["internal"]) == 625
    broken: list[dict[str, object]] = [
        {},
        {**dumped, "extra": 1},
        {**dumped, "rules": "libertalia"},
        {**dumped, "version": 2},
        {**dumped, "players": 6},
        {**dumped, "parties": dumped["parties"][1:]},
        {**dumped, "parties": [[p for party in dumped["parties"] for p in party]]},
        {**dumped, "treasury": [-1, 5, 5, 5]},
        {**dumped, "supply": [7, 6, 6, 6, 6, 6]},
        {**dumped, "deck": dumped["deck"][1:]},
        {**dumped, "display": ["S99", None, None, None]},
        {**dumped, "black_spot": 4},
        {**dumped, "end": "bored"},
        {**dumped, "card_set": "nope"},
        {**dumped, "rng": {"version": 3, "internal": [1, 2], "gauss_next": None}},
    ]
    for data in broken:
        with pytest.raises(InvalidSnapshot):
            RULES.load(data)


def test_listed_actions_are_read_only_json_objects() -> None:
    """legal_actions shares one object per action (engine.base.FrozenAction): it behaves as a
    plain JSON object everywhere, but nobody can change it under another caller's feet."""
    import copy
    import pickle

    state = game()
    listed = RULES.legal_actions(state, 0)
    action = listed[0]
    plain = json.loads(json.dumps(action))
    assert isinstance(action, dict) and action == plain and json.dumps(action) == json.dumps(plain)
    for change in (
        lambda: action.__setitem__("onto", "2.2"),
        lambda: action.pop("onto"),
        lambda: action.update(onto="2.2"),
        lambda: action.setdefault("note", 1),
        lambda: action.clear(),
        lambda: action.popitem(),
        lambda: action.__delitem__("type"),
    ):
        with pytest.raises(TypeError, match="cannot be changed"):
            change()
    assert action == plain  # unchanged after every attempt
    copies = (dict(action), copy.copy(action), copy.deepcopy(action), pickle.loads(pickle.dumps(action)))
    for duplicate in copies:
        assert type(duplicate) is dict and duplicate == plain
        duplicate["onto"] = "2.2"  # a copy is an ordinary dict
    assert RULES.legal_actions(state, 0) == listed
    # Both a listed action and its plain JSON twin apply, to the same state.
    assert RULES.dump(RULES.apply(state, 0, action)) == RULES.dump(RULES.apply(state, 0, plain))
