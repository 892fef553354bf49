"""Carrying out a validated move (K-TURN) and telling it, in one pass.

The sentence is written while the move is made, so it always tells what the state shows.
Everyone reads the public sentence; the acting seat alone reads the cards it drew.
"""

from __future__ import annotations

from engine.base import ENDS_THE_GAME
from engine.captain_lucky.actions import CaptainBonus, Move, Place, Reroll, StealSet, Stop
from engine.captain_lucky.cards import KINDS, count_of
from engine.captain_lucky.dice import GeneratorState, throw
from engine.captain_lucky.scoring import ending
from engine.captain_lucky.state import (
    BY_CAPTAIN,
    BY_REROLL,
    BY_STEAL,
    HAND_SIZE,
    HEAD_FACES,
    MIDDLE,
    OVER,
    PLACE,
    ROLL,
    SET_SIZE,
    STEAL,
    Area,
    LuckyState,
    Roll,
    Steal,
    TreasureSet,
    add_cards,
    describe_sets,
    find_set,
    has_target,
    replace_at,
    seat_name,
    set_id,
)

HEAD_MARK, BLANK_MARK = "☠", "blank"


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


class _Table:
    """One move's working copy of the state: a move changes a few fields, one at a time, and
    the new ``LuckyState`` is built once at the end (``NamedTuple._replace`` rebuilds the whole
    tuple through keyword arguments, and a move needed several). Unchanged parts are shared
    with the state before, never copied."""

    __slots__ = LuckyState._fields
    players: int
    hands: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    middle: Area
    collections: tuple[Area, ...]
    next_middle: int
    next_set: tuple[int, ...]
    discard: tuple[int, ...]
    captain_used: tuple[bool, ...]
    active: int
    phase: str
    steal: Steal | None
    last_roll: Roll | None
    actions: int
    rng_state: GeneratorState

    def __init__(self, state: LuckyState) -> None:
        (
            self.players, self.hands, self.pile, self.middle, self.collections, self.next_middle,
            self.next_set, self.discard, self.captain_used, self.active, self.phase, self.steal,
            self.last_roll, self.actions, self.rng_state,
        ) = state  # fmt: skip

    def freeze(self) -> LuckyState:
        return LuckyState(
            self.players, self.hands, self.pile, self.middle, self.collections, self.next_middle,
            self.next_set, self.discard, self.captain_used, self.active, self.phase, self.steal,
            self.last_roll, self.actions, self.rng_state,
        )  # fmt: skip

    def area(self, owner: int) -> Area:
        return self.middle if owner == MIDDLE else self.collections[owner]

    def draw_up(self, seat: int) -> tuple[int, ...]:
        """Draw back up to five cards, as many as the pile has (K-TURN-1, K-TURN-6); the cards
        drawn, top first."""
        hand = self.hands[seat]
        need = HAND_SIZE - sum(hand)
        if need <= 0 or not self.pile:
            return ()
        drawn = self.pile[:need]
        counts = list(hand)
        for kind in drawn:
            counts[kind] += 1
        self.hands = replace_at(self.hands, seat, tuple(counts))
        self.pile = self.pile[need:]
        return drawn

    def throw(self, dice: tuple[bool, ...], which: list[int]) -> tuple[bool, ...]:
        """K-TURN-7: one ``randrange(6)`` per thrown die, in die order; faces 0-2 are heads."""
        rolled, self.rng_state = throw(self.rng_state, dice, which, HEAD_FACES)
        return rolled


def _last_card_note(players: int) -> str:
    return f"That was the last card of the pile: the game ends after {seat_name(players - 1)}'s turn."


# Each move below works on a _Table. ``story`` is None when nobody reads the sentences (apply:
# replays, bots): then none is composed.


def _place(table: _Table, seat: int, move: Place, story: Story | None) -> None:
    hand = list(table.hands[seat])
    hand[move.kind] -= move.cards
    table.hands = replace_at(table.hands, seat, tuple(hand))
    middle, table.next_middle, touched = add_cards(table.middle, table.next_middle, move.kind, move.cards)
    table.middle = middle
    table.phase = STEAL
    had_pile = bool(table.pile)
    drawn = table.draw_up(seat)
    if story is None:
        return
    placed = f"{seat_name(seat)} places {count_of(move.cards, move.kind)} in the middle"
    placed += f" ({describe_sets(MIDDLE, touched)})"
    if drawn:
        story.add(
            f"{placed} and draws {_cards(len(drawn))}.",
            {seat: f"{placed} and draws {_cards(len(drawn))} ({_drawn_kinds(drawn)})."},
        )
    else:
        story.add(f"{placed}; the pile is empty.")
    if had_pile and not table.pile:
        story.add(_last_card_note(table.players))


def _target_phrase(owner: int, target: TreasureSet) -> str:
    text = f"{set_id(owner, target.num)} ({count_of(target.cards, target.kind)})"
    return text if owner == MIDDLE else f"{text} from {seat_name(owner)}"


def _resolve(
    table: _Table, seat: int, owner: int, target: TreasureSet, dice: tuple[bool, ...],
    which: list[int], by: str, lead: str, story: Story | None,
) -> None:  # fmt: skip
    """Record the roll; take the set on all heads (K-TURN-3), else wait for the player."""
    table.last_roll = Roll(
        seat, owner, target.num, target.kind, target.cards, dice, tuple(which), by, table.actions
    )
    if False in dice:
        if story is not None:
            story.add(f"{lead}: {dice_text(dice)}.")
        table.phase = ROLL
        table.steal = Steal(owner, target.num, dice)
        return
    area = tuple(s for s in table.area(owner) if s.num != target.num)
    if owner == MIDDLE:
        table.middle = area
    else:
        table.collections = replace_at(table.collections, owner, area)
    collection, next_num, touched = add_cards(
        table.collections[seat], table.next_set[seat], target.kind, target.cards
    )
    table.collections = replace_at(table.collections, seat, collection)
    table.next_set = replace_at(table.next_set, seat, next_num)
    table.steal = None
    if story is not None:
        story.add(
            f"{lead}: {dice_text(dice)}; {seat_name(seat)} takes the set ({describe_sets(seat, touched)})."
        )
    _end_turn(table, seat, story)


def _steal(table: _Table, seat: int, move: StealSet, story: Story | None) -> None:
    every = list(range(move.target.cards))  # one die per card (K-TURN-2)
    dice = table.throw((False,) * len(every), every)
    lead = ""
    if story is not None:
        lead = f"{seat_name(seat)} steals {_target_phrase(move.owner, move.target)} and rolls"
    _resolve(table, seat, move.owner, move.target, dice, every, BY_STEAL, lead, story)


def _current(table: _Table) -> tuple[Steal, TreasureSet]:
    steal = table.steal
    assert steal is not None  # the ROLL phase always has one
    target = find_set(table.area(steal.owner), steal.num)
    assert target is not None
    return steal, target


def _dice_word(count: int) -> str:
    return "die" if count == 1 else "dice"


def _reroll(table: _Table, seat: int, story: Story | None) -> None:
    steal, target = _current(table)
    blanks = [i for i, head in enumerate(steal.dice) if not head]
    hand = list(table.hands[seat])
    hand[target.kind] -= len(blanks)
    table.hands = replace_at(table.hands, seat, tuple(hand))
    table.discard = table.discard + (target.kind,) * len(blanks)
    dice = table.throw(steal.dice, blanks)
    lead = ""
    if story is not None:
        lead = (
            f"{seat_name(seat)} discards {count_of(len(blanks), target.kind)} "
            f"and re-rolls {len(blanks)} {_dice_word(len(blanks))}"
        )
    _resolve(table, seat, steal.owner, target, dice, blanks, BY_REROLL, lead, story)


def _captain_bonus(table: _Table, seat: int, story: Story | None) -> None:
    steal, target = _current(table)
    blanks = [i for i, head in enumerate(steal.dice) if not head]
    table.captain_used = replace_at(table.captain_used, seat, True)
    dice = table.throw(steal.dice, blanks)
    lead = ""
    if story is not None:
        lead = (
            f"{seat_name(seat)} turns the captain card over and re-rolls "
            f"{len(blanks)} {_dice_word(len(blanks))} for free"
        )
    _resolve(table, seat, steal.owner, target, dice, blanks, BY_CAPTAIN, lead, story)


def _stop(table: _Table, seat: int, story: Story | None) -> None:
    steal, _ = _current(table)
    if story is not None:
        story.add(f"{seat_name(seat)} stops: the steal of {set_id(steal.owner, steal.num)} fails.")
    table.steal = None
    _end_turn(table, seat, story)


def _can_steal(table: _Table, seat: int) -> bool:
    """state.has_target on the working copy."""
    if table.middle:
        return True
    return any(
        s.cards < SET_SIZE for owner, area in enumerate(table.collections) if owner != seat for s in area
    )


def _end_turn(table: _Table, seat: int, story: Story | None) -> None:
    """K-TURN-6 and K-END-1: draw up, then the next seat's turn, or the end of the game.

    A seat with no cards skips placing; one with nothing to steal either has a turn with no
    decision, which passes at once (the pile is empty then, so nobody draws)."""
    players = table.players
    for _ in range(2 * players + 2):
        had_pile = bool(table.pile)
        drawn = table.draw_up(seat)
        if drawn and story is not None:
            name = seat_name(seat)
            story.add(
                f"{name} draws {_cards(len(drawn))}.",
                {seat: f"{name} draws {_cards(len(drawn))} ({_drawn_kinds(drawn)})."},
            )
            if had_pile and not table.pile:
                story.add(_last_card_note(players))
        if not table.pile and seat == players - 1:
            table.phase = OVER
            table.steal = None
            if story is not None:
                story.add(ending(table.freeze()))
            return
        seat = (seat + 1) % players
        if any(table.hands[seat]):
            table.active, table.phase, table.steal = seat, PLACE, None
            return
        if _can_steal(table, seat):
            if story is not None:
                story.add(f"{seat_name(seat)} has no cards and skips placing.")
            table.active, table.phase, table.steal = seat, STEAL, None
            return
        if story is not None:
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


def perform(state: LuckyState, seat: int, move: Move, story: Story | None) -> LuckyState:
    """The state after ``move`` (validated by actions.check); its sentences go to ``story``,
    none is composed when it is None."""
    table = _Table(state)
    table.actions += 1
    if type(move) is Place:
        _place(table, seat, move, story)
    elif type(move) is StealSet:
        _steal(table, seat, move, story)
    elif type(move) is Reroll:
        _reroll(table, seat, story)
    elif type(move) is CaptainBonus:
        _captain_bonus(table, seat, story)
    else:
        assert type(move) is Stop
        _stop(table, seat, story)
    return table.freeze()
