"""What each audience may see (L-SUN-1, L-ZONE-1, L-ZONE-2, L-CHAR-22): a Sunrise choice is
secret until the reveal, hands, graveyards and removed cards are their owner's, a Surgeon's
return is hidden, and a pending decision shows others only who must act for which character."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import IllegalAction
from engine.libertalia.state import LibertaliaState
from tests.engine.libertalia_support import RULES, act, game, play, playout, situation


def public_face(state: LibertaliaState, seat: int, action: dict[str, Any]) -> tuple[Any, ...]:
    """Everything seats other than ``seat`` and spectators can learn from ``action``."""
    step = RULES.step(state, seat, action)
    others = [s for s in range(state.players) if s != seat] + [None]
    views = tuple(json.dumps(RULES.view(step.state, s), sort_keys=True) for s in others)
    privates = tuple(step.private.get(s) for s in others if s is not None)
    return (step.text, json.dumps(step.public_action, sort_keys=True), views, privates)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_l_sun_1_every_pick_looks_the_same_to_everyone_else(players: int) -> None:
    """L-SUN-1: from one state, every pair of different picks by a seat that is not the last
    to choose gives byte-identical views (sort_keys) to every other seat and to spectators,
    and the same public text and public action."""
    state = game(players, seed=f"secret:{players}")
    for chooser in range(players):
        before = state
        # Everyone after the chooser has already chosen, except one seat, so the chooser is
        # never the last (the first seat's case: nobody has chosen yet).
        for other in range(players):
            if other != chooser and other != (chooser + 1) % players and other > chooser:
                before = RULES.apply(before, other, RULES.legal_actions(before, other)[0])
        faces = {json.dumps(public_face(before, chooser, a)) for a in RULES.legal_actions(before, chooser)}
        assert len(faces) == 1, f"seat {chooser}'s pick shows through"
        step = RULES.step(before, chooser, RULES.legal_actions(before, chooser)[-1])
        name = RULES.view(before, chooser)["seats"][chooser]["name"]
        assert step.public_action == {"type": "play"}
        assert step.text.startswith(f"{name} has chosen a card; waiting for ")
        card = RULES.legal_actions(before, chooser)[-1]["rank"]
        card_name = before.chars.name[card]
        assert step.private[chooser].startswith(f"You chose the {card_name} (rank {card})")
        assert step.full_text is not None and f"{name} chose the {card_name} (rank {card})" in step.full_text
        assert card_name not in step.text


def test_l_sun_1_choices_final_and_in_any_order() -> None:
    """L-SUN-1, L-DEC-2: a choice is final, choices may arrive in any order, same result."""
    state = game(3, seed="order")
    after = RULES.apply(state, 1, {"type": "play", "rank": state.hands[1][0]})
    with pytest.raises(IllegalAction, match="You have already chosen a card; waiting for Yellow, Blue"):
        RULES.apply(after, 1, {"type": "play", "rank": state.hands[1][1]})
    assert RULES.to_act(after) == [0, 2]
    picks = {0: state.hands[0][2], 1: state.hands[1][0], 2: state.hands[2][4]}
    results = set()
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        final, _ = play(state, {s: picks[s] for s in order})
        results.add(json.dumps(RULES.dump(final), sort_keys=True))
    assert len(results) == 1


def test_l_sun_2_last_choice_reveals_all() -> None:
    """L-SUN-2: the last choice reveals every card; nothing is secret in that step."""
    state = situation(3, hands={s: [10, 20, 23, 28] for s in range(3)})
    state, steps = play(state, [10, 20, 23])
    last = steps[-1]
    assert last.public_action is None and last.full_text is None and last.private == {}
    assert "The cards are revealed; on the ship, left to right: Yellow's French Officer (10), " \
        "Red's Armorer (20), Blue's Treasurer (23)." in last.text  # fmt: skip


def test_l_zone_1_hands_graveyards_removed_are_the_owners() -> None:
    """L-ZONE-1: a hand, graveyard and removed cards are seen by their owner only; their
    sizes are public. Two states differing only there look the same to everyone else."""
    base = situation(hands={0: [9, 12, 20, 23]}, graves={0: [1, 2]})
    other = situation(hands={0: [9, 13, 20, 23]}, graves={0: [1, 3]})
    other = other._replace(removed=((4,), (), (), ()))
    base = base._replace(removed=((5,), (), (), ()))
    for viewer in (1, 2, 3, None):
        one = {k: v for k, v in RULES.view(base, viewer).items() if k != "dealt"}
        two = {k: v for k, v in RULES.view(other, viewer).items() if k != "dealt"}
        assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    mine = RULES.view(base, 0)
    assert [c["rank"] for c in mine["hand"]] == [9, 12, 20, 23]
    assert [c["rank"] for c in mine["graveyard"]] == [1, 2] and [c["rank"] for c in mine["removed"]] == [5]
    seat0 = RULES.view(base, 2)["seats"][0]
    assert (seat0["hand_count"], seat0["graveyard_count"], seat0["removed_count"]) == (4, 2, 1)
    assert RULES.view(base, None)["hand"] is None


def test_l_zone_1_pending_decision_shows_only_who_and_which_character() -> None:
    """L-ZONE-1: while a seat owes a decision, others see that it must act and which
    character resolves, never its choices."""
    state = situation(hands={0: [15, 20, 23, 28]}, dens={1: [7], 2: [12]})
    state, _ = play(state, [15, 20, 20, 20])
    assert RULES.to_act(state) == [0]
    mine = RULES.view(state, 0)
    assert mine["prompt"]["decision"] == "gunner"
    assert mine["prompt"]["actions"] == RULES.legal_actions(state, 0)
    for viewer in (1, 2, 3, None):
        view = RULES.view(state, viewer)
        assert view["prompt"] is None
        assert view["pending"] == [{"seat": 0, "character": mine["pending"][0]["character"]}]
        assert view["pending"][0]["character"]["name"] == "Gunner"
        assert RULES.legal_actions(state, viewer if viewer is not None else 9) == []


def test_l_zone_2_booty_and_doubloons_public() -> None:
    """L-ZONE-2: booty holdings, doubloons and dens are the same in every view."""
    state = situation(booty={1: {"map": 2, "relic": 1}}, dens={1: [7]}, doubloons=[3, 4, 5, 6])
    seats = [RULES.view(state, v)["seats"] for v in (0, 1, 2, 3, None)]
    assert all(s == seats[0] for s in seats)
    assert seats[0][1]["booty"]["map"] == 2 and seats[0][1]["doubloons"] == 4
    assert [c["name"] for c in seats[0][1]["den"]] == ["Barkeep"]


def test_l_char_22_surgeon_return_is_secret() -> None:
    """L-CHAR-22: which card the Surgeon returns is hidden from the others, chosen or forced
    (L-DEC-5); the public log says only that a card returned."""
    state = situation(hands={0: [22, 20, 23, 28]}, graves={0: [9, 12]})
    state, _ = play(state, [22, 20, 20, 20])
    assert state.decision == "revive"
    faces = {json.dumps(public_face(state, 0, a)) for a in RULES.legal_actions(state, 0)}
    assert len(faces) == 1
    step = act(state, 0, {"type": "revive", "rank": 12})
    assert step.public_action == {"type": "revive"} and step.full_text is None
    assert "Yellow's Surgeon returns a card from the graveyard to Yellow's hand." in step.text
    assert (
        "Your Surgeon returns the Freed Slave (rank 12) from your graveyard to your hand." in step.private[0]
    )
    assert "Freed Slave" not in step.text and 12 in step.state.hands[0]
    # Forced: one card in the graveyard; the step of another seat's last pick tells only seat 0.
    state = situation(hands={0: [22, 20, 23, 28]}, graves={0: [9]})
    state, steps = play(state, [22, 20, 20, 20])
    last = steps[-1]
    assert "the Carpenter (rank 9)" in last.private[0] and "Carpenter" not in last.text
    assert set(last.private) == {0} and last.public_action is None


@pytest.mark.parametrize("players", [3, 5])
def test_views_never_show_secrets_during_play(players: int) -> None:
    """No view holds the seed, the generator, the fixed options or another seat's pick."""
    final, steps = playout(players, f"views:{players}", options={"draws": ["chest"]})
    for before, *_ in steps[::4]:
        for viewer in [None, *range(players)]:
            view = RULES.view(before, viewer)
            text = json.dumps(view)
            for key in ("rng", "seed", "fixed_draws", "draws", "picks", "layouts"):
                assert f'"{key}"' not in text
            for s in range(players):
                if s != viewer:
                    assert view["seats"][s]["chosen"] == bool(before.picks[s])
            assert view["pick"] is None or viewer == view["viewer"]
    assert RULES.view(final, None)["status"] == "finished"
