"""A new game: the options (L-RNG-2) and the generator's first draws (L-RNG-1).

The generator is ``random.Random(seed)`` for an int seed and for a string seed alike (Python
makes the number from the string's UTF-8 bytes and their SHA-512, the same in every process,
as engine/pirates does). It draws, in order: the colours (unless given), then at each campaign's
start the ranks and the layout, then during play each Spanish Spy draw. An option that fixes
one of these replaces that call: the generator is then not called for it.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import check_new_game
from engine.errors import InvalidOptions
from engine.libertalia import campaign, flow
from engine.libertalia.characters import (
    COLOURS,
    KIND_INDEX,
    KINDS,
    RANKS,
    CharacterSet,
    resolve_character_set,
)
from engine.libertalia.state import (
    CAMPAIGNS,
    DAYS,
    FIRST_HAND,
    NEW_CARDS,
    NOBODY,
    SUNRISE,
    Layout,
    LibertaliaState,
)
from engine.libertalia.working_copy import SILENT, Table

OPTIONS = ("character_set", "colours", "ranks", "layouts", "draws")
MAX_DRAWS = 1000
MIN_PLAYERS, MAX_PLAYERS = 2, 6


def new_game(players: Any, seed: Any, options: Any) -> LibertaliaState:
    options = check_new_game(
        "Libertalia", players, seed, options, low=MIN_PLAYERS, high=MAX_PLAYERS, known=OPTIONS
    )
    chars = resolve_character_set(options.get("character_set"))
    ranks = _ranks(options["ranks"]) if "ranks" in options else ()
    layouts = _layouts(chars, players, options["layouts"]) if "layouts" in options else ()
    draws = _draws(options["draws"]) if "draws" in options else ()
    rng = random.Random(seed)
    if "colours" in options:
        colours = _colours(players, options["colours"])
    else:
        colours = tuple(rng.sample(range(len(COLOURS)), players))
    empty: tuple[tuple[int, ...], ...] = ((),) * players
    state = LibertaliaState(
        chars=chars,
        players=players,
        colours=colours,
        campaign=0,
        day=1,
        phase=SUNRISE,
        dealt=(),
        hands=empty,
        picks=(0,) * players,
        ship=(),
        dens=empty,
        graves=empty,
        removed=empty,
        booty=empty,
        doubloons=(0,) * players,
        spaces=(),
        bag=chars.booty_count,
        actor=NOBODY,
        decision="",
        picks_left=0,
        officer=False,
        night=(False,) * players,
        fortunes=(),
        fixed_ranks=ranks,
        fixed_layouts=layouts,
        fixed_draws=draws,
        actions=0,
        rng_state=(),  # read from the generator, already at hand, when the table is frozen
    )
    t = Table(state, rng)
    t.booty = [[0] * len(KINDS) for _ in range(players)]
    campaign.start(t, SILENT)  # new_game returns the state only
    flow.run(t, SILENT)
    return t.freeze()


def _colours(players: int, value: Any) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) != players
        or not all(isinstance(c, str) and c in COLOURS for c in value)
        or len(set(value)) != players
    ):
        raise InvalidOptions(
            f"colours must list {players} different colours, one per seat, of: {', '.join(COLOURS)}"
        )
    return tuple(COLOURS.index(c) for c in value)


def _ranks(value: Any) -> tuple[tuple[int, ...], ...]:
    """Per campaign from the first, the ranks dealt: 9, then 6 and 6, never dealt twice."""
    if not isinstance(value, list) or not 1 <= len(value) <= CAMPAIGNS:
        raise InvalidOptions("ranks must list the ranks dealt in campaign 1 (and optionally 2 and 3)")
    out = []
    seen: set[int] = set()
    for number, ranks in enumerate(value, start=1):
        count = FIRST_HAND if number == 1 else NEW_CARDS
        if (
            not isinstance(ranks, list)
            or len(ranks) != count
            or not all(type(r) is int and 1 <= r <= RANKS for r in ranks)
            or len(set(ranks)) != count
        ):
            raise InvalidOptions(
                f"ranks for campaign {number} must be {count} different ranks from 1 to {RANKS}"
            )
        again = sorted(seen & set(ranks))
        if again:
            raise InvalidOptions(
                f"ranks for campaign {number}: {', '.join(map(str, again))} were dealt already"
            )
        seen |= set(ranks)
        out.append(tuple(sorted(ranks)))
    return tuple(out)


def _layouts(chars: CharacterSet, players: int, value: Any) -> tuple[Layout, ...]:
    """Per campaign from the first, six day-spaces of ``players`` tokens each."""
    if not isinstance(value, list) or not 1 <= len(value) <= CAMPAIGNS:
        raise InvalidOptions("layouts must list the layout of campaign 1 (and optionally 2 and 3)")
    out = []
    for number, layout in enumerate(value, start=1):
        shape = f"layouts for campaign {number} must be {DAYS} lists of {players} booty kinds"
        if not isinstance(layout, list) or len(layout) != DAYS:
            raise InvalidOptions(shape)
        spaces = []
        counts = [0] * len(KINDS)
        for space in layout:
            if not isinstance(space, list) or len(space) != players:
                raise InvalidOptions(shape)
            if not all(isinstance(k, str) and k in KIND_INDEX for k in space):
                raise InvalidOptions(f"layouts for campaign {number}: booty kinds are {', '.join(KINDS)}")
            tokens = tuple(KIND_INDEX[k] for k in space)
            for k in tokens:
                counts[k] += 1
            spaces.append(tokens)
        for k, kind in enumerate(KINDS):
            if counts[k] > chars.booty_count[k]:
                raise InvalidOptions(
                    f"layouts for campaign {number}: {counts[k]} {kind} tokens, "
                    f"the bag has {chars.booty_count[k]}"
                )
        out.append(tuple(spaces))
    return tuple(out)


def _draws(value: Any) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or len(value) > MAX_DRAWS
        or not all(isinstance(k, str) and k in KIND_INDEX for k in value)
    ):
        raise InvalidOptions(f"draws must be a list of booty kinds ({', '.join(KINDS)}), at most {MAX_DRAWS}")
    return tuple(KIND_INDEX[k] for k in value)
