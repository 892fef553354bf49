"""Building Pirates (classic) situations for tests: explicit decks, hand-made states and bot
games."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from engine import get_rules
from engine.pirates.state import PIRATE_INDEX, PIRATES_PER_SEAT
from engine.pirates_classic.cards import KIND_INDEX, KINDS, bundled_ship_set
from engine.pirates_classic.rules import PiratesClassicRules
from engine.pirates_classic.state import ANSWER_NAMES, EMPTY, ClassicState, questions
from tests.engine import bot_games

_RULES = get_rules("pirates-classic")
assert isinstance(_RULES, PiratesClassicRules)
RULES: PiratesClassicRules = _RULES
SHIPS = bundled_ship_set()
ALL_SHIPS = list(SHIPS.ids)
_ANSWER_CODES = {name: code for code, name in ANSWER_NAMES.items()}


def custom_ships(changes: dict[str, dict[str, Any]], **top: Any) -> dict[str, Any]:
    """The bundled ship set under another id, with some ships (and top-level keys) changed."""
    data = copy.deepcopy(SHIPS.data)
    data["id"] = "test-ships"
    data.update(top)
    for ship in data["ships"]:
        ship.update(changes.get(ship["id"], {}))
    return data


def deck(*top: str) -> list[str]:
    """A full deck with the given ships on top, the rest in ship-set order."""
    return list(top) + [s for s in ALL_SHIPS if s not in top]


def game(players: int = 4, *top: str, first_seat: int = 0, seed: int | str = 1) -> ClassicState:
    return RULES.new_game(players, seed, {"deck": deck(*top), "first_seat": first_seat})


def situation(
    players: int = 4,
    *,
    parties: list[list[str]] | None = None,
    display: Sequence[str | None] | None = None,
    deck_rest: list[str] | None = None,
    treasury: list[int] | None = None,
    booty: dict[int, dict[str, int]] | None = None,
    boarded: list[str] | None = None,
    active: int = 0,
    answers: dict[int, str] | None = None,
    actions: int = 0,
    skips: int = 0,
    card_set: Any = None,
) -> ClassicState:
    """A hand-built state at the start of ``active``'s turn: the named stacks (top first),
    every other pirate single, the challenge questions the rules ask (C-MUT-2) with the given
    ``answers``. Ships not on the display or boarded form the deck (``deck_rest`` first)."""
    options: dict[str, Any] = {"first_seat": active}
    if card_set is not None:
        options["card_set"] = card_set
    base = RULES.new_game(players, 1, options)
    ships = base.card_set
    listed = [tuple(PIRATE_INDEX[p] for p in party) for party in parties or []]
    used = {p for party in listed for p in party}
    singles: list[tuple[int, ...]] = [(p,) for p in range(players * PIRATES_PER_SEAT) if p not in used]
    all_parties = tuple(sorted(listed + singles))
    hoards = [[0] * len(KINDS) for _ in range(players)]
    for seat, kinds in (booty or {}).items():
        for kind, count in kinds.items():
            hoards[seat][KIND_INDEX[kind]] = count
    shown = display if display is not None else list(ships.ids[:3])
    display_ships = tuple(EMPTY if s is None else ships.index[s] for s in shown)
    gone = [ships.index[s] for s in boarded or []]
    first = [ships.index[s] for s in deck_rest or []]
    taken = set(display_ships) | set(gone) | set(first)
    rest = tuple(first + [s for s in range(len(ships)) if s not in taken])
    codes = [0] * players
    for seat, answer in (answers or {}).items():
        codes[seat] = _ANSWER_CODES[answer]
    return base._replace(
        parties=all_parties,
        treasury=tuple(treasury) if treasury is not None else base.treasury,
        booty=tuple(tuple(h) for h in hoards),
        boarded=tuple(gone),
        display=display_ships,
        deck=rest,
        active=active,
        asked=questions(ships, all_parties, display_ships, active, players),
        answers=tuple(codes),
        actions=actions,
        skips=skips,
    )


def stacks(state: ClassicState) -> list[list[str]]:
    """The stacks of a state as pirate ids, for readable assertions (singles left out)."""
    return [p for p in RULES.dump(state)["parties"] if len(p) > 1]


def booty_of(state: ClassicState, seat: int) -> dict[str, int]:
    return {k: n for k, n in zip(KINDS, state.booty[seat], strict=True) if n}


Steps = list[tuple[ClassicState, int, dict[str, Any]]]


def playout(players: int, seed: int | str, bots: list[str] | None = None) -> tuple[ClassicState, Steps]:
    """A bot game of Pirates (classic) (tests/engine/bot_games.py): among several seats to
    act (a challenge window) the next one is drawn at random; forced skips are the system's,
    as the service makes them."""
    return bot_games.playout(RULES, players, seed, bots, forced_by_system=True)


def json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def check_invariants(state: ClassicState) -> None:
    """What every reachable state keeps (P-PARTY-2, P-PARTY-3, C-SET-3, C-BOARD-3, C-MUT-2)."""
    players = state.players
    pirates = sorted(p for party in state.parties for p in party)
    assert pirates == list(range(players * 5)), "every pirate in exactly one stack (P-PARTY-2)"
    assert all(1 <= len(party) <= 9 for party in state.parties), "no stack over 9 (P-PARTY-3)"
    assert list(state.parties) == sorted(state.parties)
    assert all(t >= 0 for t in state.treasury), "treasuries never negative (C-BOARD-3)"
    for kind in range(len(KINDS)):
        assert sum(hoard[kind] for hoard in state.booty) <= 6, "at most 6 pieces a kind (C-SET-3)"
    assert sum(map(sum, state.booty)) <= 2 * len(state.boarded)
    assert state.actions <= 1000
    if state.end:
        assert RULES.to_act(state) == [] and all(c < 0 for c in state.asked)
    else:
        expected = questions(state.card_set, state.parties, state.display, state.active, players)
        assert state.asked == expected, "the questions are those of the turn start (C-MUT-2)"
        assert state.asked[state.active] < 0
