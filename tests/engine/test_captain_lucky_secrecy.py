"""Captain Lucky secrecy (K-END-4): hands and the pile's order reach nobody else, not even
after the end, while every die, the discard pile, collections and hand sizes are public.

The test is indistinguishability: two games that differ only in a secret (made with the
``deck`` option) and see the same public events give every other viewer byte-identical views
and log sentences, step after step, to the end.
"""

from __future__ import annotations

import json
import random

from engine.captain_lucky.state import LuckyState
from tests.engine.captain_lucky_support import (
    RULES,
    playout,
    shuffled_deck,
    situation,
)


def swap(deck: list[str], i: int, j: int) -> list[str]:
    out = list(deck)
    out[i], out[j] = out[j], out[i]
    return out


def first_difference(deck: list[str], start: int, stop: int, other: int) -> int:
    """The first position in start..stop-1 whose kind differs from ``deck[other]``."""
    return next(i for i in range(start, stop) if deck[i] != deck[other])


def dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False)


def twin_games(players: int, deck_a: list[str], deck_b: list[str], seed: int) -> tuple[int, bool]:
    """Play both games with the same actions (each chosen among those legal in both) and check,
    at every step, that spectators and every seat whose hand is the same in both games see
    byte-identical views, sentences and forced actions. Returns (steps, reached the end)."""
    a = RULES.new_game(players, seed, {"deck": deck_a})
    b = RULES.new_game(players, seed, {"deck": deck_b})
    rng = random.Random(f"twins:{seed}")
    for steps in range(3000):
        assert dumps(RULES.view(a, None)) == dumps(RULES.view(b, None))
        for seat in range(players):
            if a.hands[seat] == b.hands[seat]:
                assert dumps(RULES.view(a, seat)) == dumps(RULES.view(b, seat))
            assert RULES.forced_action(a, seat) == RULES.forced_action(b, seat)
        if RULES.is_finished(a):
            assert RULES.is_finished(b) and RULES.result(a) == RULES.result(b)
            return steps, True
        (seat,) = RULES.to_act(a)
        assert RULES.to_act(b) == [seat]
        legal_b = RULES.legal_actions(b, seat)
        common = [action for action in RULES.legal_actions(a, seat) if action in legal_b]
        if not common:
            return steps, False  # the hidden difference now changes what the seat may do
        action = rng.choice(common)
        step_a, step_b = RULES.step(a, seat, action), RULES.step(b, seat, action)
        assert step_a.text == step_b.text
        assert step_a.full_text is None and step_b.full_text is None  # hands stay hidden for ever
        assert step_a.public_action is None and step_b.public_action is None
        for reader in set(step_a.private) | set(step_b.private):
            same_before = a.hands[reader] == b.hands[reader]
            if same_before and step_a.state.hands[reader] == step_b.state.hands[reader]:
                assert step_a.private.get(reader) == step_b.private.get(reader)
        a, b = step_a.state, step_b.state
    raise AssertionError("the twin games did not end")


def test_k_end_4_another_seats_hand_is_invisible_to_everyone_else() -> None:
    """K-END-4: Green and Yellow hold one card each the other way round; Red, Blue and
    spectators see byte-identical views and sentences all game long, and after the end."""
    endings = 0
    for seed in range(12):
        deck_a = shuffled_deck(4, seed)
        green = first_difference(deck_a, 10, 15, 15)  # a card of Green's hand …
        deck_b = swap(deck_a, green, 15)  # … swapped with Yellow's first card
        a = RULES.new_game(4, seed, {"deck": deck_a})
        b = RULES.new_game(4, seed, {"deck": deck_b})
        assert a.hands[2] != b.hands[2] and a.hands[3] != b.hands[3]
        assert RULES.view(a, 2) != RULES.view(b, 2), "the test would see a difference if one leaked"
        steps, finished = twin_games(4, deck_a, deck_b, seed)
        assert steps >= 4
        endings += finished
    assert endings >= 9


def test_k_end_4_the_pile_order_is_invisible_until_a_card_is_drawn() -> None:
    """K-END-4: two piles differing in the order of two cards give every seat identical views
    until one of them is drawn, and afterwards to every seat that did not draw it."""
    endings = 0
    for seed in range(12):
        deck_a = shuffled_deck(5, 100 + seed)
        first = 30 + seed
        deck_b = swap(deck_a, first, first_difference(deck_a, first + 1, 97, first))
        steps, finished = twin_games(5, deck_a, deck_b, seed)
        assert steps >= 10
        endings += finished
    assert endings >= 9


def test_k_end_4_views_show_public_parts_and_only_ones_own_hand() -> None:
    """K-END-4: hand sizes, dice, discards, captains, collections, the middle and the pile's
    size are public; a hand only in its holder's view, also after the end; never the pile."""
    final, steps = playout(3, "secrecy")
    for state, _, _ in [*steps[::5], (final, 0, {})]:
        check_view(state)
    assert RULES.is_finished(final)
    spectator = RULES.view(final, None)
    assert all(seat["hand"] is None for seat in spectator["seats"])
    assert RULES.view(final, 1)["seats"][1]["hand"] is not None


def check_view(state: LuckyState) -> None:
    for viewer in [None, *range(state.players)]:
        view = RULES.view(state, viewer)
        text = dumps(view)
        assert json.loads(text) == view
        for key in ("pile", "rng", "seed", "deck", "hands"):
            assert f'"{key}"' not in text
        for seat in view["seats"]:
            assert seat["hand_count"] == sum(state.hands[seat["seat"]])
            if seat["seat"] == viewer:
                assert sum(seat["hand"].values()) == seat["hand_count"]
            else:
                assert seat["hand"] is None
        assert view["pile_count"] == len(state.pile)


def test_k_end_4_sentences_tell_draws_by_number_and_the_drawer_by_kind() -> None:
    """K-END-4: the public sentence says how many cards were drawn, only the drawer reads
    which; the dice always appear in the public sentence."""
    final, steps = playout(4, "sentences")
    drawn_any = rolled_any = False
    state = steps[0][0]
    for state, seat, action in steps:
        step = RULES.step(state, seat, action)
        assert step.full_text is None and step.public_action is None
        assert set(step.private) <= {seat}
        if step.private:
            drawn_any = True
            assert " (" in step.private[seat].split("draws", 1)[1]
            assert "draws" in step.text and " (1 " not in step.text.split("draws", 1)[1]
        if action["type"] in ("steal", "reroll", "captain_bonus"):
            rolled_any = True
            assert "☠" in step.text or "blank" in step.text
    assert drawn_any and rolled_any and RULES.is_finished(final)


def test_k_end_4_the_service_stops_for_a_seat_only_on_public_grounds() -> None:
    """K-END-4, K-TURN-4: stop is made at once (forced_action) only when the spent captain
    bonus and the hand's size show there is no other choice; a hand that merely lacks the kind
    leaves the stop to the player, so the timing tells nothing about the hand."""
    common = {"middle": [(1, "ruby", 3)], "captain_used": [0], "steal": ("m1", [True, False, False])}
    no_rubies = situation(4, hands={0: {"pearl": 5}}, phase="roll", **common)  # type: ignore[arg-type]
    two_rubies = situation(4, hands={0: {"pearl": 3, "ruby": 2}}, phase="roll", **common)  # type: ignore[arg-type]
    one_card = situation(4, hands={0: {"pearl": 1}}, phase="roll", **common)  # type: ignore[arg-type]
    assert RULES.legal_actions(no_rubies, 0) == [{"type": "stop"}]
    assert RULES.forced_action(no_rubies, 0) is None
    assert RULES.forced_action(two_rubies, 0) is None
    assert RULES.legal_actions(one_card, 0) == [{"type": "stop"}]
    assert RULES.forced_action(one_card, 0) == {"type": "stop"}
    assert RULES.forced_action(one_card, 1) is None
    bonus_left = one_card._replace(captain_used=(False,) * 4)
    assert RULES.forced_action(bonus_left, 0) is None
    texts = {RULES.step(s, 0, {"type": "stop"}).text for s in (no_rubies, two_rubies)}
    assert len(texts) == 1, "a stop reads the same whatever the hand holds"
