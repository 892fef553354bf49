"""Building Libertalia situations for tests: games with fixed options, hand-made positions,
and bot playouts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engine import get_rules
from engine.base import Action, Step
from engine.libertalia import flow
from engine.libertalia.characters import COLOURS, KIND_INDEX, KINDS, bundled_character_set
from engine.libertalia.rules import LibertaliaRules
from engine.libertalia.state import DAY, DUSK, NOBODY, SUNRISE, LibertaliaState
from engine.libertalia.working_copy import Log, Table
from tests.engine import bot_games

_RULES = get_rules("libertalia")
assert isinstance(_RULES, LibertaliaRules)
RULES: LibertaliaRules = _RULES
CHARS = bundled_character_set()
SEATS4 = ["yellow", "red", "blue", "green"]
RANK = {CHARS.name[r]: r for r in range(1, 31)}  # "Captain" -> 29


def game(players: int = 4, seed: int | str = 1, **options: Any) -> LibertaliaState:
    """A new game; seats are yellow, red, blue, green, black, grey unless ``colours`` says."""
    options.setdefault("colours", list(COLOURS[:players]))
    return RULES.new_game(players, seed, options)


def _counts(kinds: dict[str, int] | None) -> tuple[int, ...]:
    out = [0] * len(KINDS)
    for kind, n in (kinds or {}).items():
        out[KIND_INDEX[kind]] = n
    return tuple(out)


def situation(
    players: int = 4,
    *,
    hands: dict[int, list[int]] | None = None,
    hand: list[int] | None = None,
    dens: dict[int, list[int]] | None = None,
    graves: dict[int, list[int]] | None = None,
    booty: dict[int, dict[str, int]] | None = None,
    doubloons: list[int] | None = None,
    space: list[str] | None = None,
    day: int = 1,
    campaign: int = 1,
    draws: list[str] | None = None,
    colours: list[str] | None = None,
    seed: int | str = 1,
) -> LibertaliaState:
    """A Sunrise position nobody has chosen in yet: the given hands (``hand`` for every seat),
    dens, graveyards, booty, doubloons (10 each by default) and today's day-space."""
    options: dict[str, Any] = {"colours": colours or list(COLOURS[:players])}
    if draws is not None:
        options["draws"] = draws
    base = RULES.new_game(players, seed, options)
    default = hand or [2, 5, 7, 10, 16, 20, 23, 28, 29]
    hands_ = tuple(tuple(sorted((hands or {}).get(s, default))) for s in range(players))
    held = tuple(_counts((booty or {}).get(s)) for s in range(players))
    spaces = [(0,) * len(KINDS)] * 6
    spaces[day - 1] = _counts({k: (space or []).count(k) for k in set(space or [])})
    bag = tuple(
        CHARS.booty_count[k] - sum(h[k] for h in held) - sum(s[k] for s in spaces) for k in range(len(KINDS))
    )
    assert min(bag) >= 0
    dealt = sorted({r for h in hands_ for r in h} | {r for d in (dens or {}).values() for r in d})
    return base._replace(
        campaign=campaign,
        day=day,
        phase=SUNRISE,
        dealt=(tuple(dealt),),
        hands=hands_,
        picks=(0,) * players,
        dens=tuple(tuple(sorted((dens or {}).get(s, []))) for s in range(players)),
        graves=tuple(tuple(sorted((graves or {}).get(s, []))) for s in range(players)),
        booty=held,
        doubloons=tuple(doubloons or [10] * players),
        spaces=tuple(spaces),
        bag=bag,
        fortunes=((0,) * players,) * (campaign - 1),
    )


def play(
    state: LibertaliaState, picks: list[int] | dict[int, int]
) -> tuple[LibertaliaState, list[Step[Any]]]:
    """Every seat chooses (in seat order, or the dict's order); returns the state and steps."""
    order = picks.items() if isinstance(picks, dict) else enumerate(picks)
    steps = []
    for seat, rank in order:
        step = RULES.step(state, seat, {"type": "play", "rank": rank})
        steps.append(step)
        state = step.state
    return state, steps


def act(state: LibertaliaState, seat: int, action: Action) -> Step[Any]:
    return RULES.step(state, seat, action)


def at_dusk_end(state: LibertaliaState) -> LibertaliaState:
    """``state`` moved to the moment its Dusk has nobody left on the ship."""
    return state._replace(phase=DUSK, ship=(), actor=NOBODY, decision="")


def resume(state: LibertaliaState) -> tuple[LibertaliaState, str]:
    """Let the engine play on from a hand-made position until a decision is owed."""
    t = Table(state)
    log = Log()
    flow.run(t, log)
    return t.freeze(), log.public()


def ship(state: LibertaliaState) -> list[str]:
    """The ship as "yellow Brute" strings, left to right."""
    return [f"{COLOURS[state.colours[s]]} {CHARS.name[r]}" for s, r in state.ship]


def booty_of(state: LibertaliaState, seat: int) -> dict[str, int]:
    return {k: n for k, n in zip(KINDS, state.booty[seat], strict=True) if n}


def in_day(state: LibertaliaState) -> bool:
    return state.phase == DAY


Policy = Callable[[LibertaliaState, int, list[Action]], Action]


def drive(
    state: LibertaliaState, policy: Policy, until: Callable[[LibertaliaState], bool], limit: int = 2000
) -> LibertaliaState:
    """Play ``policy`` for every seat to act, lowest seat first, until ``until(state)``."""
    for _ in range(limit):
        if until(state) or RULES.is_finished(state):
            return state
        seat = RULES.to_act(state)[0]
        state = RULES.apply(state, seat, policy(state, seat, RULES.legal_actions(state, seat)))
    raise AssertionError("drive did not reach its goal")


def first_choice(state: LibertaliaState, seat: int, actions: list[Action]) -> Action:
    return actions[0]


def playout(
    players: int, seed: int | str, bots: list[str] | None = None, options: dict[str, Any] | None = None
) -> tuple[LibertaliaState, list[tuple[LibertaliaState, int, Action]]]:
    """A bot game of Libertalia (tests/engine/bot_games.py): the seats owing a decision at
    once are served in an order drawn from the test's own generator."""
    return bot_games.playout(RULES, players, seed, bots, options=options)


def json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def check_invariants(state: LibertaliaState) -> None:
    """What every reachable state keeps: L-COMP-3 and L-COMP-4 (tokens and doubloons), card
    conservation, one character per seat on the ship in key order (L-ORD), and someone to act
    while the game runs."""
    chars = state.chars
    for k in range(len(KINDS)):
        held = sum(b[k] for b in state.booty) + sum(s[k] for s in state.spaces) + state.bag[k]
        assert held == chars.booty_count[k]
    assert all(d >= 0 for d in state.doubloons)
    dealt = sorted(r for ranks in state.dealt for r in ranks)
    for seat in range(state.players):
        cards = [*state.hands[seat], *state.dens[seat], *state.graves[seat], *state.removed[seat]]
        cards += [r for s, r in state.ship if s == seat] + ([state.picks[seat]] if state.picks[seat] else [])
        assert sorted(cards) == dealt
    assert len({s for s, _ in state.ship}) == len(state.ship)
    keys = [r * 8 + chars.influence[state.colours[s]][r] for s, r in state.ship]
    assert keys == sorted(keys)
    assert RULES.is_finished(state) or RULES.to_act(state)
    for seat in RULES.to_act(state):
        assert len(RULES.legal_actions(state, seat)) >= 2, "L-DEC-5: a lone choice is never asked"
