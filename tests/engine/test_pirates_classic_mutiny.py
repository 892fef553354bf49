"""Pirates (classic): mutiny as a challenge (C-MUT-1 … C-MUT-3)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import IllegalAction
from tests.engine.pirates_classic_support import RULES, SHIPS, booty_of, situation

# Red's turn: Blue has 3 pirates in Red's stack led by Red 2, Green 3 in the one led by Red 3;
# Yellow has 1 pirate in it only.
TWO_STACKS = [["0.2", "1.2", "1.3", "1.4"], ["0.3", "2.2", "2.3", "2.4", "3.2"]]
DISPLAY = ["C08", "C01", "C11"]  # minimum crews 4, 2, 5


def challenge(party: str) -> dict[str, Any]:
    return {"type": "challenge", "party": party}


DECLINE = {"type": "decline"}


def board(party: str, ship: str, booty: str | None = None) -> dict[str, Any]:
    return {"type": "board", "party": party, "ship": ship, "booty": booty}


def test_c_mut_1_three_pirates_in_another_players_stack_qualify() -> None:
    """C-MUT-1: a player with 3 or more pirates in the active player's stack may challenge;
    with 2 they may not."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    assert RULES.to_act(state) == [1, 2]
    assert RULES.legal_actions(state, 1) == [challenge("0.2"), DECLINE]
    assert RULES.legal_actions(state, 2) == [challenge("0.3"), DECLINE]
    assert RULES.legal_actions(state, 3) == []
    two = situation(parties=[["0.2", "1.2", "1.3", "2.4"]], display=DISPLAY)
    assert RULES.to_act(two) == [0]
    with pytest.raises(IllegalAction, match="Nobody has asked you"):
        RULES.apply(two, 1, challenge("0.2"))


def test_c_mut_2_all_qualified_players_are_asked_at_once_and_the_captain_waits() -> None:
    """C-MUT-2: the questions are asked of every qualified player at once; the active player
    has no legal action until all have answered."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    assert RULES.simultaneous and RULES.to_act(state) == [1, 2]
    assert RULES.legal_actions(state, 0) == [] and RULES.forced_action(state, 0) is None
    assert RULES.forced_action(state, 1) is None, "answering is a choice, never forced"
    with pytest.raises(IllegalAction, match="Blue and Green must first say whether they challenge you"):
        RULES.apply(state, 0, board("0.2", "C08"))
    after_green = RULES.apply(state, 2, DECLINE)
    assert RULES.to_act(after_green) == [1]
    with pytest.raises(IllegalAction, match="already answered"):
        RULES.apply(after_green, 2, challenge("0.3"))
    both = RULES.apply(after_green, 1, DECLINE)
    assert RULES.to_act(both) == [0]
    assert {a["type"] for a in RULES.legal_actions(both, 0)} == {"move", "board"}


def test_c_mut_2_who_is_asked_and_every_answer_are_public() -> None:
    """C-MUT-2: the questions and answers are in every viewer's view and in the log sentence;
    nothing of an answer is kept from anyone."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    view = RULES.view(state, None)
    assert view["to_act"] == [1, 2] and view["active"] == 0
    assert view["challenge"] == {
        "captain": 0,
        "open": True,
        "questions": [
            {"seat": 1, "stack": "0.2", "answer": None},
            {"seat": 2, "stack": "0.3", "answer": None},
        ],
        "challenged": [],
    }
    step = RULES.step(state, 1, challenge("0.2"))
    assert step.text == "Blue challenges Red to board with Red's stack of 4 led by Red 2."
    assert step.public_action is None and not step.private and step.full_text is None
    declined = RULES.step(step.state, 2, DECLINE)
    assert declined.text == "Green does not challenge Red to board with Red's stack of 5 led by Red 3."
    for viewer in (None, 0, 1, 2, 3):
        window = RULES.view(declined.state, viewer)["challenge"]
        assert window["open"] is False and window["challenged"] == ["0.2"]
        assert [q["answer"] for q in window["questions"]] == ["challenge", "decline"]


def test_c_mut_2_the_question_is_asked_again_at_every_turn_start() -> None:
    """C-MUT-2: declining now does not settle it; the next turn of the captain asks again, and
    the sentence that starts a turn says who is asked."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    state = RULES.apply(RULES.apply(state, 1, DECLINE), 2, DECLINE)
    state = RULES.apply(state, 0, {"type": "move", "party": "0.4", "onto": "3.3"})
    assert RULES.to_act(state) == [1]
    state = RULES.apply(state, 1, {"type": "move", "party": "1.5", "onto": "3.4"})
    state = RULES.apply(state, 2, {"type": "move", "party": "2.5", "onto": "3.5"})
    step = RULES.step(state, 3, {"type": "move", "party": "3.Q", "onto": "0.4"})
    assert step.text.endswith("; Blue and Green decide whether to challenge Red.")
    assert RULES.to_act(step.state) == [1, 2]
    assert [q["answer"] for q in RULES.view(step.state, None)["challenge"]["questions"]] == [None, None]


def test_c_mut_2_a_stack_that_can_board_nothing_triggers_no_question() -> None:
    """C-MUT-2: only stacks that can board some face-up ship raise a question."""
    state = situation(parties=TWO_STACKS, display=["C11", "C12", "C14"])  # crews 5, 5, 6
    assert RULES.to_act(state) == [2], "only the stack of 5 can board"
    none = situation(parties=TWO_STACKS, display=["C14", "C15", None])
    assert RULES.to_act(none) == [0] and RULES.view(none, None)["challenge"] is None


def test_c_mut_2_only_the_stack_the_seat_qualifies_against_can_be_named() -> None:
    """C-MUT-2 / C-ACT: `challenge` names the one stack this seat qualifies against."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    with pytest.raises(IllegalAction, match="only challenge Red to board with the stack led by Red 2"):
        RULES.apply(state, 1, challenge("0.3"))
    with pytest.raises(IllegalAction, match="not 7"):
        RULES.apply(state, 1, challenge(7))  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="A challenge action needs party"):
        RULES.apply(state, 1, {"type": "challenge"})
    with pytest.raises(IllegalAction, match="A decline action has no party"):
        RULES.apply(state, 1, {"type": "decline", "party": "0.2"})


def test_c_mut_2_an_unanswered_question_can_always_be_declined() -> None:
    """C-MUT-2: `decline` is always legal for a seat still asked (the service's timeout)."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    for seat in (1, 2):
        assert DECLINE in RULES.legal_actions(state, seat)
        assert RULES.apply(state, seat, DECLINE).answers[seat] == 2


def test_c_mut_2_at_the_deadline_an_unanswered_question_counts_as_declined() -> None:
    """C-MUT-2: timeout_action is `decline` for each seat still to answer, and nothing for a
    seat that answered, the captain, or a seat never asked (their late turn is the policy's)."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    assert [RULES.timeout_action(state, seat) for seat in range(4)] == [None, DECLINE, DECLINE, None]
    answered = RULES.apply(state, 2, challenge("0.3"))
    assert [RULES.timeout_action(answered, seat) for seat in range(4)] == [None, DECLINE, None, None]
    both = RULES.apply(answered, 1, DECLINE)
    assert [RULES.timeout_action(both, seat) for seat in range(4)] == [None] * 4
    assert RULES.timeout_action(situation(), 0) is None, "a turn with no question is the policy's"


def test_c_mut_3_a_challenge_forces_a_boarding_with_a_challenged_stack() -> None:
    """C-MUT-3: after a challenge the captain may only board with a challenged stack; the
    captain picks the ship (and booty); the other stacks' challenges lapse."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    state = RULES.apply(RULES.apply(state, 1, challenge("0.2")), 2, DECLINE)
    legal = RULES.legal_actions(state, 0)
    assert legal == [board("0.2", "C08"), board("0.2", "C01")]
    assert RULES.forced_action(state, 0) is None
    with pytest.raises(
        IllegalAction, match="You were challenged: you must board a ship with the stack led by Red 2"
    ):
        RULES.apply(state, 0, {"type": "move", "party": "0.4", "onto": "3.3"})
    with pytest.raises(IllegalAction, match="You were challenged"):
        RULES.apply(state, 0, board("0.3", "C11", "rum"))
    step = RULES.step(state, 0, board("0.2", "C01"))
    assert step.text.startswith("Red, challenged by Blue, boards the Pinnace Dove with 4 pirates")
    assert RULES.view(step.state, None)["challenge"] is None, "the next turn starts afresh"


def test_c_mut_3_both_challenged_stacks_are_the_captains_choice() -> None:
    """C-MUT-3: with several challenged stacks the captain chooses the stack and the ship."""
    state = situation(parties=TWO_STACKS, display=DISPLAY)
    state = RULES.apply(RULES.apply(state, 2, challenge("0.3")), 1, challenge("0.2"))
    parties = {(a["party"], a["ship"]) for a in RULES.legal_actions(state, 0)}
    assert parties == {("0.2", "C08"), ("0.2", "C01"), ("0.3", "C08"), ("0.3", "C01"), ("0.3", "C11")}
    step = RULES.step(state, 0, board("0.3", "C11", "candlestick"))
    assert step.text.startswith("Red, challenged by Blue and Green, boards the Frigate Intrepid")


def test_c_mut_3_a_forced_boarding_pays_and_shares_booty_as_any_boarding() -> None:
    """C-MUT-3: captain, pay and booty are unchanged by the challenge."""
    free = situation(parties=TWO_STACKS, display=DISPLAY, answers={1: "decline", 2: "decline"})
    forced = situation(parties=TWO_STACKS, display=DISPLAY, answers={1: "challenge", 2: "decline"})
    action = board("0.2", "C08")
    plain, challenged = RULES.apply(free, 0, action), RULES.apply(forced, 0, action)
    assert plain.treasury == challenged.treasury == (10 + 18 - 9, 19, 10, 10)
    assert plain.booty == challenged.booty and booty_of(challenged, 0) == {"dagger": 1}
    assert [SHIPS.ids[s] for s in challenged.boarded] == ["C08"]
