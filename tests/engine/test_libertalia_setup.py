"""Setup, campaigns and the generator: L-SET, L-CAMP, L-RNG and the options."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import InvalidOptions
from engine.base import rng_from_state
from engine.libertalia.characters import KIND_INDEX, KINDS, bundled_character_set
from engine.libertalia.state import SUNRISE
from tests.engine.libertalia_support import (
    RULES,
    act,
    drive,
    first_choice,
    game,
    play,
    playout,
    resume,
    situation,
)

COUNTS = bundled_character_set().booty_count


def _layout(rng: random.Random, players: int) -> list[list[int]]:
    bag = [k for k, n in enumerate(COUNTS) for _ in range(n)]
    rng.shuffle(bag)
    spaces = []
    for d in range(6):
        counts = [0] * len(KINDS)
        for k in bag[d * players : (d + 1) * players]:
            counts[k] += 1
        spaces.append(counts)
    return spaces


@pytest.mark.parametrize("seed", [7, "a string seed"])
def test_l_rng_1_generator_order_colours_ranks_layout(seed: int | str) -> None:
    """L-RNG-1: random.Random(seed) draws the colours (sample of the six, k = players), then
    the ranks (sample of the sorted undealt ranks, sorted) and the layout (the bag in
    booty_order, shuffled; day-space d gets items (d-1)n … dn-1)."""
    state = RULES.new_game(5, seed)
    rng = random.Random(seed)
    assert state.colours == tuple(rng.sample(range(6), 5))
    assert state.dealt == (tuple(sorted(rng.sample(list(range(1, 31)), 9))),)
    assert [list(s) for s in state.spaces] == _layout(rng, 5)
    assert state.rng_state == rng.getstate()
    assert all(hand == state.dealt[0] for hand in state.hands)


def test_l_rng_1_later_campaigns_draw_from_the_undealt_ranks() -> None:
    """L-RNG-1, L-CAMP-3: campaign 2 samples 6 of the 21 undealt ranks, then shuffles the bag."""
    ranks = [[2, 3, 5, 7, 10, 12, 20, 23, 28]]  # no Spanish Spy: nothing draws during play
    state = game(3, seed=11, ranks=ranks)
    rng = random.Random(11)  # colours and ranks are fixed: no call for them (L-RNG-2)
    _layout(rng, 3)
    state = drive(state, first_choice, lambda s: s.campaign == 2)
    undealt = [r for r in range(1, 31) if r not in ranks[0]]
    assert state.dealt[1] == tuple(sorted(rng.sample(undealt, 6)))
    assert [list(s) for s in state.spaces] == _layout(rng, 3)
    for hand in state.hands:
        assert set(state.dealt[1]) <= set(hand), "L-CAMP-3: everyone receives the same ranks"


def test_l_rng_1_spanish_spy_draws_with_randrange_over_the_bag() -> None:
    """L-RNG-1, L-CHAR-17: officers back first, then one randrange per token over the bag
    listed in booty_order."""
    hands = {s: [17, 20, 23, 28] for s in range(3)}
    state = situation(3, hands=hands, booty={0: {"officer": 2, "relic": 1}})
    rng = rng_from_state(state.rng_state)
    bag = list(state.bag)
    bag[KIND_INDEX["officer"]] += 2
    drawn = []
    for _ in range(2):
        tokens = [k for k, n in enumerate(bag) for _ in range(n)]
        kind = tokens[rng.randrange(len(tokens))]
        bag[kind] -= 1
        drawn.append(kind)
    state, _ = play(state, [17, 20, 20])
    held = [0] * len(KINDS)
    held[KIND_INDEX["relic"]] = 1
    for kind in drawn:
        held[kind] += 1
    assert list(state.booty[0]) == held
    assert state.rng_state == rng.getstate()


def test_l_rng_2_fixed_draws_replace_the_generator() -> None:
    """L-RNG-2: ``draws`` fixes the Spy's tokens in order and the generator is not called; a
    fixed kind no longer in the bag is used up and the generator draws instead."""
    hands = {s: [17, 20, 23, 28] for s in range(3)}
    state = situation(3, hands=hands, booty={0: {"officer": 2}}, draws=["chest", "map"])
    before = state.rng_state
    after, steps = play(state, [17, 20, 20])
    assert dict(zip(KINDS, after.booty[0], strict=True)) == {
        "chest": 1, "jewel": 0, "goods": 0, "officer": 0, "saber": 0, "map": 1, "relic": 0,
    }  # fmt: skip
    assert after.rng_state == before and after.fixed_draws == ()
    assert (
        "Yellow's Spanish Spy returns 2 Spanish officers to the bag; Yellow draws a chest and a treasure map."
        in (steps[-1].text)
    )
    # Every chest is out of the bag: the fixed chest is passed over, the generator draws.
    state = situation(3, hands=hands, booty={0: {"officer": 1}, 1: {"chest": 4}}, draws=["chest"])
    after, _ = play(state, [17, 20, 20])
    assert after.booty[0][KIND_INDEX["chest"]] == 0 and sum(after.booty[0]) == 1
    assert after.rng_state != state.rng_state


def test_l_rng_2_options_replace_their_calls() -> None:
    """L-RNG-2: given colours, ranks and layouts are used as they are and skip their draws."""
    layout = [[k, k] for k in ("chest", "jewel", "goods", "map", "relic", "saber")]
    state = RULES.new_game(
        2, 5, {"colours": ["grey", "blue"], "ranks": [[1, 2, 3, 4, 5, 6, 7, 8, 9]], "layouts": [layout]}
    )
    assert state.colours == (5, 2) and state.dealt == ((1, 2, 3, 4, 5, 6, 7, 8, 9),)
    assert state.spaces[0][KIND_INDEX["chest"]] == 2 and state.spaces[5][KIND_INDEX["saber"]] == 2
    assert state.rng_state == random.Random(5).getstate(), "no call was made"
    view = RULES.view(state, None)
    assert view["colours"] == ["grey", "blue"]
    assert [s["name"] for s in view["seats"]] == ["Grey", "Blue"]
    assert all(o.secret and o.fixes_chance for o in RULES.options if o.name != "character_set")
    assert RULES.chance_in_play and RULES.simultaneous


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"colours": ["red", "red"]}, "colours must list 2 different colours"),
        ({"colours": ["pink", "red"]}, "colours must list 2 different colours"),
        ({"ranks": [[1, 2, 3]]}, "ranks for campaign 1 must be 9 different ranks"),
        ({"ranks": [[1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 10, 11, 12, 13, 14]]}, "9 were dealt already"),
        ({"ranks": [[1, 2, 3, 4, 5, 6, 7, 8, 31]]}, "from 1 to 30"),
        ({"ranks": [[1.0, 2, 3, 4, 5, 6, 7, 8, 9]]}, "ranks for campaign 1"),
        ({"ranks": []}, "ranks must list"),
        ({"layouts": [[["chest"]] * 6]}, "must be 6 lists of 2 booty kinds"),
        ({"layouts": [[["chest", "chest"]] * 6]}, "12 chest tokens, the bag has 4"),
        ({"layouts": [[["gold", "chest"]] * 6]}, "booty kinds are"),
        ({"draws": ["chest", 3]}, "draws must be a list of booty kinds"),
        ({"draws": "chest"}, "draws must be a list"),
        ({"deck": []}, "Unknown options: deck"),
    ],
)
def test_options_are_validated(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOptions, match=message):
        RULES.new_game(2, 1, options)


def test_players_and_seed_are_validated() -> None:
    for players in (1, 7, "3", 3.0, True):
        with pytest.raises(InvalidOptions, match="Libertalia is for 2 to 6 players"):
            RULES.new_game(players, 1)  # type: ignore[arg-type]
    for seed in (1.5, None, [1]):
        with pytest.raises(InvalidOptions, match="seed must be"):
            RULES.new_game(3, seed)  # type: ignore[arg-type]
    with pytest.raises(InvalidOptions, match="options must be an object"):
        RULES.new_game(3, 1, [])  # type: ignore[arg-type]
    assert (RULES.min_players, RULES.max_players, RULES.id, RULES.version) == (2, 6, "libertalia", 1)


def test_l_set_1_colours_different_and_recorded() -> None:
    """L-SET-1: each seat a different colour, given or drawn from the seed, recorded."""
    for seed in range(20):
        state = RULES.new_game(6, seed)
        assert sorted(state.colours) == list(range(6))
        assert RULES.dump(state)["colours"] == RULES.view(state, 0)["colours"]


def test_l_set_2_neighbours() -> None:
    """L-SET-2: the left neighbour of seat i is seat i-1 (mod n); with two players both
    neighbours are the other player (Monkey and saber)."""
    hands = {s: [2, 20, 23, 28] for s in range(3)}
    state, _ = play(situation(3, hands=hands, booty={0: {"relic": 2}, 1: {"relic": 1}}), [2, 20, 20])
    assert state.booty[2][KIND_INDEX["relic"]] == 2, "seat 0's left neighbour is seat 2"
    hands2 = {0: [2, 20, 23, 28], 1: [2, 20, 23, 28]}
    state, _ = play(situation(2, hands=hands2, booty={1: {"relic": 3}}), [20, 2])
    assert state.booty[0][KIND_INDEX["relic"]] == 3
    state = situation(2, hands={0: [20, 23, 28], 1: [5, 23, 28]}, dens={1: [7, 12]}, space=["saber", "goods"])
    state, _ = play(state, [20, 5])
    state = act(state, 0, {"type": "take", "booty": "saber"}).state
    assert RULES.legal_actions(state, 0) == [
        {"type": "saber", "target": "1.7"},
        {"type": "saber", "target": "1.12"},
    ]


def test_l_set_3_three_campaigns_of_six_days() -> None:
    """L-SET-3, L-NIGHT-4: scores start at 0; the game is 3 campaigns of 6 days, the End of
    campaign after each sixth Night."""
    state = RULES.new_game(3, "structure")
    assert RULES.view(state, None)["seats"][0]["score"] == 0
    final, steps = playout(3, "structure")
    seen = []
    for before, *_ in steps:
        if before.phase == SUNRISE and (before.campaign, before.day) not in seen:
            seen.append((before.campaign, before.day))
    assert seen == [(c, d) for c in (1, 2, 3) for d in range(1, 7)]
    assert len(final.fortunes) == 3
    texts = [RULES.step(before, seat, action).text for before, seat, action in steps]
    ends = [text for text in texts if "End of campaign" in text]
    assert [text.count("End of campaign") for text in ends] == [1, 1, 1]


def test_l_camp_1_ten_doubloons_each_campaign() -> None:
    """L-CAMP-1, L-END-5: every player starts each campaign with exactly 10 doubloons."""
    state = game(4)
    assert state.doubloons == (10,) * 4
    rich = situation(day=6, doubloons=[30, 0, 7, 12], booty={0: {"chest": 2}})
    after, _ = resume(rich._replace(phase="dusk"))
    assert after.campaign == 2 and after.doubloons == (10,) * 4
    assert after.booty == ((0,) * 7,) * 4, "every token went back to the bag"
    assert sum(after.bag) == 50 - 24


def test_l_camp_2_layout_face_up_rest_in_bag() -> None:
    """L-CAMP-2: n tokens per day-space, face up in the view; the rest stay in the bag."""
    for players in range(2, 7):
        state = game(players, seed=players)
        assert [sum(s) for s in state.spaces] == [players] * 6
        assert sum(state.bag) == 50 - 6 * players
        view = RULES.view(state, None)
        assert [sum(s["booty"].values()) for s in view["spaces"]] == [players] * 6
        assert view["spaces"][0]["today"] and not view["spaces"][1]["today"]


def test_l_camp_3_same_ranks_for_everyone() -> None:
    """L-CAMP-3: 9 ranks in campaign 1, then 6 of those never dealt, the same for all."""
    final, _ = playout(4, "deal")
    dealt = final.dealt
    assert [len(r) for r in dealt] == [9, 6, 6]
    assert len({r for ranks in dealt for r in ranks}) == 21


def test_l_camp_5_engine_asserts_three_cards_at_sunrise() -> None:
    """L-CAMP-5: a hand holds at least 3 cards at every Sunrise; the engine asserts it."""
    _final, steps = playout(5, "hands")
    for before, *_ in steps:
        if before.phase == SUNRISE and not any(before.picks):
            assert min(len(h) for h in before.hands) >= 3
    small = situation(hands={s: [20, 23, 28] for s in range(4)})
    with pytest.raises(AssertionError, match="L-CAMP-5"):
        play(small, [20, 20, 20, 20])


def test_l_comp_4_doubloons_never_below_zero_bank_unlimited() -> None:
    """L-COMP-4: the bank pays any gain; a player's doubloons never go below 0."""
    final, steps = playout(6, "bank")
    for before, *_ in steps:
        assert min(before.doubloons) >= 0
    assert sum(final.doubloons) > 0
