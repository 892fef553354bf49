"""Bot games for tests, for any rule set: the one playout helper, and the recorded logs of
the stored-game corpus (tests/fixtures/games/).

A bot game is reproducible from its seed: the bots draw from ``random.Random(f"test:{seed}")``
(``engine.bots.choose_action``, the service's bots), and when several seats may act at once
(a rule set that declares ``simultaneous``) the next one is drawn from the same generator;
otherwise the first seat to act moves.
"""

from __future__ import annotations

import random
from typing import Any

from engine import gamelog
from engine.base import Action, Rules
from engine.bots import choose_action

Move = tuple[Any, int, Action]  # (state before, seat, action)
MAX_ACTIONS = 5000


def playout(
    rules: Rules[Any],
    players: int,
    seed: int | str,
    bots: list[str] | None = None,
    *,
    options: dict[str, Any] | None = None,
    forced_by_system: bool = False,
) -> tuple[Any, list[Move]]:
    """A bot game to its end: the final state and (state before, seat, action) for every
    action. ``forced_by_system``: a seat's forced action is made without asking its bot (as
    the service makes it), so it draws nothing from the generator."""
    bots = bots or ["random"] * players
    state = rules.new_game(players, seed, options)
    rng = random.Random(f"test:{seed}")
    moves: list[Move] = []
    while not rules.is_finished(state):
        assert len(moves) < MAX_ACTIONS, f"a game of {rules.id} did not end within {MAX_ACTIONS} actions"
        seats = rules.to_act(state)
        seat = rng.choice(seats) if rules.simultaneous else seats[0]
        forced = rules.forced_action(state, seat) if forced_by_system else None
        action = forced if forced is not None else choose_action(rules, state, seat, bots[seat], rng)
        moves.append((state, seat, action))
        state = rules.apply(state, seat, action)
    return state, moves


def corpus_player_counts(rules: Rules[Any]) -> list[int]:
    """The player counts the corpus records for a rule set: its fewest, a middle one, its most."""
    counts = rules.player_counts
    return sorted({counts[0], counts[len(counts) // 2], counts[-1]})


def corpus_bots(players: int) -> list[str]:
    """Greedy bots in the even seats, random ones in the odd: both kinds of play in every game."""
    return ["greedy" if seat % 2 == 0 else "random" for seat in range(players)]


def corpus_name(rules: Rules[Any], players: int) -> str:
    return f"{rules.id}-v{rules.version}-{players}p.jsonl"


def record(rules: Rules[Any], players: int, seed: str, bots: list[str]) -> str:
    """A finished bot game as a JSON-lines log (engine.gamelog format) with its result. Each
    action carries its public sentence (what everyone read); forced actions are the system's."""
    final, moves = playout(rules, players, seed, bots, forced_by_system=True)
    events: list[dict[str, Any]] = [gamelog.started_event(rules.id, rules.version, players, seed)]
    for state, seat, action in moves:
        forced = rules.forced_action(state, seat) is not None
        event = gamelog.action_event(
            len(events) + 1, seat, dict(action), "system:forced" if forced else f"bot:{bots[seat]}"
        )
        event["payload"]["text"] = rules.step(state, seat, action).text
        events.append(event)
    result = rules.result(final)
    assert result is not None, "a recorded game is finished"
    events.append(gamelog.result_event(result))
    return gamelog.write_lines(events)


def corpus_log(rules: Rules[Any], players: int) -> str:
    """The corpus game of ``rules`` for ``players``: its seed and bots follow from them alone."""
    return record(rules, players, f"corpus:{rules.id}:v{rules.version}:{players}p", corpus_bots(players))
