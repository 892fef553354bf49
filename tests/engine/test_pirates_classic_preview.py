"""Pirates (classic)'s ``Rules.preview``: every legal move says before it is made what it will
do, in the edition's words, and what it says holds once the engine has made the move. The
boarding that empties the display says new ships come up and names none of them; that no
preview reads the face-down ships is checked for every rule set by the conformance suite
(tests/engine/conformance.py)."""

from __future__ import annotations

import re
from typing import Any

from engine.base import seat_name
from engine.pirates.state import PIRATE_INDEX, PIRATES_PER_SEAT, pirate_name
from engine.pirates_classic import KIND_LABELS
from engine.pirates_classic.cards import KIND_INDEX
from engine.pirates_classic.state import EMPTY, ClassicState, challenged, find_party, questions, waiting
from tests.engine.pirates_classic_support import RULES, playout, situation

LABEL_KIND = {label: kind for kind, label in KIND_LABELS.items()}
SEAT_INDEX = {seat_name(s): s for s in range(5)}
# Seeded playouts: random and greedy bots, every player count.
PLAYOUTS = [(3, "htp-a", None), (4, "htp-b", ["greedy", "random", "random", "greedy"]), (5, "htp-c", None)]


def _positions() -> list[tuple[ClassicState, int]]:
    """Every 7th position of each playout and every one where a boarding, a challenge question
    or a skip comes up, with each seat to act there."""
    found = []
    for players, seed, bots in PLAYOUTS:
        _final, steps = playout(players, seed, bots)
        for number, (state, _seat, action) in enumerate(steps):
            can_board = any(a["type"] == "board" for a in RULES.legal_actions(state, state.active))
            if number % 7 == 0 or can_board or waiting(state) or action["type"] == "skip":
                found += [(state, seat) for seat in RULES.to_act(state)]
    return found


POSITIONS = _positions()


def _answer_the_rest(state: ClassicState, seat: int) -> ClassicState:
    """The other seats still asked decline, so the captain's turn begins (C-MUT-2)."""
    for other in waiting(state):
        if other != seat:
            state = RULES.apply(state, other, {"type": "decline"})
    return state


def _check_board(state: ClassicState, seat: int, action: dict[str, Any], said: str) -> None:
    after = RULES.apply(state, seat, action)
    (before_t, after_t), = re.findall(r"treasury (\d+) → (\d+)", said)
    assert (int(before_t), int(after_t)) == (state.treasury[seat], after.treasury[seat]), said
    for name, gain, old, new in re.findall(r"(\w+) \+(\d+) \((\d+) → (\d+)\)", said):
        other = SEAT_INDEX[name]
        assert after.treasury[other] - state.treasury[other] == int(gain), said
        assert (state.treasury[other], after.treasury[other]) == (int(old), int(new)), said
    label, held = re.search(r"you take the ([a-z ]+) \((\d+) in all", said).groups()  # type: ignore[union-attr]
    kind = KIND_INDEX[LABEL_KIND[label]]
    assert after.booty[seat][kind] == int(held) == state.booty[seat][kind] + 1, said
    mate = re.search(r"(\w+)'s mate gets the ([a-z ]+);", said)
    if mate:
        owner, mate_kind = SEAT_INDEX[mate.group(1)], KIND_INDEX[LABEL_KIND[mate.group(2)]]
        assert after.booty[owner][mate_kind] == state.booty[owner][mate_kind] + 1, said
    # C-BOARD-4 and C-BOARD-5: a refill or the end is announced exactly when it happens.
    ship = state.card_set.index[action["ship"]]
    emptied = tuple(EMPTY if s == ship else s for s in state.display)
    refilled = after.display != emptied
    assert ("new ships are turned up" in said) is (refilled and not after.end), said
    assert ("the game ends" in said) is (after.end == "all_ships_boarded"), said


def _check_move(state: ClassicState, seat: int, action: dict[str, Any], said: str) -> None:
    after = RULES.apply(state, seat, action)
    size, captain = re.search(r"You control a stack of (\d+) led by (\w+ [\d?])", said).groups()  # type: ignore[union-attr]
    assert captain == pirate_name(PIRATE_INDEX[action["party"]])
    party = after.parties[find_party(after.parties, PIRATE_INDEX[action["party"]])]
    assert len(party) == int(size) and party[0] // PIRATES_PER_SEAT == seat
    if "big enough to board the " in said:
        named = said.split("big enough to board the ")[1].split(" at your next turn")[0]
        shown = {after.card_set.name[s]: after.card_set.min_crew[s] for s in after.display if s != EMPTY}
        for name, crew in re.findall(r"([A-Z][\w' -]+?) \(crew (\d+)\)", named):
            assert shown[name] == int(crew) <= len(party), said
    # C-MUT-1: the players named hold 3 or more pirates in the stack, and are asked about it
    # when the captain's turn starts if it can board a ship then.
    rivals = re.search(r"; ([\w, ]+?) (?:has|each have) [\d/]+ pirates in it and may challenge", said)
    named_rivals = re.split(r", | and ", rivals.group(1)) if rivals else []
    counts = [sum(1 for p in party if p // PIRATES_PER_SEAT == s) for s in range(after.players)]
    assert sorted(SEAT_INDEX[n] for n in named_rivals) == [
        s for s, n in enumerate(counts) if s != seat and n >= 3
    ], said
    asked = questions(after.card_set, after.parties, after.display, seat, after.players)
    if "big enough" in said:
        assert all(asked[SEAT_INDEX[n]] == party[0] for n in named_rivals), said


def _check_challenge(state: ClassicState, seat: int, action: dict[str, Any], said: str) -> None:
    after = _answer_the_rest(RULES.apply(state, seat, action), seat)
    assert PIRATE_INDEX[action["party"]] in challenged(after)
    boardings = RULES.legal_actions(after, after.active)
    assert boardings and all(a["type"] == "board" for a in boardings)  # C-MUT-3
    earned = re.search(r"earn you (\d+)(?: to (\d+))? ducats", said)
    assert earned, said
    low, high = int(earned.group(1)), int(earned.group(2) or earned.group(1))
    gains = {
        RULES.apply(after, after.active, dict(a)).treasury[seat] - after.treasury[seat]
        for a in boardings
        if a["party"] == action["party"]
    }
    assert (min(gains), max(gains)) == (low, high), said


def _check_decline(state: ClassicState, seat: int, action: dict[str, Any], said: str) -> None:
    after = RULES.apply(state, seat, action)
    if "already did" in said or "must still board" in said:
        assert challenged(after), said
    if "moves or boards as they like" in said:
        assert not challenged(_answer_the_rest(after, seat)), said


def preview(state: ClassicState, seat: int, action: dict[str, Any]) -> str:
    said = RULES.preview(state, seat, action)
    assert said, action
    return said


def test_every_preview_holds_after_the_move() -> None:
    """C-MOVE-1, C-BOARD-2, C-BOARD-3, C-BOARD-4, C-MUT-1, C-MUT-3, C-TURN-1."""
    kinds: set[str] = set()
    for state, seat in POSITIONS:
        for action in map(dict, RULES.legal_actions(state, seat)):
            said = preview(state, seat, action)
            assert said.endswith(".") and len(said.split()) > 4, said
            kinds.add(action["type"])
            if action["type"] == "board":
                _check_board(state, seat, action, said)
            elif action["type"] == "move":
                _check_move(state, seat, action, said)
            elif action["type"] == "challenge":
                _check_challenge(state, seat, action, said)
            elif action["type"] == "decline":
                _check_decline(state, seat, action, said)
            else:
                after = RULES.apply(state, seat, action)
                if after.end:
                    assert after.end == "full_round_of_skips" and "the game ends" in said, said
                else:
                    assert f"skips in a row: {after.skips};" in said, said
    assert kinds == {"move", "board", "challenge", "decline", "skip"}, kinds


def test_the_boarding_that_turns_up_new_ships_names_none_of_them() -> None:
    """C-BOARD-4: the last ship on display boarded; the preview says new ships come up, the
    same whichever they are, and names no face-down ship."""
    state = situation(
        3,
        parties=[["0.5", "1.3", "2.Q"]],
        display=[None, "C04", None],
        boarded=["C01", "C02"],
        deck_rest=["C12", "C15", "C14"],
        treasury=[10, 10, 10],
    )
    action = {"type": "board", "party": "0.5", "ship": "C04", "booty": "rum"}
    said = preview(state, 0, action)
    after = RULES.apply(state, 0, action)
    assert "3 new ships are turned up" in said and EMPTY not in after.display
    rotated = state._replace(deck=state.deck[1:] + state.deck[:1])
    reversed_deck = state._replace(deck=tuple(reversed(state.deck)))
    assert said == preview(reversed_deck, 0, action) == preview(rotated, 0, action)
    for ship in state.deck:
        assert state.card_set.name[ship] not in said and state.card_set.ids[ship] not in said
    # 10 + 13 ducats, Blue 3 and Green's "?" (3) paid: 17 left (C-BOARD-3).
    assert "treasury 10 → 17" in said and "Blue +3 (10 → 13)" in said and "Green +3 (10 → 13)" in said
    assert "Blue's mate gets the dagger" in said


def test_a_boarding_the_treasury_cannot_cover_says_the_supply_pays() -> None:
    """C-BOARD-3: what the captain cannot pay comes from the supply; the captain ends at 0."""
    state = situation(
        3,
        parties=[["0.2", "2.4", "1.4", "2.3", "1.3", "2.2", "1.2"]],
        display=["C04", "C01", "C07"],
        treasury=[5, 10, 10],
        answers={1: "decline", 2: "decline"},
    )
    action = {"type": "board", "party": "0.2", "ship": "C01", "booty": None}
    said = preview(state, 0, action)
    after = RULES.apply(state, 0, action)
    assert "the supply pays the other 3, so treasury 5 → 0" in said and after.treasury == (0, 19, 19)
