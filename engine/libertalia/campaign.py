"""A campaign's setup (L-CAMP, with the generator of L-RNG) and its end (L-END): End
effects, fortunes, scores and the cleanup."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import mul
from typing import Any

from engine.base import ENDS_THE_GAME
from engine.libertalia.characters import KIND_INDEX, KINDS, MAP, RANKS, CharacterSet, effect
from engine.libertalia.options import Board
from engine.libertalia.state import CAMPAIGNS, FIRST_HAND, NEW_CARDS, NOBODY, OVER, START_DOUBLOONS, SUNRISE
from engine.libertalia.working_copy import NEXT_CAMPAIGN, Log, Table, doubloons

PREACHER_GAIN = effect(6, "end")["n"]
CARPENTER_GAIN = effect(9, "end")["n"]
TOPMAN_GAIN = effect(16, "end")["n"]
TREASURER_KINDS = tuple(KIND_INDEX[k] for k in effect(23, "end")["kinds"])
TREASURER_PER = effect(23, "end")["n"]
GAMBLER_GAIN = effect(24, "end")["n"]
DAUGHTER_RANK = 25
DAUGHTER_GAIN = effect(25, "end")["gain"]
DAUGHTER_LOSS = effect(25, "end")["otherwise_lose"]
QUARTERMASTER_LOSS = effect(26, "end")["n"]
FIRST_MATE_PER = effect(28, "end")["n"]
CAPTAIN_KIND = KIND_INDEX[effect(29, "end")["kinds"][0]]
CAPTAIN_PER = effect(29, "end")["n"]

# An End effect: (table, seat, rank) -> the change in doubloons it asks for (negative for a
# loss); the caller applies it, a loss stopping at 0 (L-DBL-2). It reads only dens and booty,
# so the bot's evaluation can run it on a state too.
EndEffect = Callable[[Board, int, int], int]


def start(t: Table, log: Log) -> None:
    """L-CAMP-1 … L-CAMP-3 with L-RNG-1: ranks first, then the layout."""
    t.campaign += 1
    t.day = 1
    t.phase = SUNRISE
    t.actor = NOBODY
    t.decision = ""
    t.picks = [0] * t.players
    t.night = [False] * t.players
    count = FIRST_HAND if t.campaign == 1 else NEW_CARDS
    if len(t.fixed_ranks) >= t.campaign:
        ranks = list(t.fixed_ranks[t.campaign - 1])
    else:
        dealt = {r for ranks in t.dealt for r in ranks}
        undealt = [r for r in range(1, RANKS + 1) if r not in dealt]
        ranks = sorted(t.rng().sample(undealt, count))
    t.dealt = [*t.dealt, tuple(ranks)]
    t.hands = [sorted([*hand, *ranks]) for hand in t.hands]
    t.doubloons = [START_DOUBLOONS] * t.players
    bag = t.bag = list(t.chars.booty_count)
    if len(t.fixed_layouts) >= t.campaign:
        layout = [list(space) for space in t.fixed_layouts[t.campaign - 1]]
    else:
        tokens = t.bag_list()
        t.rng().shuffle(tokens)
        n = t.players
        layout = [tokens[d * n : (d + 1) * n] for d in range(6)]
    spaces = [[0] * len(KINDS) for _ in range(6)]
    t.spaces = spaces
    for d, space in enumerate(layout):
        for kind in space:
            spaces[d][kind] += 1
            bag[kind] -= 1
    if not log.text:
        return
    names = ", ".join(f"{t.chars.name[r]} ({r})" for r in ranks)
    laid = "; ".join(f"day {d + 1}: {t.tokens(s)}" for d, s in enumerate(t.spaces))
    log.add(
        f"Campaign {t.campaign} begins: everyone receives {names}, and {doubloons(START_DOUBLOONS)}. "
        f"The booty is laid out ({laid})."
    )


def fortune(chars: CharacterSet, money: int, held: Sequence[int]) -> dict[str, Any]:
    """L-END-2, L-END-3: the fortune and its parts."""
    tokens = {kind: held[k] * chars.booty_value[k] for k, kind in enumerate(KINDS)}
    sets = held[MAP] // chars.map_set_size
    tokens["map"] += sets * chars.map_set_value
    total = money + sum(tokens.values())
    return {
        "doubloons": money,
        "booty": dict(zip(KINDS, held, strict=True)),
        "booty_value": tokens,
        "map_sets": sets,
        "total": total,
        "fortune": max(0, total),
    }


def _end_silently(t: Table) -> None:
    """What :func:`end` does up to the cleanup, composing no sentence (``Rules.apply``)."""
    chars = t.chars
    fortunes = []
    for seat in range(t.players):
        for rank in sorted(t.dens[seat], reverse=True):  # L-END-1
            found = END_EFFECTS.get(rank)
            if found is not None:
                change = found(t, seat, rank)
                if change > 0:
                    t.gain(seat, change)
                elif change < 0:
                    t.lose(seat, -change)
        held = t.booty[seat]
        # fortune(...)["fortune"], without the parts
        total = t.doubloons[seat] + sum(map(mul, held, chars.booty_value))
        total += held[MAP] // chars.map_set_size * chars.map_set_value
        fortunes.append(max(0, total))
    t.fortunes = [*t.fortunes, tuple(fortunes)]
    if t.campaign == CAMPAIGNS:
        t.phase = OVER
        t.actor = NOBODY


def end(t: Table, log: Log) -> None:
    log.reveal(ENDS_THE_GAME if t.campaign == CAMPAIGNS else NEXT_CAMPAIGN)
    if not log.text:
        _end_silently(t)
        if t.campaign < CAMPAIGNS:
            cleanup(t)
            start(t, log)
        return
    log.add(f"End of campaign {t.campaign}.")
    for seat in range(t.players):
        parts = []
        for rank in sorted(t.dens[seat], reverse=True):  # L-END-1
            found = END_EFFECTS.get(rank)
            if found is None:
                continue
            change = found(t, seat, rank)
            name = t.chars.name[rank]
            if change == 0:
                parts.append(f"{name} 0")
            elif change > 0:
                t.gain(seat, change)
                parts.append(f"{name} +{change}")
            else:
                lost = t.lose(seat, -change)
                parts.append(f"{name} −{lost}" + ("" if lost == -change else f" (of {-change})"))
        if parts:
            log.add(f"{t.name(seat)}'s den at the End: {', '.join(parts)}.")
    fortunes = []
    for seat in range(t.players):
        parts_of = fortune(t.chars, t.doubloons[seat], t.booty[seat])
        fortunes.append(parts_of["fortune"])
        below = " (below 0, counts as 0)" if parts_of["total"] < 0 else ""
        log.add(
            f"{t.name(seat)}'s fortune: {parts_of['fortune']}{below} from {doubloons(t.doubloons[seat])} "
            f"and {t.tokens(t.booty[seat])}."
        )
    t.fortunes = [*t.fortunes, tuple(fortunes)]
    totals = [sum(f[s] for f in t.fortunes) for s in range(t.players)]
    log.add("Scores: " + ", ".join(f"{t.name(s)} {totals[s]}" for s in range(t.players)) + ".")
    if t.campaign == CAMPAIGNS:
        t.phase = OVER
        t.actor = NOBODY
        best = max(totals)
        winners = [t.name(s) for s in range(t.players) if totals[s] == best]
        verb = "wins" if len(winners) == 1 else "share the win"
        log.add(f"The game is over; {' and '.join(winners)} {verb}.")
        return
    cleanup(t)
    start(t, log)


def cleanup(t: Table) -> None:
    """L-END-5: dens and graveyards leave the game, every token returns to the bag, hands stay."""
    t.removed = [sorted([*t.removed[seat], *t.dens[seat], *t.graves[seat]]) for seat in range(t.players)]
    t.dens = [[] for _ in range(t.players)]
    t.graves = [[] for _ in range(t.players)]
    t.booty = [[0] * len(KINDS) for _ in range(t.players)]
    t.spaces = [[0] * len(KINDS) for _ in range(6)]
    t.bag = list(t.chars.booty_count)


def _gain(amount: int) -> EndEffect:
    return lambda t, seat, rank: amount


def topman(t: Board, seat: int, rank: int) -> int:
    """L-CHAR-16: ties count."""
    mine = len(t.dens[seat])
    return TOPMAN_GAIN if all(len(den) >= mine for den in t.dens) else 0


def treasurer(t: Board, seat: int, rank: int) -> int:
    return TREASURER_PER * sum(t.booty[seat][k] for k in TREASURER_KINDS)


def governors_daughter(t: Board, seat: int, rank: int) -> int:
    """L-CHAR-25."""
    shared = any(DAUGHTER_RANK in t.dens[s] for s in range(t.players) if s != seat)
    return -DAUGHTER_LOSS if shared else DAUGHTER_GAIN


def first_mate(t: Board, seat: int, rank: int) -> int:
    return FIRST_MATE_PER * len(t.dens[seat])


def captain(t: Board, seat: int, rank: int) -> int:
    return -CAPTAIN_PER * t.booty[seat][CAPTAIN_KIND]


END_EFFECTS: dict[int, EndEffect] = {
    6: _gain(PREACHER_GAIN),
    9: _gain(CARPENTER_GAIN),
    16: topman,
    23: treasurer,
    24: _gain(GAMBLER_GAIN),
    25: governors_daughter,
    26: _gain(-QUARTERMASTER_LOSS),
    28: first_mate,
    29: captain,
}
