"""dump/load: a state as JSON and back. Loading checks the snapshot fully (every card once,
set ids and sizes, the phase and the steal under way), because a stored snapshot that no
longer matches the rules must fail loudly rather than play on wrongly. A dump is secret: it
holds the hands, the pile's order and the generator."""

from __future__ import annotations

from typing import Any

from engine.base import check_snapshot_header, json_list, rng_state_from_json, rng_state_to_json, whole_number
from engine.captain_lucky.cards import KIND_INDEX, KINDS, MAX_PLAYERS, MIN_PLAYERS, composition
from engine.captain_lucky.dice import plain_state
from engine.captain_lucky.state import (
    BY_CAPTAIN,
    BY_REROLL,
    BY_STEAL,
    HAND_SIZE,
    MIDDLE,
    OVER,
    PHASES,
    PLACE,
    ROLL,
    SET_SIZE,
    STEAL,
    Area,
    LuckyState,
    Roll,
    Steal,
    TreasureSet,
    area_of,
    can_be_stolen,
    find_set,
    has_target,
    parse_set_id,
    set_id,
)
from engine.errors import InvalidSnapshot

_KEYS = frozenset(
    {
        "rules", "version", "players", "hands", "pile", "middle", "collections", "next_middle", "next_set",
        "discard", "captain_used", "active", "phase", "steal", "last_roll", "actions", "rng",
    }
)  # fmt: skip
_SET_KEYS = frozenset({"id", "kind", "cards"})
_ROLL_KEYS = frozenset({"seat", "set", "kind", "cards", "dice", "rolled", "by", "action"})
_FACES = {"head": True, "blank": False}


def _dice(dice: tuple[bool, ...]) -> list[str]:
    return ["head" if head else "blank" for head in dice]


def _sets(owner: int, area: Area) -> list[dict[str, Any]]:
    return [{"id": set_id(owner, s.num), "kind": KINDS[s.kind], "cards": s.cards} for s in area]


def dump(state: LuckyState, *, rules_id: str, version: int) -> dict[str, Any]:
    steal = state.steal
    roll = state.last_roll
    return {
        "rules": rules_id,
        "version": version,
        "players": state.players,
        "hands": [dict(zip(KINDS, hand, strict=True)) for hand in state.hands],
        "pile": [KINDS[k] for k in state.pile],
        "middle": _sets(MIDDLE, state.middle),
        "collections": [_sets(s, area) for s, area in enumerate(state.collections)],
        "next_middle": state.next_middle,
        "next_set": list(state.next_set),
        "discard": [KINDS[k] for k in state.discard],
        "captain_used": list(state.captain_used),
        "active": state.active,
        "phase": state.phase,
        "steal": None
        if steal is None
        else {"set": set_id(steal.owner, steal.num), "dice": _dice(steal.dice)},
        "last_roll": None
        if roll is None
        else {
            "seat": roll.seat,
            "set": set_id(roll.owner, roll.num),
            "kind": KINDS[roll.kind],
            "cards": roll.cards,
            "dice": _dice(roll.dice),
            "rolled": list(roll.rolled),
            "by": roll.by,
            "action": roll.action,
        },
        "actions": state.actions,
        "rng": rng_state_to_json(plain_state(state.rng_state)),
    }


def _kind(value: Any, name: str) -> int:
    if not isinstance(value, str) or value not in KIND_INDEX:
        raise InvalidSnapshot(f"{name}: unknown kind {value!r}")
    return KIND_INDEX[value]


def _dice_of(value: Any, name: str, length: int) -> tuple[bool, ...]:
    raw = json_list(value, name, length)
    if not all(isinstance(face, str) and face in _FACES for face in raw):
        raise InvalidSnapshot(f'{name} must list "head" or "blank" per die')
    return tuple(_FACES[face] for face in raw)


def _set_ref(value: Any, name: str, players: int) -> tuple[int, int]:
    parsed = parse_set_id(value) if isinstance(value, str) else None
    if parsed is None or parsed[0] >= players:
        raise InvalidSnapshot(f"{name}: bad set id {value!r}")
    return parsed


def _area(value: Any, owner: int, next_num: int, name: str) -> Area:
    sets: list[TreasureSet] = []
    for raw in json_list(value, name):
        if not isinstance(raw, dict) or set(raw) != _SET_KEYS:
            raise InvalidSnapshot(f"{name}: a set must be an object with id, kind and cards")
        parsed = parse_set_id(raw["id"]) if isinstance(raw["id"], str) else None
        if parsed is None or parsed[0] != owner or parsed[1] >= next_num:
            raise InvalidSnapshot(f"{name}: bad set id {raw['id']!r}")
        sets.append(
            TreasureSet(parsed[1], _kind(raw["kind"], name), whole_number(raw["cards"], name, 1, SET_SIZE))
        )
    nums = [s.num for s in sets]
    if nums != sorted(set(nums)):
        raise InvalidSnapshot(f"{name}: sets must be in set-number order, each id once")
    incomplete = [s.kind for s in sets if s.cards < SET_SIZE]
    if len(incomplete) != len(set(incomplete)):
        raise InvalidSnapshot(f"{name}: at most one incomplete set of a kind (K-SET-3)")
    return tuple(sets)


def _last_roll(value: Any, players: int, actions: int) -> Roll | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != _ROLL_KEYS:
        raise InvalidSnapshot("last_roll must be null or an object with " + ", ".join(sorted(_ROLL_KEYS)))
    owner, num = _set_ref(value["set"], "last_roll.set", players)
    cards = whole_number(value["cards"], "last_roll.cards", 1, SET_SIZE)
    rolled = tuple(
        whole_number(i, "last_roll.rolled", 0, cards - 1) for i in json_list(value["rolled"], "rolled")
    )
    if not rolled or list(rolled) != sorted(set(rolled)):
        raise InvalidSnapshot("last_roll.rolled must list the thrown dice in die order")
    if value["by"] not in (BY_STEAL, BY_REROLL, BY_CAPTAIN):
        raise InvalidSnapshot(f"last_roll.by: unknown {value['by']!r}")
    return Roll(
        seat=whole_number(value["seat"], "last_roll.seat", 0, players - 1),
        owner=owner,
        num=num,
        kind=_kind(value["kind"], "last_roll.kind"),
        cards=cards,
        dice=_dice_of(value["dice"], "last_roll.dice", cards),
        rolled=rolled,
        by=value["by"],
        action=whole_number(value["action"], "last_roll.action", 1, max(1, actions)),
    )


def load(data: Any, *, rules_id: str, version: int) -> LuckyState:
    check_snapshot_header(data, _KEYS, "Captain Lucky", rules_id=rules_id, version=version)
    players = whole_number(data["players"], "players", MIN_PLAYERS, MAX_PLAYERS)
    hands: list[tuple[int, ...]] = []
    for raw in json_list(data["hands"], "hands", players):
        if not isinstance(raw, dict) or set(raw) != set(KINDS):
            raise InvalidSnapshot("a hand must give a count for each kind")
        hand = tuple(whole_number(raw[kind], "a hand's count", 0, HAND_SIZE) for kind in KINDS)
        if sum(hand) > HAND_SIZE:
            raise InvalidSnapshot(f"a hand holds at most {HAND_SIZE} cards")
        hands.append(hand)
    pile = tuple(_kind(k, "pile") for k in json_list(data["pile"], "pile"))
    next_middle = whole_number(data["next_middle"], "next_middle", 1, 10**6)
    next_set = tuple(
        whole_number(n, "next_set", 1, 10**6) for n in json_list(data["next_set"], "next_set", players)
    )
    middle = _area(data["middle"], MIDDLE, next_middle, "middle")
    collections = tuple(
        _area(raw, s, next_set[s], f"collection {s}")
        for s, raw in enumerate(json_list(data["collections"], "collections", players))
    )
    discard = tuple(_kind(k, "discard") for k in json_list(data["discard"], "discard"))
    used = json_list(data["captain_used"], "captain_used", players)
    if not all(type(u) is bool for u in used):
        raise InvalidSnapshot("captain_used must list true or false per seat")
    counts = [0] * len(KINDS)
    for kind in pile + discard:
        counts[kind] += 1
    for hand in hands:
        counts = [c + n for c, n in zip(counts, hand, strict=True)]
    for area in (middle, *collections):
        for s in area:
            counts[s.kind] += s.cards
    if tuple(counts) != composition(players):
        raise InvalidSnapshot("every treasure card of the packs in play must be in exactly one place")
    active = whole_number(data["active"], "active", 0, players - 1)
    phase = data["phase"]
    if phase not in PHASES:
        raise InvalidSnapshot(f"unknown phase {phase!r}")
    actions = whole_number(data["actions"], "actions", 0, 10**6)
    state = LuckyState(
        players=players,
        hands=tuple(hands),
        pile=pile,
        middle=middle,
        collections=collections,
        next_middle=next_middle,
        next_set=next_set,
        discard=discard,
        captain_used=tuple(used),
        active=active,
        phase=phase,
        steal=None,
        last_roll=_last_roll(data["last_roll"], players, actions),
        actions=actions,
        rng_state=rng_state_from_json(data["rng"]),
    )
    if pile and any(sum(hands[s]) != HAND_SIZE for s in range(players) if s != active):
        raise InvalidSnapshot("while the pile has cards, every hand but the active seat's holds 5")
    if phase == OVER and pile:
        raise InvalidSnapshot("a finished game has an empty pile (K-END-1)")
    if phase == PLACE and not any(hands[active]):
        raise InvalidSnapshot("a seat with no cards skips placing (K-END-1)")
    if phase == STEAL and not has_target(state, active):
        raise InvalidSnapshot("the active seat has nothing to steal")
    return state._replace(steal=_steal(data["steal"], state))


def _steal(value: Any, state: LuckyState) -> Steal | None:
    if state.phase != ROLL:
        if value is not None:
            raise InvalidSnapshot("steal must be null outside the roll phase")
        return None
    if not isinstance(value, dict) or set(value) != {"set", "dice"}:
        raise InvalidSnapshot("in the roll phase, steal must be an object with set and dice")
    owner, num = _set_ref(value["set"], "steal.set", state.players)
    target = find_set(area_of(state, owner), num)
    if target is None or owner == state.active or not can_be_stolen(owner, target):
        raise InvalidSnapshot(f"steal.set: {value['set']!r} is not a set the active seat can steal")
    dice = _dice_of(value["dice"], "steal.dice", target.cards)
    if False not in dice:
        raise InvalidSnapshot("a steal waits for a decision only after a roll with a blank")
    return Steal(owner, num, dice)
