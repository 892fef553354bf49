"""Carrying out a validated move (K-TURN) and telling it, in one pass.

The sentence is written while the move is made, so it always tells what the state shows.
Everyone reads the public sentence; the acting seat alone reads the cards it drew.
"""

from __future__ import annotations

import random

from engine.base import ENDS_THE_GAME, RngState
from engine.captain_lucky.actions import CaptainBonus, Move, Place, Reroll, StealSet, Stop
from engine.captain_lucky.cards import KINDS, count_of
from engine.captain_lucky.scoring import ending
from engine.captain_lucky.state import (
    BY_CAPTAIN,
    BY_REROLL,
    BY_STEAL,
    DIE_FACES,
    HAND_SIZE,
    HEAD_FACES,
    MIDDLE,
    OVER,
    PLACE,
    ROLL,
    STEAL,
    LuckyState,
    Roll,
    Steal,
    TreasureSet,
    add_cards,
    area_of,
    describe_sets,
    find_set,
    has_target,
    replace_at,
    seat_name,
    set_id,
)

HEAD_MARK, BLANK_MARK = "☠", "blank"


class _Generator(random.Random):
    """The game's generator, rebuilt from its saved state for each roll.

    ``random.Random()`` seeds itself from the operating system and then again in Python,
    only for ``setstate`` to overwrite it all: that was a third of the cost of a game. Here
    the C constructor seeds cheaply from the constant 0 and the Python seeding is skipped; the
    draws are those of ``random.Random`` once the state is set."""

    def __init__(self, seed: int) -> None:  # deliberately no Python seeding: setstate follows
        pass


def _generator(rng_state: RngState) -> random.Random:
    # The C constructor seeds from its argument; a small int is the cheapest seed there is.
    rng = _Generator(0)
    rng.setstate(rng_state)
    return rng


class Story:
    """A step's sentences: each public, with what a seat reads instead where it differs."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, dict[int, str]]] = []

    def add(self, public: str, private: dict[int, str] | None = None) -> None:
        self.parts.append((public, private or {}))

    def text(self) -> str:
        return " ".join(public for public, _ in self.parts)

    def private(self) -> dict[int, str]:
        seats = sorted({seat for _, private in self.parts for seat in private})
        return {seat: " ".join(private.get(seat, public) for public, private in self.parts) for seat in seats}


def dice_text(dice: tuple[bool, ...]) -> str:
    """ "☠ ☠ blank — 1 blank" or "☠ ☠ ☠ — all heads" """
    faces = " ".join(HEAD_MARK if head else BLANK_MARK for head in dice)
    blanks = dice.count(False)
    if blanks == 0:
        return f"{faces} — all heads"
    return f"{faces} — {blanks} blank{'s' if blanks > 1 else ''}"


def _cards(count: int) -> str:
    return f"{count} card{'s' if count != 1 else ''}"


def _drawn_kinds(drawn: tuple[int, ...]) -> str:
    return ", ".join(count_of(drawn.count(k), k) for k in range(len(KINDS)) if k in drawn)


def draw_up(state: LuckyState, seat: int) -> tuple[LuckyState, tuple[int, ...]]:
    """Draw back up to five cards, as many as the pile has (K-TURN-1, K-TURN-6)."""
    need = HAND_SIZE - sum(state.hands[seat])
    if need <= 0 or not state.pile:
        return state, ()
    drawn = state.pile[:need]
    hand = list(state.hands[seat])
    for kind in drawn:
        hand[kind] += 1
    hands = replace_at(state.hands, seat, tuple(hand))
    return state._replace(hands=hands, pile=state.pile[need:]), drawn


def _last_card_note(state: LuckyState) -> str:
    last = seat_name(state.players - 1)
    return f"That was the last card of the pile: the game ends after {last}'s turn."


def _place(state: LuckyState, seat: int, move: Place, story: Story) -> LuckyState:
    name = seat_name(seat)
    hand = list(state.hands[seat])
    hand[move.kind] -= move.cards
    middle, next_middle, touched = add_cards(state.middle, state.next_middle, move.kind, move.cards)
    state = state._replace(
        hands=replace_at(state.hands, seat, tuple(hand)),
        middle=middle,
        next_middle=next_middle,
        phase=STEAL,
    )
    placed = f"{name} places {count_of(move.cards, move.kind)} in the middle"
    placed += f" ({describe_sets(MIDDLE, touched)})"
    had_pile = bool(state.pile)
    state, drawn = draw_up(state, seat)
    if drawn:
        story.add(
            f"{placed} and draws {_cards(len(drawn))}.",
            {seat: f"{placed} and draws {_cards(len(drawn))} ({_drawn_kinds(drawn)})."},
        )
    else:
        story.add(f"{placed}; the pile is empty.")
    if had_pile and not state.pile:
        story.add(_last_card_note(state))
    return state


def _throw(
    state: LuckyState, dice: tuple[bool, ...], which: list[int]
) -> tuple[LuckyState, tuple[bool, ...]]:
    """K-TURN-7: one ``randrange(6)`` per thrown die, in die order; faces 0-2 are heads."""
    rng = _generator(state.rng_state)
    rolled = list(dice)
    for i in which:
        rolled[i] = rng.randrange(DIE_FACES) < HEAD_FACES
    return state._replace(rng_state=rng.getstate()), tuple(rolled)


def _target_phrase(owner: int, target: TreasureSet) -> str:
    text = f"{set_id(owner, target.num)} ({count_of(target.cards, target.kind)})"
    return text if owner == MIDDLE else f"{text} from {seat_name(owner)}"


def _resolve(
    state: LuckyState, seat: int, owner: int, target: TreasureSet, dice: tuple[bool, ...],
    which: list[int], by: str, lead: str, story: Story,
) -> LuckyState:  # fmt: skip
    """Record the roll; take the set on all heads (K-TURN-3), else wait for the player."""
    roll = Roll(seat, owner, target.num, target.kind, target.cards, dice, tuple(which), by, state.actions)
    state = state._replace(last_roll=roll)
    if False in dice:
        story.add(f"{lead}: {dice_text(dice)}.")
        return state._replace(phase=ROLL, steal=Steal(owner, target.num, dice))
    area = tuple(s for s in area_of(state, owner) if s.num != target.num)
    if owner == MIDDLE:
        state = state._replace(middle=area)
    else:
        state = state._replace(collections=replace_at(state.collections, owner, area))
    collection, next_num, touched = add_cards(
        state.collections[seat], state.next_set[seat], target.kind, target.cards
    )
    state = state._replace(
        collections=replace_at(state.collections, seat, collection),
        next_set=replace_at(state.next_set, seat, next_num),
        steal=None,
    )
    story.add(f"{lead}: {dice_text(dice)}; {seat_name(seat)} takes the set ({describe_sets(seat, touched)}).")
    return end_turn(state, seat, story)


def _steal(state: LuckyState, seat: int, move: StealSet, story: Story) -> LuckyState:
    every = list(range(move.target.cards))  # one die per card (K-TURN-2)
    state, dice = _throw(state, (False,) * len(every), every)
    lead = f"{seat_name(seat)} steals {_target_phrase(move.owner, move.target)} and rolls"
    return _resolve(state, seat, move.owner, move.target, dice, every, BY_STEAL, lead, story)


def _current(state: LuckyState) -> tuple[Steal, TreasureSet]:
    steal = state.steal
    assert steal is not None  # the ROLL phase always has one
    target = find_set(area_of(state, steal.owner), steal.num)
    assert target is not None
    return steal, target


def _reroll(state: LuckyState, seat: int, story: Story) -> LuckyState:
    steal, target = _current(state)
    blanks = [i for i, head in enumerate(steal.dice) if not head]
    hand = list(state.hands[seat])
    hand[target.kind] -= len(blanks)
    state = state._replace(
        hands=replace_at(state.hands, seat, tuple(hand)),
        discard=state.discard + (target.kind,) * len(blanks),
    )
    state, dice = _throw(state, steal.dice, blanks)
    dice_word = "die" if len(blanks) == 1 else "dice"
    lead = (
        f"{seat_name(seat)} discards {count_of(len(blanks), target.kind)} "
        f"and re-rolls {len(blanks)} {dice_word}"
    )
    return _resolve(state, seat, steal.owner, target, dice, blanks, BY_REROLL, lead, story)


def _captain_bonus(state: LuckyState, seat: int, story: Story) -> LuckyState:
    steal, target = _current(state)
    blanks = [i for i, head in enumerate(steal.dice) if not head]
    used = replace_at(state.captain_used, seat, True)
    state, dice = _throw(state._replace(captain_used=used), steal.dice, blanks)
    dice_word = "die" if len(blanks) == 1 else "dice"
    lead = f"{seat_name(seat)} turns the captain card over and re-rolls {len(blanks)} {dice_word} for free"
    return _resolve(state, seat, steal.owner, target, dice, blanks, BY_CAPTAIN, lead, story)


def _stop(state: LuckyState, seat: int, story: Story) -> LuckyState:
    steal, _ = _current(state)
    story.add(f"{seat_name(seat)} stops: the steal of {set_id(steal.owner, steal.num)} fails.")
    return end_turn(state._replace(steal=None), seat, story)


def end_turn(state: LuckyState, seat: int, story: Story) -> LuckyState:
    """K-TURN-6 and K-END-1: draw up, then the next seat's turn, or the end of the game.

    A seat with no cards skips placing; one with nothing to steal either has a turn with no
    decision, which passes at once (the pile is empty then, so nobody draws)."""
    for _ in range(2 * state.players + 2):
        had_pile = bool(state.pile)
        state, drawn = draw_up(state, seat)
        if drawn:
            name = seat_name(seat)
            story.add(
                f"{name} draws {_cards(len(drawn))}.",
                {seat: f"{name} draws {_cards(len(drawn))} ({_drawn_kinds(drawn)})."},
            )
            if had_pile and not state.pile:
                story.add(_last_card_note(state))
        if not state.pile and seat == state.players - 1:
            state = state._replace(phase=OVER, steal=None)
            story.add(ending(state))
            return state
        seat = (seat + 1) % state.players
        if any(state.hands[seat]):
            return state._replace(active=seat, phase=PLACE, steal=None)
        if has_target(state, seat):
            story.add(f"{seat_name(seat)} has no cards and skips placing.")
            return state._replace(active=seat, phase=STEAL, steal=None)
        story.add(f"{seat_name(seat)} has no cards and nothing to steal.")
    raise AssertionError("a round of turns without a decision must reach the end of the game")


DRAWS = "it draws from the pile"
ROLLS = "it rolls the dice"
SHOWS_HAND = "it shows cards from your hand"


def reveals(state: LuckyState, seat: int, move: Move) -> str | None:
    """Why ``move`` is final, or None (``Rules.reveals``). Read from public parts only (K-END-4):
    hand sizes, the pile's size, the middle and the collections; never a hand's kinds, the
    pile's order or the generator."""
    if isinstance(move, Place):  # K-TURN-1: hidden cards go face up, then the hand refills
        return DRAWS if state.pile else SHOWS_HAND
    if not isinstance(move, Stop):  # K-TURN-2, K-TURN-4, K-TURN-5: every roll is a draw
        return ROLLS
    # K-TURN-6, K-END-1: what end_turn does after a failed steal, told from hand sizes alone.
    for _ in range(2 * state.players + 2):
        if sum(state.hands[seat]) < HAND_SIZE and state.pile:
            return DRAWS
        if not state.pile and seat == state.players - 1:
            return ENDS_THE_GAME
        seat = (seat + 1) % state.players
        if any(state.hands[seat]) or has_target(state, seat):
            return None  # the next turn starts: nothing hidden was shown
    return ENDS_THE_GAME


def perform(state: LuckyState, seat: int, move: Move) -> tuple[LuckyState, Story]:
    story = Story()
    state = state._replace(actions=state.actions + 1)
    if isinstance(move, Place):
        state = _place(state, seat, move, story)
    elif isinstance(move, StealSet):
        state = _steal(state, seat, move, story)
    elif isinstance(move, Reroll):
        state = _reroll(state, seat, story)
    elif isinstance(move, CaptainBonus):
        state = _captain_bonus(state, seat, story)
    else:
        assert isinstance(move, Stop)
        state = _stop(state, seat, story)
    return state, story
