"""Custom card sets have maximum sizes, the per-process
card-set cache is bounded, and no malformed card set or options object raises anything but
``InvalidOptions`` (which the service turns into a 400)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import InvalidOptions
from engine.pirates import cards
from engine.pirates.cards import MAX_ID, MAX_NAME, MAX_NOTE, bundled_card_set, card_set_from_data, validate
from tests.engine.pirates_support import RULES, json_round_trip


def custom(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(bundled_card_set().data)
    data["id"] = "custom"
    data.update(changes)
    return data


def test_note_name_and_id_have_maximum_sizes() -> None:
    assert validate(custom(note="n" * MAX_NOTE)) == []
    assert any("note" in p for p in validate(custom(note="n" * (MAX_NOTE + 1))))
    assert any("note" in p for p in validate(custom(note="n" * 2_400_000)))
    assert any(p.startswith("id ") for p in validate(custom(id="i" * (MAX_ID + 1))))
    data = custom()
    data["cards"][0]["name"] = "x" * MAX_NAME
    assert validate(data) == []
    data["cards"][0]["name"] = "x" * (MAX_NAME + 1)
    assert any("name must be" in p for p in validate(data))
    with pytest.raises(InvalidOptions, match="note must be"):
        RULES.new_game(3, 1, {"card_set": custom(note="n" * 2_400_000)})


def test_card_set_cache_is_bounded_and_eviction_changes_no_state() -> None:
    """20 games with distinct card sets used to stay built in every process for good."""
    first = custom(note="set 0")
    state = RULES.new_game(3, 7, {"card_set": first})
    dumped = json_round_trip(RULES.dump(state))
    for n in range(1, cards.CACHE_SIZE + 20):
        card_set_from_data(custom(note=f"set {n}"))
    assert cards._card_set_for.cache_info().currsize <= cards.CACHE_SIZE
    # The first set was evicted and is built anew: a loaded state still equals the original.
    reloaded = RULES.load(dumped)
    assert reloaded.card_set is not state.card_set
    assert reloaded == state and RULES.dump(reloaded) == dumped


JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
CARD_KEYS = ("id", "kind", "name", "min_crew", "ducats", "booty", "question_pay", "wheels", "anchors")
TOP_KEYS = ("id", "cards", "majority_bonus", "game", "note", "pirate_values", "wheel_rate")


@st.composite
def damaged_card_sets(draw: st.DrawFn) -> dict[str, Any]:
    """The bundled set with a few values, anywhere in it, replaced by arbitrary JSON."""
    data = custom()
    for _ in range(draw(st.integers(1, 3))):
        deck = data["cards"]
        position = draw(st.integers(0, 19))
        if draw(st.booleans()) and isinstance(deck, list) and position < len(deck):
            if not isinstance(deck[position], dict):
                deck[position] = {}
            deck[position][draw(st.sampled_from(CARD_KEYS))] = draw(JSON)
        else:
            data[draw(st.sampled_from(TOP_KEYS))] = draw(JSON)
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(data=damaged_card_sets())
def test_a_damaged_card_set_is_invalid_options_never_a_crash(data: dict[str, Any]) -> None:
    """A card kind given as a list used to raise TypeError (a server error) in validation."""
    problems = validate(data)
    assert isinstance(problems, list)
    try:
        RULES.new_game(3, 1, {"card_set": data})
    except InvalidOptions:
        assert problems
    else:
        assert problems == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(options=st.dictionaries(st.sampled_from(["card_set", "deck", "first_seat", "x"]), JSON, max_size=3))
def test_any_json_options_are_accepted_or_invalid_options(options: dict[str, Any]) -> None:
    try:
        state = RULES.new_game(3, 1, options)
    except InvalidOptions as exc:
        assert str(exc)
    else:
        assert RULES.to_act(state)
