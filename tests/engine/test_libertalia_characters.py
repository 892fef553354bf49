"""The character set data ("Character set data" in libertalia.md): the bundled set, its
validator, custom sets, and that the engine implements exactly the data's timings."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine import CardSetError, InvalidOptions
from engine.libertalia import campaign, day, dusk, night
from engine.libertalia.characters import (
    BUNDLED_DEFAULT,
    COLOURS,
    KINDS,
    bundled_character_set,
    bundled_data,
    character_set_from_data,
    validate,
)
from tests.engine.libertalia_support import RULES, game


def data() -> dict[str, Any]:
    return copy.deepcopy(bundled_data())


def test_l_comp_1_six_colours_thirty_ranks_same_names() -> None:
    """L-COMP-1: six colours, each with ranks 1-30, one name per rank for every colour."""
    chars = bundled_character_set()
    assert COLOURS == ("yellow", "red", "blue", "green", "black", "grey")
    assert RULES.colours == COLOURS
    assert len(chars.name) == 31 and chars.name[1] == "Parrot" and chars.name[30] == "Spanish Governor"
    assert [len(row) for row in chars.influence] == [31] * 6


def test_l_comp_2_six_different_influences_per_rank() -> None:
    """L-COMP-2: for one rank the six colours carry six different influence values."""
    chars = bundled_character_set()
    for rank in range(1, 31):
        assert sorted(chars.influence[c][rank] for c in range(6)) == [1, 2, 3, 4, 5, 6]
    for colour in COLOURS:  # the bundled set's extra property; a custom set need not have it
        counts = [character["influence"][colour] for character in bundled_data()["characters"]]
        assert sorted(counts) == sorted(list(range(1, 7)) * 5), f"{colour}: each influence 5 times"


def test_l_comp_3_booty_bag_of_fifty() -> None:
    """L-COMP-3: 4 chest, 6 jewel, 10 goods, 6 officer, 6 saber, 8 map, 10 relic."""
    chars = bundled_character_set()
    assert dict(zip(KINDS, chars.booty_count, strict=True)) == {
        "chest": 4, "jewel": 6, "goods": 10, "officer": 6, "saber": 6, "map": 8, "relic": 10,
    }  # fmt: skip
    assert game(3).bag == tuple(n - used for n, used in zip(chars.booty_count, _laid(game(3)), strict=True))


def _laid(state: Any) -> list[int]:
    return [sum(space[k] for space in state.spaces) for k in range(len(KINDS))]


def test_bundled_set_is_valid_and_engine_timings_match_the_data() -> None:
    """Every op of the data has its implementation at the right timing, and nothing more."""
    assert validate(bundled_data()) == []
    characters = {c["rank"]: c for c in bundled_data()["characters"]}
    by_timing = {
        "day": set(day.DAY_EFFECTS),
        "dusk": set(dusk.TOKENS_TAKEN),
        "night": {*night.NIGHT_EFFECTS, night.WAITRESS_RANK, night.GRANNY_RANK},
        "end": set(campaign.END_EFFECTS),
    }
    for timing, ranks in by_timing.items():
        assert ranks == {r for r, c in characters.items() if timing in c["timing"]}, timing


def test_validator_names_every_problem() -> None:
    broken = data()
    broken["characters"][3]["influence"]["red"] = 1  # rank 4: two 1s
    broken["characters"][4]["rank"] = 4  # rank 4 twice, rank 5 missing
    broken["booty"]["chest"]["count"] = 5  # 51 tokens
    broken["characters"][6]["timing"] = ["day"]  # Barkeep: timing and effects disagree
    broken["campaigns"] = 4
    broken["colours"] = ["yellow", "red"]
    problems = validate(broken)
    assert "rank 4: the six influences must be 1 to 6, each once (L-COMP-2)" in problems
    assert "character 5: rank 4 appears twice" in problems
    assert "the booty counts must add up to 50, not 51" in problems
    assert "rank 7: the keys of effects must be the timings" in problems
    assert "campaigns must be 3 (the rules fix it)" in problems
    assert any(p.startswith("colours must be") for p in problems)
    with pytest.raises(CardSetError) as caught:
        character_set_from_data(broken)
    assert caught.value.problems == problems
    assert validate([]) == ["a character set must be a JSON object"]
    assert validate({**data(), "extra": 1}) == ["unknown keys: extra"]
    short = data()
    short["characters"] = short["characters"][:29]
    assert "there must be 30 characters, not 29" in validate(short)


def test_validator_refuses_a_changed_effect() -> None:
    """Effects are the rules (L-CHAR): a set may not change them."""
    changed = data()
    changed["characters"][28]["effects"]["day"]["n"] = 4  # Captain gains 4
    assert any(p.startswith("rank 29: effects must be") for p in validate(changed))


def test_custom_set_with_corrected_influence_plays() -> None:
    """A group owning the cards loads corrected influence values (swap ranks 14's yellow and red)."""
    custom = data()
    custom["id"] = "our-cards"
    row = custom["characters"][13]["influence"]
    row["yellow"], row["red"] = row["red"], row["yellow"]
    state = game(4, character_set=custom)
    assert state.chars.influence[0][14] == 1 and not state.chars.bundled
    assert RULES.view(state, None)["character_set"]["id"] == "our-cards"
    assert character_set_from_data(json.loads(json.dumps(custom))) is state.chars, "cached by content"
    dumped = RULES.dump(state)
    assert dumped["character_set"]["id"] == "our-cards"
    assert RULES.dump(RULES.load(dumped)) == dumped


def test_character_set_option_values() -> None:
    assert game(2, character_set=BUNDLED_DEFAULT).chars is bundled_character_set()
    with pytest.raises(InvalidOptions, match="Unknown character set 'nope'"):
        game(2, character_set="nope")
    with pytest.raises(InvalidOptions, match="character_set must be"):
        game(2, character_set=7)
    with pytest.raises(CardSetError):
        game(2, character_set={"id": "x"})
