"""The worked examples of libertalia.md ("Worked examples (must be tests)"), one test each.
Seats 0 yellow, 1 red, 2 blue, 3 green unless stated; influence from the bundled data."""

from __future__ import annotations

from engine.libertalia.state import DUSK, SUNRISE, LibertaliaState
from tests.engine.libertalia_support import (
    CHARS,
    RANK,
    RULES,
    act,
    at_dusk_end,
    booty_of,
    drive,
    game,
    play,
    resume,
    ship,
    situation,
)

BRUTE, BEGGAR, CAPTAIN = RANK["Brute"], RANK["Beggar"], RANK["Captain"]


def test_example_tie_break_beggar_brute() -> None:
    """L-ORD-1, L-ORD-2, L-CHAR-3, L-CHAR-14, L-DUSK-1: yellow Brute (14, influence 6), red Brute
    (14, influence 1), blue Beggar, green Captain."""
    assert CHARS.influence[0][BRUTE] == 6 and CHARS.influence[1][BRUTE] == 1
    state = situation(
        hands={0: [14, 20, 23, 28], 1: [14, 20, 23, 28], 2: [3, 20, 23, 28], 3: [29, 20, 23, 28]},
        space=["chest", "jewel", "goods", "map"],
    )
    state, steps = play(state, [BRUTE, BRUTE, BEGGAR, CAPTAIN])
    text = steps[-1].text
    assert "on the ship, left to right: Blue's Beggar (3), Red's Brute (14), Yellow's Brute (14), " \
        "Green's Captain (29)." in text  # fmt: skip
    # Beggar: green pays blue 3; red Brute discards the Captain before it gains; yellow's
    # Brute is then the highest and discards itself.
    assert state.doubloons == (10, 10, 13, 7)
    assert "Green, owner of the highest character (Captain), pays Blue 3 doubloons" in text
    assert "Red's Brute discards Green's Captain from the ship" in text
    assert "Yellow's Brute is the highest character on the ship and discards itself" in text
    assert state.graves[3] == (CAPTAIN,) and state.graves[0] == (BRUTE,)
    # Dusk: red Brute first, then blue Beggar.
    assert state.phase == DUSK and ship(state) == ["blue Beggar", "red Brute"]
    assert RULES.to_act(state) == [1] and state.actor == (1, BRUTE)
    state = act(state, 1, {"type": "take", "booty": "chest"}).state
    assert RULES.to_act(state) == [2] and state.actor == (2, BEGGAR)
    state = act(state, 2, {"type": "take", "booty": "map"}).state
    assert state.dens[1] == (BRUTE,) and state.dens[2] == (BEGGAR,)
    assert booty_of(state, 1) == {"chest": 1} and booty_of(state, 2) == {"map": 1}


def test_example_parrot_and_cook() -> None:
    """L-CHAR-1, L-DAY-2, L-CHAR-18: yellow Parrot, red Parrot, blue Carpenter (3 players)."""
    state = situation(
        3,
        hands={0: [1, 15, 20, 23, 28], 1: [1, 18, 20, 23, 28], 2: [9, 20, 23, 28]},
        space=["chest", "jewel", "goods"],
    )
    state, _ = play(state, [1, 1, 9])
    # Yellow's Parrot (influence 1) acts before red's (influence 2).
    assert RULES.to_act(state) == [0] and state.decision == "parrot"
    assert (0, 1) not in state.ship and state.graves[0] == (1,), "the Parrot left the ship"
    assert RULES.legal_actions(state, 0) == [{"type": "parrot", "rank": r} for r in (15, 20, 23, 28)]
    state = act(state, 0, {"type": "parrot", "rank": 15}).state
    assert RULES.to_act(state) == [1] and state.decision == "parrot"
    step = act(state, 1, {"type": "parrot", "rank": 18})
    state = step.state
    # Day: Carpenter, then Gunner (pays 3, every den empty), then the Cook has no Day effect.
    assert step.text.index("Blue's Carpenter") < step.text.index("Yellow's Gunner")
    assert state.doubloons == (7, 10, 5)
    # Dusk on 3 tokens: the Cook takes 2, the Gunner 1, the Carpenter none.
    assert state.phase == DUSK and state.actor == (1, 18) and state.decision == "take"
    state = act(state, 1, {"type": "take", "booty": "chest"}).state
    assert state.actor == (1, 18) and state.decision == "take", "the Cook's second pick"
    step = act(state, 1, {"type": "take", "booty": "jewel"})
    state = step.state
    assert "Yellow's Gunner takes goods" in step.text
    assert "Blue's Carpenter finds day-space 1 empty" in step.text
    assert booty_of(state, 1) == {"chest": 1, "jewel": 1} and booty_of(state, 0) == {"goods": 1}
    assert booty_of(state, 2) == {}
    assert state.graves[:2] == ((1,), (1,)), "both Parrots are in graveyards"
    assert state.dens == ((15,), (18,), (9,))


def test_example_losses_carpenter_gunner_gambler_beggar() -> None:
    """L-DBL-1, L-DBL-2, L-CHAR-9, L-CHAR-15, L-CHAR-24, L-CHAR-3."""
    hands = {s: [9, 15, 20, 23, 24, 28] for s in range(4)}
    # Carpenter with 11 loses 5.
    state, _ = play(situation(hands=hands, doubloons=[11, 10, 10, 10]), [9, 20, 20, 20])
    assert state.doubloons[0] == 6
    # Gunner with 2 pays 2 and still discards (one target: taken at once, L-DEC-5).
    state = situation(hands=hands, doubloons=[2, 10, 10, 10], dens={1: [7]})
    state, steps = play(state, [15, 20, 20, 20])
    assert state.doubloons[0] == 0 and state.graves[1] == (7,) and 7 not in state.dens[1]
    assert "Yellow's Gunner: Yellow pays 2 doubloons." in steps[-1].text
    # Gambler with 4 doubloons and 7 tokens ends at 0.
    tokens = {"goods": 3, "relic": 2, "saber": 2}
    state, _ = play(situation(hands=hands, doubloons=[4, 10, 10, 10], booty={0: tokens}), [24, 20, 20, 20])
    assert state.doubloons[0] == 0
    # Beggar against a player holding 1 gains 1 (the Captain gains its 3 only later).
    hands = {0: [3, 20, 23, 28], 1: [29, 20, 23, 28], 2: [20, 23, 24, 28], 3: [20, 23, 24, 28]}
    state, _ = play(situation(hands=hands, doubloons=[10, 1, 10, 10]), [3, 29, 20, 23])
    assert state.doubloons[:2] == (11, 3)


def test_example_same_dusk_saber() -> None:
    """L-DUSK-6, L-DUSK-3, L-CHAR-18: yellow Captain, red Cook, blue Barkeep (3 players);
    space: saber, chest, goods. The saber can hit the Captain that entered yellow's den
    earlier in this Dusk."""
    state = situation(
        3,
        hands={0: [29, 20, 23, 28], 1: [18, 20, 23, 28], 2: [7, 20, 23, 28]},
        dens={2: [12]},
        space=["saber", "chest", "goods"],
    )
    state, _ = play(state, [CAPTAIN, 18, 7])
    assert state.actor == (0, CAPTAIN) and state.decision == "take"
    state = act(state, 0, {"type": "take", "booty": "chest"}).state
    assert state.dens[0] == (CAPTAIN,), "the Captain entered yellow's den at the end of its turn"
    assert state.actor == (1, 18)
    state = act(state, 1, {"type": "take", "booty": "goods"}).state
    # The saber was the only token left (taken at once); red must choose its target.
    assert state.decision == "saber" and RULES.to_act(state) == [1]
    assert RULES.legal_actions(state, 1) == [
        {"type": "saber", "target": "0.29"},
        {"type": "saber", "target": "2.12"},
    ]
    step = act(state, 1, {"type": "saber", "target": "0.29"})
    state = step.state
    assert state.dens[0] == () and state.graves[0] == (CAPTAIN,)
    assert "Blue's Barkeep finds day-space 1 empty" in step.text
    assert booty_of(state, 1) == {"goods": 1, "saber": 1} and booty_of(state, 2) == {}


def test_example_night_mutineer_freed_slave_barkeep() -> None:
    """L-NIGHT-1, L-CHAR-13, L-CHAR-12, L-CHAR-7: den Captain, Mutineer, Freed Slave, Barkeep
    gives +4: the Mutineer discards the Barkeep (+2), the Freed Slave +2, the Barkeep is gone."""
    state = at_dusk_end(situation(dens={0: [29, 13, 12, 7]}))
    state, text = resume(state)
    assert state.phase == SUNRISE and state.day == 2
    assert state.doubloons[0] == 14
    assert state.dens[0] == (12, 13, 29) and state.graves[0] == (7,)
    assert "Yellow's Mutineer discards Yellow's Barkeep; Yellow gains 2 doubloons." in text
    assert "Yellow's Freed Slave: Yellow gains 2 doubloons." in text
    assert "Barkeep: Yellow gains" not in text


def test_example_two_granny_watas() -> None:
    """L-CHAR-27, L-NIGHT-2: Granny Wata in two dens at Night: both discarded, nobody gains."""
    state, text = resume(at_dusk_end(situation(dens={1: [27], 3: [27, 12]})))
    assert state.doubloons == (10, 10, 10, 10)
    assert state.dens[1] == () and state.dens[3] == (12,)
    assert state.graves[1] == (27,) and state.graves[3] == (27,)
    assert "Several Granny Watas are in dens, so all are discarded" in text


def test_example_end_and_fortune() -> None:
    """L-END-1, L-END-2, L-DBL-2: 3 doubloons; den Captain, Quartermaster, Carpenter; booty
    1 chest, 2 jewels, 4 goods, 7 maps, 2 relics, 1 saber. Captain −6 → 0, Quartermaster −8 → 0,
    Carpenter +10 → 10; fortune 10 + 5 + 6 + 4 + 24 − 6 = 43."""
    booty = {"chest": 1, "jewel": 2, "goods": 4, "map": 7, "relic": 2, "saber": 1}
    state = situation(day=6, dens={0: [29, 26, 9]}, doubloons=[3, 10, 10, 10], booty={0: booty})
    state, text = resume(at_dusk_end(state))
    assert state.fortunes == ((43, 10, 10, 10),)
    assert state.campaign == 2 and state.day == 1 and state.phase == SUNRISE
    assert "Yellow's den at the End: Captain −3 (of 6), Quartermaster −0 (of 8), Carpenter +10." in text
    assert "Yellow's fortune: 43" in text


def test_example_negative_fortune_scores_zero() -> None:
    """L-END-3: 0 doubloons, 1 goods, 3 relics: fortune −8, which scores 0."""
    state = situation(day=6, doubloons=[0, 10, 10, 10], booty={0: {"goods": 1, "relic": 3}})
    state, text = resume(at_dusk_end(state))
    assert state.fortunes[0][0] == 0
    assert "Yellow's fortune: 0 (below 0, counts as 0)" in text


def test_example_four_players_layout() -> None:
    """L-CAMP-2: 4 players: 24 tokens laid out, 4 per day-space, 26 stay in the bag."""
    state = game(4, seed="layout")
    assert [sum(space) for space in state.spaces] == [4] * 6
    assert sum(state.bag) == 26
    assert RULES.view(state, None)["bag_count"] == 26


def _kept_after_campaign_1(first_two: list[int]) -> LibertaliaState:
    """Seat 0 plays ``first_two`` on days 1 and 2, then its lowest cards; seat 1 its lowest."""
    state = game(
        2,
        ranks=[[1, 4, 10, 12, 16, 20, 23, 28, 29]],
        layouts=[[["goods", "goods"]] * 5 + [["jewel", "jewel"]]],
    )

    def policy(state: LibertaliaState, seat: int, actions: list[dict[str, object]]) -> dict[str, object]:
        if seat == 0 and state.phase == SUNRISE and state.day <= len(first_two):
            return {"type": "play", "rank": first_two[state.day - 1]}
        playable = [a for a in actions if a.get("rank") not in (1, 4)]
        return (playable or actions)[0]

    return drive(state, policy, lambda s: s.campaign == 2)


def test_example_cards_kept_between_campaigns() -> None:
    """L-CAMP-4, L-CAMP-3: with one Recruiter return and no Parrot, 9 − 6 + 1 = 4 cards are kept
    and 10 held for campaign 2; with a Parrot used and no returns, 2 kept and 8 held."""
    state = _kept_after_campaign_1([29, 4])
    assert len(state.hands[0]) == 10 and len(state.dealt[1]) == 6
    assert len(set(state.hands[0]) - set(state.dealt[1])) == 4
    state = _kept_after_campaign_1([1])
    assert len(state.hands[0]) == 8
    assert len(set(state.hands[0]) - set(state.dealt[1])) == 2
