"""Dusk (L-DUSK), Night (L-NIGHT), the End of campaign (L-END), doubloons (L-DBL) and the
winner (L-WIN), with the Dusk, Night and End effects of L-CHAR."""

from __future__ import annotations

import json

from engine.libertalia.characters import KIND_INDEX
from engine.libertalia.state import DUSK, NIGHT, OVER, SUNRISE
from tests.engine.libertalia_support import (
    RULES,
    act,
    at_dusk_end,
    booty_of,
    play,
    resume,
    situation,
)

QUIET = [16, 20, 23, 28]


def test_l_dusk_1_highest_first_from_todays_space_only() -> None:
    """L-DUSK-1, L-DUSK-2, L-DUSK-5: decreasing key order; only day d's tokens can be taken."""
    hands = {0: [10, 20, 23, 28], 1: [29, 20, 23, 28], 2: QUIET}
    state = situation(3, hands=hands, day=2, space=["chest", "jewel", "goods"])
    state = state._replace(spaces=(state.spaces[1], *state.spaces[1:]))  # day 1's space holds the same
    state, _ = play(state, [10, 29, 16])
    assert state.phase == DUSK and state.actor == (1, 29)
    assert RULES.legal_actions(state, 1) == [
        {"type": "take", "booty": "chest"},
        {"type": "take", "booty": "jewel"},
        {"type": "take", "booty": "goods"},
    ]
    state = act(state, 1, {"type": "take", "booty": "jewel"}).state
    assert state.actor == (2, 16)
    state = act(state, 2, {"type": "take", "booty": "goods"}).state
    assert booty_of(state, 0) == {"chest": 1} and booty_of(state, 1) == {"jewel": 1}
    assert sum(state.spaces[0]) == 3 and sum(state.spaces[1]) == 0, "day 1's space untouched"


def test_l_dusk_2_empty_space_and_one_kind() -> None:
    """L-DUSK-2, L-DEC-5: from a space of one kind the token is taken at once; an empty space
    gives nothing."""
    hands = {s: QUIET for s in range(3)}
    state, steps = play(situation(3, hands=hands, space=["goods", "goods"]), [16, 20, 23])
    assert state.phase == SUNRISE and state.day == 2, "no decision was owed"
    assert [booty_of(state, s) for s in range(3)] == [{}, {"goods": 1}, {"goods": 1}]
    assert "Yellow's Topman finds day-space 1 empty." in steps[-1].text


def test_l_dusk_3_saber_with_empty_neighbour_dens() -> None:
    """L-DUSK-3: if both neighbours' dens are empty nothing happens; the saber joins the booty."""
    state, steps = play(situation(3, hands={s: QUIET for s in range(3)}, space=["saber"]), [20, 16, 23])
    assert booty_of(state, 2) == {"saber": 1}
    assert "The neighbours' dens are empty, so the saber hits nobody." in steps[-1].text


def test_l_dusk_4_officer_discards_the_taker() -> None:
    """L-DUSK-4: the character is discarded at the end of its turn; the officer stays."""
    state, _ = play(situation(3, hands={s: QUIET for s in range(3)}, space=["officer"]), [20, 16, 23])
    assert booty_of(state, 2) == {"officer": 1} and state.graves[2] == (23,) and state.dens[2] == ()


def test_l_char_18_cook_officer_first_still_takes_second() -> None:
    """L-CHAR-18: an officer as first pick does not cancel the second; the Cook is then
    discarded. With one token left the Cook takes one."""
    hands = {0: [18, 20, 23, 28], 1: QUIET}
    state, _ = play(situation(2, hands=hands, space=["officer", "chest"]), [18, 16])
    state = act(state, 0, {"type": "take", "booty": "officer"}).state
    assert booty_of(state, 0) == {"chest": 1, "officer": 1}
    assert state.graves[0] == (18,) and 18 not in state.dens[0]
    state, _ = play(situation(2, hands=hands, space=["map"]), [18, 16])
    assert booty_of(state, 0) == {"map": 1} and state.dens[0] == (18,)


def test_l_dusk_7_leftover_tokens_stay_until_the_end() -> None:
    """L-DUSK-7, L-END-5: tokens left on a space stay there, then return to the bag."""
    hands = {s: [5, 20, 23, 28] for s in range(2)}
    state, _ = play(situation(2, hands=hands, space=["chest", "jewel"]), [5, 5])
    assert sum(state.spaces[0]) == 2 and state.day == 2
    end, _ = resume(at_dusk_end(situation(2, hands=hands, day=6, space=["chest", "jewel"])))
    assert end.campaign == 2 and sum(end.bag) == 50 - 12


def test_l_night_3_waitress_questions_at_once_any_order() -> None:
    """L-NIGHT-3, L-CHAR-8, L-DEC-2: each player whose Waitress acts while holding a map is
    asked at once; what comes before is automatic; answers in any order give the same Night."""
    state = situation(
        3,
        dens={0: [8, 7, 20], 1: [8], 2: [8]},
        booty={0: {"map": 2, "saber": 1}, 2: {"map": 1}},
    )
    state, _text = resume(at_dusk_end(state))
    assert state.phase == NIGHT and RULES.to_act(state) == [0, 2]
    assert state.doubloons == (11, 10, 10), "the Armorer acted before the question"
    assert RULES.legal_actions(state, 0) == [
        {"type": "waitress", "sell": False},
        {"type": "waitress", "sell": True},
    ]
    view = RULES.view(state, 1)
    assert view["pending"] == [
        {"seat": 0, "character": {"id": "0.8", "seat": 0, "rank": 8, "name": "Waitress", "influence": 1}},
        {"seat": 2, "character": {"id": "2.8", "seat": 2, "rank": 8, "name": "Waitress", "influence": 3}},
    ]
    assert view["prompt"] is None and RULES.view(state, 0)["prompt"]["decision"] == "waitress"
    one = act(act(state, 0, {"type": "waitress", "sell": True}).state, 2, {"type": "waitress", "sell": False})
    other = act(
        act(state, 2, {"type": "waitress", "sell": False}).state, 0, {"type": "waitress", "sell": True}
    )
    assert RULES.dump(one.state) == RULES.dump(other.state)
    after = one.state
    assert after.phase == SUNRISE and after.day == 2
    assert after.doubloons == (15, 10, 10), "+3 for the map, then the Barkeep's +1"
    assert booty_of(after, 0) == {"map": 1, "saber": 1}


def test_l_night_1_decreasing_rank_discarded_do_not_act() -> None:
    """L-NIGHT-1, L-CHAR-13, L-CHAR-20: a Mutineer alone gains nothing; the Armorer gains per saber."""
    state, text = resume(at_dusk_end(situation(dens={0: [13], 1: [20]}, booty={1: {"saber": 3}})))
    assert state.doubloons[:2] == (10, 13)
    assert "Yellow's Mutineer is alone in the den: nothing happens." in text


def test_l_night_2_granny_wata_alone_gains_before_the_rest() -> None:
    """L-NIGHT-2, L-CHAR-27: the only Granny Wata gains 2; she is resolved for all dens first."""
    state, text = resume(at_dusk_end(situation(dens={2: [27, 13]})))
    # Granny Wata +2 first; then the Mutineer discards her, the lowest other, and gains 2.
    assert state.doubloons[2] == 14 and state.graves[2] == (27,) and state.dens[2] == (13,)
    assert text.index("Granny Wata is the only one") < text.index("Mutineer")


def test_l_zone_5_night_effects_every_night_from_the_first() -> None:
    """L-ZONE-5, L-CHAR-7: a Barkeep played today acts tonight and every later Night."""
    hands = {0: [7, 16, 20, 23, 28], 1: [5, *QUIET]}
    state, _ = play(situation(2, hands=hands), [7, 16])
    assert state.doubloons[0] == 11
    state, _ = play(state, [20, 20])
    assert state.doubloons[0] == 12


def _end(**kwargs: object) -> tuple[tuple[int, ...], str]:
    state, text = resume(at_dusk_end(situation(day=6, **kwargs)))  # type: ignore[arg-type]
    return state.fortunes[0], text


def test_l_end_1_end_effects_in_decreasing_rank() -> None:
    """L-END-1, L-CHAR-6, L-CHAR-24, L-CHAR-28, L-CHAR-23: Preacher +5, Gambler +8, First
    Mate +1 per den character (itself included), Treasurer +1 per goods, jewel and chest."""
    booty = {"goods": 2, "jewel": 1, "chest": 1, "relic": 1}
    fortunes, text = _end(dens={0: [6, 24, 28, 23]}, booty={0: booty}, doubloons=[0, 10, 10, 10])
    # 5 + 8 + 4 + 4 = 21 doubloons; booty 2 + 3 + 5 - 3 = 7.
    assert fortunes[0] == 28
    assert "Yellow's den at the End: First Mate +4, Gambler +8, Treasurer +4, Preacher +5." in text


def test_l_char_16_topman_ties_count() -> None:
    """L-CHAR-16: gain 5 if no player has fewer den characters (ties count)."""
    fortunes, _ = _end(dens={0: [16, 5], 1: [2, 3], 2: [2, 3, 4], 3: [1, 2]})
    assert fortunes[0] == 15
    fortunes, _ = _end(dens={0: [16, 5], 1: [2], 2: [2, 3, 4], 3: [1, 2]})
    assert fortunes[0] == 10


def test_l_char_25_governors_daughter() -> None:
    """L-CHAR-25: gain 6 alone; with another Governor's Daughter in a den every owner loses 3."""
    fortunes, _ = _end(dens={0: [25]})
    assert fortunes[0] == 16
    fortunes, _ = _end(dens={0: [25], 2: [25]})
    assert (fortunes[0], fortunes[2]) == (7, 7)


def test_l_char_26_quartermaster_and_l_char_29_captain_end() -> None:
    """L-CHAR-26: lose 8 at the End; L-CHAR-29: lose 3 per cursed relic on top of L-END-2."""
    fortunes, _ = _end(dens={0: [26, 29]}, booty={0: {"relic": 1}}, doubloons=[20, 10, 10, 10])
    assert fortunes[0] == 20 - 3 - 8 - 3


def test_l_end_2_fortune_values() -> None:
    """L-END-2: 5 per chest, 3 per jewel, 1 per goods, 12 per set of 3 maps, -3 per relic;
    leftover maps, sabers and officers are worth 0."""
    booty = {"chest": 2, "jewel": 1, "goods": 3, "map": 5, "relic": 1, "saber": 2, "officer": 1}
    fortunes, _ = _end(booty={0: booty}, doubloons=[1, 10, 10, 10])
    assert fortunes[0] == 1 + 10 + 3 + 3 + 12 - 3


def test_l_end_4_scores_add_up_and_l_end_5_cleanup() -> None:
    """L-END-4, L-END-5: the fortune is added to the score; dens and graveyards leave the game
    (their owners see them as removed), tokens return to the bag, hands are kept."""
    state = situation(day=6, dens={0: [29, 5]}, graves={0: [12]}, booty={0: {"chest": 1}})
    after, _ = resume(at_dusk_end(state))
    assert after.fortunes == ((15, 10, 10, 10),)
    assert after.removed[0] == (5, 12, 29) and after.dens[0] == () and after.graves[0] == ()
    assert sum(after.bag) + sum(map(sum, after.spaces)) == 50
    view = RULES.view(after, 1)
    assert view["seats"][0]["removed_count"] == 3 and view["removed"] == []
    assert [c["rank"] for c in RULES.view(after, 0)["removed"]] == [5, 12, 29]
    assert view["seats"][0]["score"] == 15 and view["seats"][0]["fortunes"] == [15]


def test_l_win_1_highest_score_ties_share() -> None:
    """L-WIN-1, L-END-5: after campaign 3 the highest score wins, ties share the win; the scored
    position stays on the table."""
    state = situation(campaign=3, day=6, doubloons=[12, 12, 3, 0], booty={3: {"chest": 1}})
    state = state._replace(fortunes=((10, 10, 30, 5), (5, 5, 0, 5)))
    state, text = resume(at_dusk_end(state))
    assert state.phase == OVER and RULES.is_finished(state) and RULES.to_act(state) == []
    assert RULES.result(state) == {"scores": [27, 27, 33, 15], "winners": [2]}
    assert "The game is over; Blue wins." in text
    tie = situation(campaign=3, day=6, doubloons=[12, 12, 10, 0])
    tie, text = resume(at_dusk_end(tie._replace(fortunes=((0, 0, 0, 0), (0, 0, 2, 0)))))
    assert RULES.result(tie) == {"scores": [12, 12, 12, 0], "winners": [0, 1, 2]}
    assert "Yellow and Red and Blue share the win" in text
    view = RULES.view(state, None)
    assert view["status"] == "finished" and view["result"] == RULES.result(state)
    assert view["seats"][3]["booty"]["chest"] == 1 and view["seats"][0]["doubloons"] == 12
    assert view["scoring"][3]["last_campaign"]["fortune"] == 5
    assert json.loads(json.dumps(view)) == view
    assert all(RULES.legal_actions(state, s) == [] for s in range(4))


def test_l_dbl_3_gains_from_the_bank_payments_to_a_player() -> None:
    """L-DBL-3, L-DBL-2: gains come from the bank; the Beggar is paid what was actually lost."""
    hands = {0: [3, 20, 23, 28], 1: [29, 20, 23, 28], 2: QUIET, 3: QUIET}
    state, _ = play(situation(hands=hands, doubloons=[0, 2, 10, 10]), [3, 29, 20, 20])
    assert state.doubloons[:2] == (2, 3)
    assert sum(state.doubloons) == 2 + 3 + 20, "the Captain's 3 came from the bank"
    assert KIND_INDEX["chest"] == 0
