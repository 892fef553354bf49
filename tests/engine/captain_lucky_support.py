"""Building Captain Lucky situations for tests: fixed decks, hand-made states, dice on demand
and bot games."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from typing import Any

from engine import get_rules
from engine.base import Action
from engine.captain_lucky.cards import KIND_INDEX, KINDS, composition, unshuffled_pile
from engine.captain_lucky.rules import CaptainLuckyRules
from engine.captain_lucky.state import HAND_SIZE, MIDDLE, PLACE, LuckyState, Steal, TreasureSet
from tests.engine import bot_games

_RULES = get_rules("captain-lucky")
assert isinstance(_RULES, CaptainLuckyRules)
RULES: CaptainLuckyRules = _RULES
NAMES = ("Red", "Blue", "Green", "Yellow", "Black", "Purple")


def deck(players: int, *top: str) -> list[str]:
    """A full deck for ``players``: the given kinds on top, the rest in kind order."""
    rest = [KINDS[k] for k in unshuffled_pile(players)]
    for kind in top:
        rest.remove(kind)
    return [*top, *rest]


def shuffled_deck(players: int, seed: int | str) -> list[str]:
    """The deck the generator deals for ``seed`` (K-TURN-7: the shuffle comes first)."""
    pile = unshuffled_pile(players)
    random.Random(seed).shuffle(pile)
    return [KINDS[k] for k in pile]


def heads_seed(outcomes: Iterable[bool]) -> int:
    """The smallest integer seed whose generator throws these dice (True = head) first."""
    wanted = list(outcomes)
    for seed in range(1_000_000):
        rng = random.Random(seed)
        if all((rng.randrange(6) < 3) == head for head in wanted):
            return seed
    raise AssertionError(f"no seed throws {wanted}")


def dice_for(outcomes: Iterable[bool]) -> tuple[Any, ...]:
    """A generator state whose next dice are ``outcomes`` (True = head)."""
    return random.Random(heads_seed(outcomes)).getstate()


SetSpec = tuple[int, str, int]  # (number, kind, cards)


def situation(
    players: int = 4,
    *,
    hands: dict[int, dict[str, int]] | None = None,
    middle: list[SetSpec] | None = None,
    collections: dict[int, list[SetSpec]] | None = None,
    pile: list[str] | None = None,
    rest: str = "pile",
    captain_used: Iterable[int] = (),
    active: int = 0,
    phase: str = PLACE,
    steal: tuple[str, list[bool]] | None = None,
    dice: Iterable[bool] = (),
    actions: int = 0,
) -> LuckyState:
    """A hand-built state that holds every card once.

    Seats not named in ``hands`` get the first five spare cards in kind order. ``pile`` is
    the top of the pile; the spare cards left go below it (``rest="pile"``) or to the
    discard pile (``rest="discard"``, to make the pile exactly ``pile``). ``dice`` are the
    next dice the generator throws. ``steal`` is (set id, dice) of a steal under way.
    """
    spare = list(composition(players))

    def take(kind: int, count: int) -> None:
        spare[kind] -= count
        assert spare[kind] >= 0, f"more {KINDS[kind]} than the game has"

    def area(owner: int, specs: list[SetSpec]) -> tuple[TreasureSet, ...]:
        sets = []
        for num, kind, cards in specs:
            take(KIND_INDEX[kind], cards)
            sets.append(TreasureSet(num, KIND_INDEX[kind], cards))
        return tuple(sets)

    middle_sets = area(MIDDLE, middle or [])
    owned = [area(s, (collections or {}).get(s, [])) for s in range(players)]
    top = [KIND_INDEX[k] for k in pile or []]
    for kind in top:
        take(kind, 1)
    given = hands or {}
    hand_rows: list[tuple[int, ...] | None] = [None] * players
    for seat, hand in given.items():
        row = tuple(hand.get(kind, 0) for kind in KINDS)
        for kind, count in enumerate(row):
            take(kind, count)
        hand_rows[seat] = row
    for seat in range(players):
        if hand_rows[seat] is None:
            row_list = [0] * len(KINDS)
            for _ in range(HAND_SIZE):
                kind = next(k for k in range(len(KINDS)) if spare[k] > 0)
                take(kind, 1)
                row_list[kind] += 1
            hand_rows[seat] = tuple(row_list)
    leftover = [k for k in range(len(KINDS)) for _ in range(spare[k])]
    base = RULES.new_game(players, 1)
    running_steal = None
    if steal is not None:
        parsed = steal[0]
        owner = MIDDLE if parsed.startswith("m") else int(parsed[1])
        num = int(parsed[1:]) if owner == MIDDLE else int(parsed.split("s")[1])
        running_steal = Steal(owner, num, tuple(steal[1]))
    used = set(captain_used)
    return base._replace(
        hands=tuple(row for row in hand_rows if row is not None),
        pile=tuple(top + leftover) if rest == "pile" else tuple(top),
        middle=middle_sets,
        collections=tuple(owned),
        next_middle=max([s.num for s in middle_sets], default=0) + 1,
        next_set=tuple(max([s.num for s in owned[p]], default=0) + 1 for p in range(players)),
        discard=() if rest == "pile" else tuple(leftover),
        captain_used=tuple(s in used for s in range(players)),
        active=active,
        phase=phase,
        steal=running_steal,
        actions=actions,
        rng_state=dice_for(dice) if dice else base.rng_state,
    )


Played = tuple[LuckyState, int, Action]


def playout(
    players: int, seed: int | str, bots: list[str] | None = None, options: dict[str, Any] | None = None
) -> tuple[LuckyState, list[Played]]:
    """A bot game of Captain Lucky (tests/engine/bot_games.py)."""
    return bot_games.playout(RULES, players, seed, bots, options=options)


def json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def check_invariants(state: LuckyState) -> None:
    """What every reachable state keeps: every card once, sets of 1-5 with at most one
    incomplete set of a kind per area (K-SET-3), hands of at most 5 (K-SET-2, K-TURN-1)."""
    counts = [0] * len(KINDS)
    for kind in state.pile + state.discard:
        counts[kind] += 1
    for hand in state.hands:
        assert sum(hand) <= HAND_SIZE and min(hand) >= 0
        counts = [c + n for c, n in zip(counts, hand, strict=True)]
    for area in (state.middle, *state.collections):
        incomplete = [s.kind for s in area if s.cards < 5]
        assert len(incomplete) == len(set(incomplete)), "one incomplete set of a kind per area"
        nums = [s.num for s in area]
        assert nums == sorted(set(nums))
        for s in area:
            assert 1 <= s.cards <= 5
            counts[s.kind] += s.cards
    assert tuple(counts) == composition(state.players), "every card in exactly one place"
    assert all(s.num < state.next_middle for s in state.middle)
    for seat, area in enumerate(state.collections):
        assert all(s.num < state.next_set[seat] for s in area)
    assert RULES.to_act(state) == ([] if RULES.is_finished(state) else [state.active])
