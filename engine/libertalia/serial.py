"""dump/load: a state as JSON and back. A snapshot holds secrets (hands, picks, the fixed
options, the generator) and is for the service only. Loading checks it fully: a stored
snapshot that no longer fits the rules fails loudly rather than plays on wrongly."""

from __future__ import annotations

from typing import Any

from engine.base import check_snapshot_header, json_list, rng_state_from_json, rng_state_to_json, whole_number
from engine.errors import InvalidOptions, InvalidSnapshot
from engine.libertalia import setup
from engine.libertalia.actions import to_act
from engine.libertalia.characters import COLOURS, KINDS, RANKS, resolve_character_set
from engine.libertalia.state import (
    CAMPAIGNS,
    DAY,
    DAY_DECISIONS,
    DAYS,
    DUSK,
    DUSK_DECISIONS,
    FIRST_HAND,
    NEW_CARDS,
    NIGHT,
    NOBODY,
    OVER,
    PHASES,
    SUNRISE,
    LibertaliaState,
    key,
)

_KEYS = {
    "rules", "version", "character_set", "players", "colours", "campaign", "day", "phase", "dealt",
    "hands", "picks", "ship", "dens", "graves", "removed", "booty", "doubloons", "spaces", "bag",
    "actor", "decision", "picks_left", "officer", "night", "fortunes", "fixed_ranks", "fixed_layouts",
    "fixed_draws", "actions", "rng",
}  # fmt: skip
_DECISIONS = {
    SUNRISE: ("",),
    DAY: ("", *DAY_DECISIONS),
    DUSK: ("", *DUSK_DECISIONS),
    NIGHT: ("",),
    OVER: ("",),
}
MAX_ACTIONS = 10**6
MAX_DOUBLOONS = 10**6


def dump(state: LibertaliaState, *, rules_id: str, version: int) -> dict[str, Any]:
    chars = state.chars
    return {
        "rules": rules_id,
        "version": version,
        "character_set": chars.id if chars.bundled else chars.data,
        "players": state.players,
        "colours": [COLOURS[c] for c in state.colours],
        "campaign": state.campaign,
        "day": state.day,
        "phase": state.phase,
        "dealt": [list(r) for r in state.dealt],
        "hands": [list(h) for h in state.hands],
        "picks": list(state.picks),
        "ship": [list(c) for c in state.ship],
        "dens": [list(d) for d in state.dens],
        "graves": [list(g) for g in state.graves],
        "removed": [list(r) for r in state.removed],
        "booty": [list(b) for b in state.booty],
        "doubloons": list(state.doubloons),
        "spaces": [list(s) for s in state.spaces],
        "bag": list(state.bag),
        "actor": None if state.actor == NOBODY else list(state.actor),
        "decision": state.decision,
        "picks_left": state.picks_left,
        "officer": state.officer,
        "night": list(state.night),
        "fortunes": [list(f) for f in state.fortunes],
        "fixed_ranks": [list(r) for r in state.fixed_ranks],
        "fixed_layouts": [[[KINDS[k] for k in space] for space in layout] for layout in state.fixed_layouts],
        "fixed_draws": [KINDS[k] for k in state.fixed_draws],
        "actions": state.actions,
        "rng": rng_state_to_json(state.rng_state),
    }


def _ranks(value: Any, name: str) -> tuple[int, ...]:
    ranks = tuple(whole_number(r, name, 1, RANKS) for r in json_list(value, name))
    if list(ranks) != sorted(set(ranks)):
        raise InvalidSnapshot(f"{name} must list different ranks in increasing order")
    return ranks


def _per_seat(value: Any, name: str, players: int) -> tuple[tuple[int, ...], ...]:
    return tuple(_ranks(v, name) for v in json_list(value, name, players))


def _counts(value: Any, name: str) -> tuple[int, ...]:
    return tuple(whole_number(n, name, 0, 1000) for n in json_list(value, name, len(KINDS)))


def load(data: Any, *, rules_id: str, version: int) -> LibertaliaState:
    check_snapshot_header(data, _KEYS, "Libertalia", rules_id=rules_id, version=version)
    try:
        chars = resolve_character_set(data["character_set"])
        players = whole_number(data["players"], "players", setup.MIN_PLAYERS, setup.MAX_PLAYERS)
        colours = setup._colours(players, data["colours"])
        ranks_raw = json_list(data["fixed_ranks"], "fixed_ranks")
        layouts_raw = json_list(data["fixed_layouts"], "fixed_layouts")
        fixed_ranks = setup._ranks(ranks_raw) if ranks_raw else ()
        fixed_layouts = setup._layouts(chars, players, layouts_raw) if layouts_raw else ()
        fixed_draws = setup._draws(data["fixed_draws"])
    except InvalidOptions as exc:
        raise InvalidSnapshot(str(exc)) from exc
    campaign = whole_number(data["campaign"], "campaign", 1, CAMPAIGNS)
    day = whole_number(data["day"], "day", 1, DAYS)
    phase = data["phase"]
    if phase not in PHASES:
        raise InvalidSnapshot(f"phase must be one of {', '.join(PHASES)}")
    dealt = tuple(_ranks(r, "dealt") for r in json_list(data["dealt"], "dealt", campaign))
    if [len(r) for r in dealt] != [FIRST_HAND, NEW_CARDS, NEW_CARDS][:campaign]:
        raise InvalidSnapshot("dealt must hold 9 ranks for campaign 1 and 6 for each later one")
    everything = sorted(r for ranks in dealt for r in ranks)
    if len(set(everything)) != len(everything):
        raise InvalidSnapshot("a rank was dealt twice")
    for number, ranks in enumerate(fixed_ranks[:campaign]):
        if ranks != dealt[number]:
            raise InvalidSnapshot(f"dealt ranks of campaign {number + 1} differ from fixed_ranks")
    hands = _per_seat(data["hands"], "hands", players)
    picks = tuple(whole_number(p, "picks", 0, RANKS) for p in json_list(data["picks"], "picks", players))
    ship_raw = [json_list(c, "a ship character", 2) for c in json_list(data["ship"], "ship")]
    ship = tuple(
        (whole_number(s, "ship seat", 0, players - 1), whole_number(r, "ship rank", 1, RANKS))
        for s, r in ship_raw
    )
    dens = _per_seat(data["dens"], "dens", players)
    graves = _per_seat(data["graves"], "graves", players)
    removed = _per_seat(data["removed"], "removed", players)
    for seat in range(players):
        cards = [*hands[seat], *dens[seat], *graves[seat], *removed[seat], *(r for s, r in ship if s == seat)]
        cards += [picks[seat]] if picks[seat] else []
        if sorted(cards) != everything:
            raise InvalidSnapshot(f"seat {seat}: every dealt rank must be in exactly one place")
    seats_on_ship = [s for s, _ in ship]
    keys = [key(chars, colours, s, r) for s, r in ship]
    if len(set(seats_on_ship)) != len(ship) or keys != sorted(keys):
        raise InvalidSnapshot("the ship holds one character per seat at most, in key order")
    booty = tuple(_counts(b, "booty") for b in json_list(data["booty"], "booty", players))
    spaces = tuple(_counts(s, "spaces") for s in json_list(data["spaces"], "spaces", DAYS))
    bag = _counts(data["bag"], "bag")
    for k, kind in enumerate(KINDS):
        if bag[k] + sum(b[k] for b in booty) + sum(s[k] for s in spaces) != chars.booty_count[k]:
            raise InvalidSnapshot(
                f"{kind}: the bag, the day-spaces and the players' booty must hold them all"
            )
    doubloons = tuple(
        whole_number(d, "doubloons", 0, MAX_DOUBLOONS)
        for d in json_list(data["doubloons"], "doubloons", players)
    )
    actor_raw = data["actor"]
    actor = NOBODY
    if actor_raw is not None:
        pair = json_list(actor_raw, "actor", 2)
        actor = (
            whole_number(pair[0], "actor seat", 0, players - 1),
            whole_number(pair[1], "actor rank", 1, RANKS),
        )
    decision = data["decision"]
    if decision not in _DECISIONS[phase]:
        raise InvalidSnapshot(f"decision {decision!r} cannot be owed in phase {phase}")
    picks_left = whole_number(data["picks_left"], "picks_left", 0, 2)
    officer = data["officer"]
    night = tuple(json_list(data["night"], "night", players))
    if type(officer) is not bool or not all(type(n) is bool for n in night):
        raise InvalidSnapshot("officer and night must be true or false")
    fortunes = tuple(
        tuple(whole_number(f, "fortunes", 0, MAX_DOUBLOONS) for f in json_list(row, "fortunes", players))
        for row in json_list(data["fortunes"], "fortunes")
    )
    if len(fortunes) != (campaign if phase == OVER else campaign - 1):
        raise InvalidSnapshot("fortunes must hold one row per finished campaign")
    if (phase != SUNRISE and any(picks)) or (phase != NIGHT and any(night)):
        raise InvalidSnapshot("picks are made at Sunrise and Waitress questions asked at Night only")
    if decision and actor == NOBODY:
        raise InvalidSnapshot("a Day or Dusk decision needs the character resolving it (actor)")
    if phase in (SUNRISE, NIGHT, OVER) and ship:
        raise InvalidSnapshot("the ship is empty at Sunrise, at Night and after the game")
    if decision and decision != "parrot" and actor not in ship:
        raise InvalidSnapshot("the character resolving a decision must be on the ship")
    state = LibertaliaState(
        chars=chars,
        players=players,
        colours=colours,
        campaign=campaign,
        day=day,
        phase=phase,
        dealt=dealt,
        hands=hands,
        picks=picks,
        ship=ship,
        dens=dens,
        graves=graves,
        removed=removed,
        booty=booty,
        doubloons=doubloons,
        spaces=spaces,
        bag=bag,
        actor=actor,
        decision=decision,
        picks_left=picks_left,
        officer=officer,
        night=night,
        fortunes=fortunes,
        fixed_ranks=fixed_ranks,
        fixed_layouts=fixed_layouts,
        fixed_draws=fixed_draws,
        actions=whole_number(data["actions"], "actions", 0, MAX_ACTIONS),
        rng_state=rng_state_from_json(data["rng"]),
    )
    if phase != OVER and not to_act(state):
        raise InvalidSnapshot("a running game always waits for some seat's decision")
    if phase == OVER and campaign != CAMPAIGNS:
        raise InvalidSnapshot("the game is over only after the third campaign")
    return state
