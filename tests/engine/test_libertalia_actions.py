"""The action notation (L-ACT) and the decision points (L-DEC): exact forms, orders, and
every malformed or illegal input refused with a sentence."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import IllegalAction
from engine.libertalia.state import DAY, DUSK
from tests.engine.libertalia_support import RULES, act, game, play, playout, situation


def test_l_act_forms_and_orders() -> None:
    """L-ACT: plays by rank ascending; targets by seat then rank (see the Day tests for keep,
    sell and gunner); booty in booty_order; waitress false before true."""
    state = game(4, ranks=[[3, 9, 14, 15, 18, 22, 25, 27, 29]])
    assert RULES.legal_actions(state, 2) == [
        {"type": "play", "rank": r} for r in (3, 9, 14, 15, 18, 22, 25, 27, 29)
    ]
    state = situation(3, hands={s: [20, 23, 28] for s in range(3)}, space=["relic", "map", "chest", "goods"])
    state, _ = play(state, [20, 28, 23])
    assert [a["booty"] for a in RULES.legal_actions(state, 1)] == ["chest", "goods", "map", "relic"]


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ([], "An action must be a JSON object"),
        ({"type": "Play", "rank": 3}, "type must be one of"),
        ({"type": "play"}, "A play action needs rank"),
        ({"type": "play", "rank": 3, "card": 1}, "A play action has no card"),
        ({"type": "play", "rank": 3.0}, "rank must be a whole number from 1 to 30"),
        ({"type": "play", "rank": "3"}, "rank must be a whole number from 1 to 30"),
        ({"type": "play", "rank": True}, "rank must be a whole number from 1 to 30"),
        ({"type": "play", "rank": 31}, "rank must be a whole number from 1 to 30"),
        ({"type": "play", "rank": 4}, r"You have no Recruiter \(4\) in your hand"),
        (
            {"type": "take", "booty": "chest"},
            r"Now you must choose a card to play \(a play action\), not take",
        ),
        ({"type": "waitress", "sell": 1}, "Now you must choose a card to play"),
    ],
)
def test_l_dec_1_malformed_and_illegal_actions_refused(action: Any, message: str) -> None:
    """L-DEC-1, L-ACT: only JSON objects with the exact keys and JSON integers; only listed actions."""
    state = game(4, ranks=[[3, 9, 14, 15, 18, 22, 25, 27, 29]])
    with pytest.raises(IllegalAction, match=message):
        RULES.step(state, 0, action)


def test_wrong_seats_and_finished_games_refused() -> None:
    state = situation(hands={0: [15, 20, 23, 28]}, dens={1: [7], 2: [12]})
    state, _ = play(state, [15, 20, 20, 20])
    for seat, message in (
        (9, "There is no seat 9"),
        ("0", "There is no seat '0'"),
        (True, "There is no seat"),
    ):
        with pytest.raises(IllegalAction, match=message):
            RULES.step(state, seat, {"type": "gunner", "target": "1.7"})  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="It is not Red's decision now; waiting for Yellow"):
        RULES.step(state, 1, {"type": "gunner", "target": "1.7"})
    for target, message in (
        ("1.07", "target must be a character id"),
        ("01.7", "target must be a character id"),
        (17, "target must be a character id"),
        ("5.7", "There is no character 5.7 in this game"),
        ("1.31", "There is no character 1.31"),
        ("1.12", r"Red's den holds no Freed Slave \(12\)"),
    ):
        with pytest.raises(IllegalAction, match=message):
            RULES.step(state, 0, {"type": "gunner", "target": target})
    final, _ = playout(2, "over")
    with pytest.raises(IllegalAction, match="The game is over"):
        RULES.step(final, 0, {"type": "play", "rank": 1})


def test_refusal_sentences_for_each_decision() -> None:
    state = situation(hands={0: [21, 20, 23, 28]}, booty={0: {"goods": 2, "relic": 3}})
    state, _ = play(state, [21, 20, 20, 20])
    for action, message in (
        ({"type": "sell", "booty": "goods", "count": 3}, "You hold 2 goods; selling 3 needs 3 of one kind"),
        ({"type": "sell", "booty": "goods", "count": 4}, "count must be 2 or 3"),
        ({"type": "sell", "booty": "gold", "count": 2}, "booty must be one of: chest, jewel"),
        ({"type": "sell", "booty": "chest", "count": 2}, "You hold 0 chest"),
    ):
        with pytest.raises(IllegalAction, match=message):
            RULES.step(state, 0, action)
    hands = {0: [20, 23, 28, 16], 1: [5, 23, 28, 16], 2: [7, 23, 28, 16], 3: [6, 23, 28, 16]}
    state = situation(hands=hands, dens={1: [9], 2: [12], 3: [13]}, space=["goods", "saber"])
    state, _ = play(state, [20, 5, 7, 6])
    with pytest.raises(IllegalAction, match="Day-space 1 holds no chest"):
        RULES.step(state, 0, {"type": "take", "booty": "chest"})
    state = act(state, 0, {"type": "take", "booty": "saber"}).state
    # Seat 0's neighbours are 3 (left) and 1 (right); seat 2 is not one.
    assert RULES.legal_actions(state, 0) == [
        {"type": "saber", "target": "1.9"},
        {"type": "saber", "target": "3.13"},
    ]
    with pytest.raises(
        IllegalAction, match="The saber hits a neighbour's den only, and Blue is not your neighbour"
    ):
        RULES.step(state, 0, {"type": "saber", "target": "2.12"})
    with pytest.raises(IllegalAction, match=r"Green's den holds no Freed Slave \(12\)"):
        RULES.step(state, 0, {"type": "saber", "target": "3.12"})


def test_l_dec_3_one_seat_at_a_time_in_day_and_dusk_l_dec_4_only_the_owner_chooses() -> None:
    """L-DEC-3, L-DEC-4: in Day and Dusk exactly one seat is pending, the owner of the
    character whose turn it is; nobody else is ever asked."""
    for seed in range(6):
        _, steps = playout(4, f"dec:{seed}")
        for before, seat, action in steps:
            if before.phase in (DAY, DUSK):
                assert RULES.to_act(before) == [before.actor[0]] == [seat]
                assert action["type"] == before.decision


def test_l_dec_5_lone_choices_are_never_asked() -> None:
    """L-DEC-5: a decision with one legal action is not an action: never in to_act or
    legal_actions, never stored; its result shows in the sentence."""
    state = situation(hands={0: [4, 20, 23, 28]}, dens={0: [12]}, space=["goods"] * 4)
    state, steps = play(state, [4, 20, 20, 20])
    assert 12 in state.hands[0] and state.day == 2
    assert (
        "Yellow's Recruiter takes the Freed Slave (rank 12) from the den back into the hand."
        in steps[-1].text
    )
    for seed in range(4):
        _, log = playout(3, f"lone:{seed}")
        for before, seat, _ in log:
            assert len(RULES.legal_actions(before, seat)) >= 2


def test_listed_actions_are_shared_read_only_and_plain_twins_apply_alike() -> None:
    state = game(3)
    listed = RULES.legal_actions(state, 0)
    with pytest.raises(TypeError, match="cannot be changed"):
        listed[0]["rank"] = 5
    plain = dict(listed[0])
    assert RULES.dump(RULES.apply(state, 0, plain)) == RULES.dump(RULES.apply(state, 0, listed[0]))


def mutations(action: dict[str, Any], players: int, rng: random.Random) -> list[dict[str, Any]]:
    variants: list[dict[str, Any]] = [{**action, "extra": 1}]
    variants += [{k: v for k, v in action.items() if k != key} for key in action]
    for key, value in action.items():
        if key == "type":
            options: list[Any] = ["play", "parrot", "take", "saber", "waitress", "sell", "Take"]
        elif key == "rank":
            options = [rng.randrange(1, 31), 0, 31, float(value), str(value), True]
        elif key == "target":
            options = [f"{rng.randrange(players)}.{rng.randrange(1, 31)}", "9.9", 3, None]
        elif key == "booty":
            options = ["chest", "map", "relic", "saber", "gold", None]
        elif key == "count":
            options = [1, 2, 3, 4, 2.0, "3"]
        else:
            options = [not value, 0, 1, None, "true"]
        variants += [{**action, key: o} for o in options if o != value or type(o) is not type(value)]
    return variants


@pytest.mark.parametrize("players", [2, 4, 6])
def test_mutated_actions_are_refused_or_listed(players: int) -> None:
    """Every variant of a legal action is either listed as legal too or refused with an
    IllegalAction (never another exception)."""
    rng = random.Random(players)
    _, steps = playout(players, f"mutate:{players}")
    for before, seat, action in steps[::3]:
        legal = RULES.legal_actions(before, seat)
        for variant in mutations(action, players, rng):
            if variant in legal and all(
                type(variant[k]) is type(a[k]) for a in legal if a == variant for k in a
            ):
                RULES.apply(before, seat, variant)
            else:
                with pytest.raises(IllegalAction):
                    RULES.apply(before, seat, variant)
