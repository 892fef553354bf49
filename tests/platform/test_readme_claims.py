"""What the README tells players about secrets agrees with the rules the engine plays."""

from __future__ import annotations

import random
import re
from pathlib import Path

from engine.registry import get_rules

README = Path(__file__).resolve().parents[2] / "README.md"


def _classic_challenge_sentence() -> str:
    text = " ".join(README.read_text("utf-8").split())
    found = re.search(r"[^.]*in classic Pirates who is asked[^.]*\.", text)
    assert found, "README: the sentence on classic Pirates' challenge answers is gone"
    return found.group(0)


def test_c_mut_2_the_readme_says_classic_challenge_answers_are_public_at_once() -> None:
    """C-MUT-2: each answer to the challenge question is public when it is given; the README
    once said the answers stayed hidden until a reveal."""
    sentence = _classic_challenge_sentence()
    assert "public as soon as" in sentence and "C-MUT-2" in sentence
    assert "until the reveal" not in sentence.split(";", 1)[-1]


def test_c_mut_2_another_seat_sees_a_challenge_answer_the_moment_it_is_given() -> None:
    """What the README claims, played: while two seats are asked, the first one's answer is
    in the other's view at once."""
    rules = get_rules("pirates-classic")
    rng = random.Random("readme")
    for game in range(40):
        state = rules.new_game(players=4, seed=f"readme-{game}", options={})
        while not rules.is_finished(state):
            acting = rules.to_act(state)
            if len(acting) > 1:
                first, other = acting[0], acting[1]
                answer = next(a for a in rules.legal_actions(state, first) if a["type"] == "challenge")
                after = rules.apply(state, first, answer)
                challenge = rules.view(after, other)["challenge"]
                rounds = challenge if isinstance(challenge, list) else [challenge]
                questions = [q for c in rounds for q in c["questions"]]
                assert {"seat": first, "stack": answer["party"], "answer": "challenge"} in questions
                return
            state = rules.apply(state, acting[0], rng.choice(rules.legal_actions(state, acting[0])))
    raise AssertionError("no classic game of 40 asked two seats at once")
