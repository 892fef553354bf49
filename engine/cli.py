"""``python -m engine``: play bot games, replay logs, pit bots against each other, benchmark.

Errors print one line on stderr and exit with status 1.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.base import Rules, seat_name
from engine.bots import BOT_KINDS, choose_action
from engine.errors import IllegalAction
from engine.gamelog import (
    GameLogError,
    action_event,
    check_result,
    parse,
    result_event,
    rules_of,
    started_event,
    write_lines,
)
from engine.gamelog import replay as replay_log
from engine.registry import available_rules, get_rules


class CliError(Exception):
    """A problem with the command line's input, reported as one line."""


def _seed(text: str) -> int | str:
    """Digits are a number seed (as the web service stores them), anything else a string."""
    return int(text) if text.lstrip("-").isdigit() else text


def _options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.card_set:
        path = Path(args.card_set)
        options["card_set"] = json.loads(path.read_text("utf-8")) if path.suffix == ".json" else args.card_set
    if args.first_seat is not None:
        options["first_seat"] = args.first_seat
    return options


def _bots(text: str, players: int) -> list[str]:
    bots = [b.strip() for b in text.split(",")] if text else ["random"] * players
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise CliError(f"--bots names {len(bots)} bots for {players} players")
    unknown = sorted(set(bots) - set(BOT_KINDS))
    if unknown:
        raise CliError(f"unknown bots: {', '.join(unknown)}; bots: {', '.join(BOT_KINDS)}")
    return bots


def play_game(
    rules: Rules[Any], players: int, seed: int | str, options: dict[str, Any], bots: list[str]
) -> tuple[Any, list[tuple[int, dict[str, Any], str]]]:
    """A whole bot game: the final state and (seat, action, sentence) per action."""
    state = rules.new_game(players, seed, options)
    rng = random.Random(f"bots:{seed}")
    moves = []
    while not rules.is_finished(state):
        seat = rules.to_act(state)[0]
        action = choose_action(rules, state, seat, bots[seat], rng)
        step = rules.step(state, seat, action)
        moves.append((seat, action, step.text))
        state = step.state
    return state, moves


def _summary(result: dict[str, list[int]]) -> list[str]:
    scores = ", ".join(f"{seat_name(s)} {score}" for s, score in enumerate(result["scores"]))
    winners = " and ".join(seat_name(s) for s in result["winners"])
    return [f"Final scores: {scores}", f"{'Winners' if len(result['winners']) > 1 else 'Winner'}: {winners}"]


def cmd_play(args: argparse.Namespace) -> int:
    rules = get_rules(args.rules)
    bots = _bots(args.bots, args.players)
    seed = _seed(args.seed)
    options = _options(args)
    state, moves = play_game(rules, args.players, seed, options, bots)
    width = len(str(len(moves)))
    for number, (_, _, sentence) in enumerate(moves, start=1):
        print(f"{number:>{width}}. {sentence}")
    result = rules.result(state)
    assert result is not None
    for line in _summary(result):
        print(line)
    if args.log:
        events = [started_event(rules.id, rules.version, args.players, seed, options)]
        events += [
            action_event(seq, seat, action, f"bot:{bots[seat]}")
            for seq, (seat, action, _) in enumerate(moves, start=2)
        ]
        events.append(result_event(result))
        Path(args.log).write_text(write_lines(events), "utf-8")
        print(f"Log written to {args.log} ({len(events)} events)")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    log = parse(Path(args.file).read_text("utf-8"))
    result = check_result(log)
    print(f"Replayed {len(log.actions)} actions of {log.header.rules} v{log.header.version}.")
    if log.head is not None:
        print(f"Every event's hash checks out; the chain's head is {log.head}.")
    else:
        print("The log carries no hashes: its events were replayed, their chain not checked.")
    if result is None:
        state = replay_log(log)
        to_act = ", ".join(seat_name(s) for s in rules_of(log).to_act(state))
        print(f"The game is still running; to act: {to_act}.")
        return 0
    for line in _summary(result):
        print(line)
    if log.result is not None:
        print("The recorded result matches the replay.")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    rules = get_rules(args.rules)
    players = args.players
    if args.games < 1:
        raise CliError("--games must be at least 1")
    wins = 0.0
    sole = 0
    shared = 0
    greedy_scores = 0
    other_scores = 0
    started = time.perf_counter()
    for game in range(args.games):
        greedy_seat = game % players
        bots = ["greedy" if s == greedy_seat else "random" for s in range(players)]
        state, _ = _quiet_game(rules, players, f"{args.seed}:{game}", bots)
        result = rules.result(state)
        assert result is not None
        if greedy_seat in result["winners"]:
            wins += 1
            if len(result["winners"]) == 1:
                sole += 1
            else:
                shared += 1
        greedy_scores += result["scores"][greedy_seat]
        other_scores += sum(result["scores"]) - result["scores"][greedy_seat]
    elapsed = time.perf_counter() - started
    games = args.games
    print(
        f"{games} games of {rules.title}, {players} players: 1 greedy bot against {players - 1} random bots"
    )
    print(f"greedy wins {int(wins)} of {games} ({wins / games:.1%}; {sole} alone, {shared} shared)")
    print(f"a random bot would win about {1 / players:.1%}")
    print(
        f"average score: greedy {greedy_scores / games:.1f}, "
        f"random {other_scores / (games * (players - 1)):.1f}"
    )
    print(f"({elapsed:.1f} s)")
    return 0


def _quiet_game(rules: Rules[Any], players: int, seed: int | str, bots: list[str]) -> tuple[Any, int]:
    state = rules.new_game(players, seed)
    rng = random.Random(f"bots:{seed}")
    actions = 0
    while not rules.is_finished(state):
        seat = rules.to_act(state)[0]
        state = rules.apply(state, seat, choose_action(rules, state, seat, bots[seat], rng))
        actions += 1
    return state, actions


def _reference_speed() -> float:
    """Millions per second of the engine's commonest work done in plain Python — building a
    small dict and a 16-field tuple — measured in the same run, so figures from two machines
    (or two busy moments) can be compared as ratios to it."""
    rounds = 200_000
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        for i in range(rounds):
            {"type": "assemble", "party": i, "onto": i}  # noqa: B018
            (i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i)  # noqa: B018
        best = min(best, time.process_time() - started)
    return rounds / best / 1e6


def cmd_bench(args: argparse.Namespace) -> int:
    rules = get_rules(args.rules)
    players = args.players
    games = args.games
    if games < 1 or args.repeat < 1:
        raise CliError("--games and --repeat must be at least 1")
    # CPU time of this one process: other work on the machine does not distort the figures.
    print(f"{rules.title}, {players} players, {games} random games, one core (CPU time)")

    logs: list[list[tuple[int, dict[str, Any]]]] = []
    states: list[tuple[Any, int]] = []
    # The same games (seeded) several times, the best time kept, as for the replay below:
    # a figure of the engine, not of whatever else the machine did meanwhile.
    elapsed = float("inf")
    for _ in range(args.repeat):
        logs = []
        started = time.process_time()
        for game in range(games):
            state = rules.new_game(players, game)
            rng = random.Random(game)
            log = []
            while not rules.is_finished(state):
                seat = rules.to_act(state)[0]
                action = choose_action(rules, state, seat, "random", rng)
                log.append((seat, action))
                state = rules.apply(state, seat, action)
            logs.append(log)
        elapsed = min(elapsed, time.process_time() - started)
    actions = sum(len(log) for log in logs)
    reference = _reference_speed()
    print(f"random full games:        {games / elapsed:8.1f} games/s (best of {args.repeat})")
    print(f"average actions per game: {actions / games:8.1f}")
    print(
        f"baseline (this machine):  {reference:8.2f} M dicts+tuples/s of plain Python; "
        f"{games / elapsed / reference:.1f} games/s per M (compare machines by this)"
    )

    for game, log in enumerate(logs):
        state = rules.new_game(players, game)
        for seat, action in log:
            states.append((state, seat))
            state = rules.apply(state, seat, action)
    best = float("inf")
    for _ in range(args.repeat):
        started = time.process_time()
        for game, log in enumerate(logs):
            state = rules.new_game(players, game)
            for seat, action in log:
                state = rules.apply(state, seat, action)
        best = min(best, time.process_time() - started)
    print(
        f"replay with validation:   {best / games * 1000:8.3f} ms/game "
        f"({best / actions * 1e6:.1f} us/action, best of {args.repeat})"
    )

    started = time.process_time()
    for state, seat in states:
        rules.legal_actions(state, seat)
    elapsed = time.process_time() - started
    print(f"legal_actions:            {elapsed / len(states) * 1e6:8.1f} us/call ({len(states)} calls)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ids = [rules_id for rules_id, _ in available_rules()]
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default="pirates", choices=ids, help="rule set id (default: pirates)")
        p.add_argument("--players", type=int, default=4, help="number of players (default: 4)")

    play = sub.add_parser("play", help="play a whole game between bots and print its log")
    common(play)
    play.add_argument("--seed", default="1", help="game seed; digits make a number seed (default: 1)")
    play.add_argument("--bots", default="", help="comma-separated bot per seat: random or greedy")
    play.add_argument("--card-set", help="bundled card set id, or a path to a card-set .json file")
    play.add_argument("--first-seat", type=int, help="seat that starts (default: drawn from the seed)")
    play.add_argument("--log", help="write the game's JSON-lines log to this file")
    play.set_defaults(func=cmd_play)

    replay = sub.add_parser("replay", help="replay a JSON-lines log and check its recorded result")
    replay.add_argument("file")
    replay.set_defaults(func=cmd_replay)

    match = sub.add_parser("match", help="one greedy bot against random bots, seats rotating")
    common(match)
    match.add_argument("--games", type=int, default=200)
    match.add_argument("--seed", default="match", help="base seed of the games")
    match.set_defaults(func=cmd_match)

    bench = sub.add_parser("bench", help="speed of random play, replay and legal_actions")
    common(bench)
    bench.add_argument("--games", type=int, default=500)
    bench.add_argument("--repeat", type=int, default=3, help="passes of games and replay (best counts)")
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except (CliError, GameLogError, IllegalAction, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return status
