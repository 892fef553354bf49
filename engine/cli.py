"""``python -m engine``: play bot games, replay logs, pit bots against each other, benchmark.

Works for every registered rule set (``--rules ID``); when several seats may act at once, the
bots act one at a time in seat order. Errors print one line on stderr and exit with status 1.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.base import Rules
from engine.bots import ENGINE_BOT_KINDS, next_move
from engine.errors import IllegalAction, InvalidOptions
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
from engine.reference import listed_step, reference_apply
from engine.registry import all_rules, available_rules, get_rules
from engine.search import DEFAULT_BUDGET, Budget, search, tuning_for

# A bound on every bot game: a rule set whose random games do not end is a bug to report,
# not a reason to hang.
MAX_ACTIONS = 100_000
DEFAULT_PLAYERS = 4
# bench without --games plays up to this many games per rule set, fewer when a first pass
# of them would take longer than BENCH_BUDGET seconds of CPU (heavier rule sets).
BENCH_GAMES = 500
BENCH_BUDGET = 2.0
# The naive reference (engine/reference.py) replays the first of those games, as many as fit
# in REFERENCE_BUDGET seconds of CPU, at least one; apply replays the same ones for the ratio.
REFERENCE_BUDGET = 1.0
REFERENCE_TARGET = 5.0  # apply at least this many times faster than the reference
# The strong bot is timed on this many positions per rule set: at its default cap of 1 s a
# move, the bench of every rule set grows by well under half a minute.
BENCH_STRONG_MOVES = 6


class CliError(Exception):
    """A problem with the command line's input, reported as one line."""


def _seed(text: str) -> int | str:
    """Digits are a number seed (as the web service stores them), anything else a string."""
    return int(text) if text.lstrip("-").isdigit() else text


def _options(rules: Rules[Any], pairs: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs: VALUE is JSON when it parses as JSON, else a string;
    ``NAME=@FILE`` reads the JSON value from a file."""
    known = [option.name for option in rules.options]
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise CliError(f"--option {pair!r}: write NAME=VALUE")
        if name not in known:
            raise CliError(f"{rules.id} has no option {name!r}; options: {', '.join(known) or 'none'}")
        if text.startswith("@"):
            try:
                options[name] = json.loads(Path(text[1:]).read_text("utf-8"))
            except json.JSONDecodeError as exc:
                raise CliError(f"--option {name}: {text[1:]} is not valid JSON ({exc.msg})") from None
            continue
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return options


def players_for(rules: Rules[Any], wanted: int | None, *, exact: bool = True) -> int:
    """How many play: ``wanted`` as given when ``exact`` (``new_game`` words any refusal),
    else the count the rule set supports nearest to it (the smaller on a tie);
    ``DEFAULT_PLAYERS`` or the nearest to it when nothing is asked."""
    if wanted is not None and exact:
        return wanted
    target = DEFAULT_PLAYERS if wanted is None else wanted
    return min(rules.player_counts, key=lambda n: (abs(n - target), n))


def _bots(text: str, players: int) -> list[str]:
    bots = [b.strip() for b in text.split(",")] if text else ["random"] * players
    if len(bots) == 1:
        bots = bots * players
    if len(bots) != players:
        raise CliError(f"--bots names {len(bots)} bots for {players} players")
    unknown = sorted(set(bots) - set(ENGINE_BOT_KINDS))
    if unknown:
        raise CliError(f"unknown bots: {', '.join(unknown)}; bots: {', '.join(ENGINE_BOT_KINDS)}")
    return bots


def _too_long(rules: Rules[Any]) -> CliError:
    return CliError(f"a game of {rules.id} did not end after {MAX_ACTIONS} actions")


def play_game(
    rules: Rules[Any], players: int, seed: int | str, options: dict[str, Any], bots: list[str]
) -> tuple[Any, list[tuple[int, dict[str, Any], str]]]:
    """A whole bot game: the final state and (seat, action, sentence for everyone) per action."""
    state = rules.new_game(players, seed, options)
    rng = random.Random(f"bots:{seed}")
    moves: list[tuple[int, dict[str, Any], str]] = []
    while not rules.is_finished(state):
        if len(moves) >= MAX_ACTIONS:
            raise _too_long(rules)
        seat, action = next_move(rules, state, bots, rng, clock=time.process_time)
        step = rules.step(state, seat, action)
        # The sentence as everyone reads it once the game is over.
        moves.append((seat, action, step.full_text or step.text))
        state = step.state
    return state, moves


def _summary(rules: Rules[Any], result: dict[str, list[int]]) -> list[str]:
    scores = ", ".join(f"{rules.seat_name(s)} {score}" for s, score in enumerate(result["scores"]))
    winners = " and ".join(rules.seat_name(s) for s in result["winners"])
    return [f"Final scores: {scores}", f"{'Winners' if len(result['winners']) > 1 else 'Winner'}: {winners}"]


def cmd_play(args: argparse.Namespace) -> int:
    rules = get_rules(args.rules)
    players = players_for(rules, args.players)
    bots = _bots(args.bots, players)
    seed = _seed(args.seed)
    options = _options(rules, args.option)
    state, moves = play_game(rules, players, seed, options, bots)
    width = len(str(len(moves)))
    for number, (_, _, sentence) in enumerate(moves, start=1):
        print(f"{number:>{width}}. {sentence}")
    result = rules.result(state)
    assert result is not None
    for line in _summary(rules, result):
        print(line)
    if args.log:
        events = [started_event(rules.id, rules.version, players, seed, options)]
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
    rules = rules_of(log)
    print(f"Replayed {len(log.actions)} actions of {log.header.rules} v{log.header.version}.")
    if log.head is not None:
        print(f"Every event's hash checks out; the chain's head is {log.head}.")
    else:
        print("The log carries no hashes: its events were replayed, their chain not checked.")
    if result is None:
        state = replay_log(log)
        to_act = ", ".join(rules.seat_name(s) for s in rules.to_act(state))
        print(f"The game is still running; to act: {to_act}.")
        return 0
    for line in _summary(rules, result):
        print(line)
    if log.result is not None:
        print("The recorded result matches the replay.")
    return 0


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def _budget(args: argparse.Namespace) -> Budget:
    return Budget(
        iterations=args.iterations,
        think_seconds=args.think_seconds,
        depth=args.depth,
        rollout_greedy=args.rollout_greedy,
        candidates=args.candidates,
    )


def cmd_match(args: argparse.Namespace) -> int:
    """Bots per seat, the first being the one measured; the line-up rotates a seat each game,
    so the measured bot sits in every seat position equally often."""
    rules = get_rules(args.rules)
    players = players_for(rules, args.players)
    if args.games < 1:
        raise CliError("--games must be at least 1")
    lineup = _bots(args.bots or ",".join(["greedy"] + ["random"] * (players - 1)), players)
    subject = lineup[0]
    budget = _budget(args)
    sole = 0
    shared = 0
    subject_scores = 0
    other_scores = 0
    think: list[float] = []
    started = time.perf_counter()
    for game in range(args.games):
        seat_of_subject = game % players
        bots = [lineup[(s - seat_of_subject) % players] for s in range(players)]
        state, _ = _quiet_game(
            rules, players, f"{args.seed}:{game}", bots, budget=budget, timed=seat_of_subject, times=think
        )
        result = rules.result(state)
        assert result is not None
        if seat_of_subject in result["winners"]:
            if len(result["winners"]) == 1:
                sole += 1
            else:
                shared += 1
        subject_scores += result["scores"][seat_of_subject]
        other_scores += sum(result["scores"]) - result["scores"][seat_of_subject]
        if args.progress:
            won = "wins" if seat_of_subject in result["winners"] else "loses"
            print(
                f"game {game + 1}: {subject} {won}; so far {sole + shared} of {game + 1}",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.perf_counter() - started
    games = args.games
    wins = sole + shared
    others = ", ".join(lineup[1:])
    print(f"{games} games of {rules.title}, {players} players: {subject} against {others}, seats rotating")
    if rules.evaluate(rules.new_game(players, f"{args.seed}:0"), 0) is None:
        print(f"({rules.title} has no position evaluation, so the greedy bot plays at random)")
    low, high = wilson(wins, games)
    print(
        f"{subject} wins {wins} of {games} ({wins / games:.1%}; 95% interval {low:.1%}–{high:.1%}; "
        f"{sole} alone, {shared} shared; a shared win counts as a win)"
    )
    print(f"a bot as good as the others would win about {1 / players:.1%}")
    print(
        f"average score: {subject} {subject_scores / games:.1f}, "
        f"others {other_scores / (games * (players - 1)):.1f}"
    )
    if subject == "strong" and think:
        ordered = sorted(think)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        tuning = tuning_for(rules)
        depth = tuning.depth if budget.depth is None else budget.depth
        candidates = tuning.candidates if budget.candidates is None else budget.candidates
        print(
            f"strong: {budget.iterations} rollouts, cap {budget.think_seconds:g} s, depth {depth}, "
            f"{candidates} candidates, greedy rollout share {budget.rollout_greedy:g}; CPU s per move: "
            f"mean {sum(think) / len(think):.3f}, p99 {p99:.3f} over {len(think)} moves"
        )
    print(f"({elapsed:.1f} s)")
    return 0


def _quiet_game(
    rules: Rules[Any],
    players: int,
    seed: int | str,
    bots: list[str],
    *,
    budget: Budget = DEFAULT_BUDGET,
    timed: int | None = None,
    times: list[float] | None = None,
) -> tuple[Any, int]:
    """A bot game; the CPU time of each move of seat ``timed`` is added to ``times``. The
    strong bot's time cap uses the CPU clock of this process."""
    state = rules.new_game(players, seed)
    rng = random.Random(f"bots:{seed}")
    actions = 0
    while not rules.is_finished(state):
        if actions >= MAX_ACTIONS:
            raise _too_long(rules)
        started = time.process_time()
        seat, action = next_move(rules, state, bots, rng, budget=budget, clock=time.process_time)
        if times is not None and seat == timed:
            times.append(time.process_time() - started)
        state = rules.apply(state, seat, action)
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


Log = list[tuple[int, dict[str, Any]]]


def _random_games(rules: Rules[Any], players: int, games: int | None) -> tuple[list[Log], float]:
    """Seeded random games (game ``n`` has seed ``n``), their logs and the CPU time they took.
    With ``games`` None: up to BENCH_GAMES, stopping once BENCH_BUDGET seconds are spent."""
    wanted = BENCH_GAMES if games is None else games
    logs: list[Log] = []
    started = time.process_time()
    for game in range(wanted):
        state = rules.new_game(players, game)
        rng = random.Random(game)
        bots = ["random"] * players
        log: Log = []
        while not rules.is_finished(state):
            if len(log) >= MAX_ACTIONS:
                raise _too_long(rules)
            seat, action = next_move(rules, state, bots, rng)
            log.append((seat, action))
            state = rules.apply(state, seat, action)
        logs.append(log)
        if games is None and time.process_time() - started > BENCH_BUDGET:
            break
    return logs, time.process_time() - started


def _replay_time(rules: Rules[Any], players: int, logs: list[Log], apply: Any, repeat: int) -> float:
    """The best CPU time of ``repeat`` replays of ``logs`` from their starts through ``apply``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        for game, log in enumerate(logs):
            state = rules.new_game(players, game)
            for seat, action in log:
                state = apply(state, seat, action)
        best = min(best, time.process_time() - started)
    return best


def _reference_games(rules: Rules[Any], players: int, logs: list[Log]) -> tuple[list[Log], float]:
    """The first logs the reference replays within REFERENCE_BUDGET (at least one), and the
    time of that first pass."""

    def naive(state: Any, seat: int, action: dict[str, Any]) -> Any:
        return reference_apply(rules, state, seat, action)

    started = time.process_time()
    done = 0
    for game, log in enumerate(logs):
        state = rules.new_game(players, game)
        for seat, action in log:
            state = naive(state, seat, action)
        done += 1
        if time.process_time() - started > REFERENCE_BUDGET:
            break
    return logs[:done], time.process_time() - started


def _bench_one(rules: Rules[Any], args: argparse.Namespace, reference: float) -> int:
    """Print one rule set's figures; the number of random games it played."""
    players = players_for(rules, args.players, exact=args.rules is not None)
    # The same seeded games several times, the best time kept: a figure of the engine, not
    # of whatever else the machine did meanwhile. CPU time of this one process, likewise.
    logs, elapsed = _random_games(rules, players, args.games)
    games = len(logs)
    for _ in range(args.repeat - 1):
        elapsed = min(elapsed, _random_games(rules, players, games)[1])
    actions = sum(len(log) for log in logs)
    print(f"{rules.title} ({rules.id}), {players} players, {games} random games, one core (CPU time)")
    print(
        f"  random full games:        {games / elapsed:8.1f} games/s (best of {args.repeat}); "
        f"{games / elapsed / reference:.1f} games/s per M of the baseline"
    )
    print(f"  average actions per game: {actions / games:8.1f}")

    triples: list[tuple[Any, int, dict[str, Any]]] = []
    for game, log in enumerate(logs):
        state = rules.new_game(players, game)
        for seat, action in log:
            triples.append((state, seat, action))
            state = rules.apply(state, seat, action)
    best = _replay_time(rules, players, logs, rules.apply, args.repeat)
    print(
        f"  replay with validation:   {best / games * 1000:8.3f} ms/game "
        f"({best / actions * 1e6:.1f} us/action, best of {args.repeat})"
    )

    # The naive reference against apply, on the same games (engine/reference.py).
    few, naive = _reference_games(rules, players, logs)
    few_actions = sum(len(log) for log in few)
    fast = _replay_time(rules, players, few, rules.apply, args.repeat) / few_actions * 1e6
    naive = naive / few_actions * 1e6

    def uncopied(state: Any, seat: int, action: dict[str, Any]) -> Any:
        return listed_step(rules, state, seat, action)

    listed = _replay_time(rules, players, few, uncopied, args.repeat) / few_actions * 1e6
    print(
        f"  replay vs naive reference: {fast:7.1f} us/action apply, {naive:.1f} reference "
        f"({len(few)} games): {naive / fast:.1f}x (target {REFERENCE_TARGET:g}x); "
        f"without its copy {listed:.1f}: {listed / fast:.1f}x"
    )

    best = float("inf")
    for _ in range(args.repeat):
        started = time.process_time()
        for state, seat, action in triples:
            rules.step(state, seat, action)
        best = min(best, time.process_time() - started)
    print(f"  step (state and texts):   {best / actions * 1e6:8.1f} us/action (best of {args.repeat})")

    started = time.process_time()
    for state, seat, _ in triples:
        rules.legal_actions(state, seat)
    elapsed_legal = time.process_time() - started
    print(f"  legal_actions:            {elapsed_legal / actions * 1e6:8.1f} us/call ({actions} calls)")

    times = _strong_times(rules, players, args.strong_moves, args.think_seconds)
    if times:
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(
            f"  strong bot per move:      {sum(times) / len(times):8.3f} s mean, p99 {p99:.3f} s "
            f"(CPU, {len(times)} moves of a greedy game, cap {args.think_seconds:g} s)"
        )
    return games


def _speeds_in_turns(
    chosen: list[Rules[Any]], args: argparse.Namespace, games: dict[str, int]
) -> dict[str, float]:
    """Random games/s of each rule set, best of ``args.repeat`` rounds that time every rule set
    in turn: one rule set after another, a change in the machine's speed between them (this
    machine's baseline moved from 2.99 to 4.02 M/s between two runs minutes apart) would move
    their ratios; in turns, it touches all of them alike."""
    best = {rules.id: float("inf") for rules in chosen}
    for _ in range(args.repeat):
        for rules in chosen:
            players = players_for(rules, args.players, exact=args.rules is not None)
            best[rules.id] = min(best[rules.id], _random_games(rules, players, games[rules.id])[1])
    return {rules.id: games[rules.id] / best[rules.id] for rules in chosen}


def _strong_times(rules: Rules[Any], players: int, moves: int, think_seconds: float) -> list[float]:
    """The strong bot's CPU time on ``moves`` positions spread over a seeded greedy game
    (positions with a real choice), at the given cap."""
    if moves < 1:
        return []
    state = rules.new_game(players, "bench:strong")
    rng = random.Random("bench:strong")
    choices: list[tuple[Any, int]] = []
    while not rules.is_finished(state):
        if len(choices) >= MAX_ACTIONS:
            raise _too_long(rules)
        seat, action = next_move(rules, state, ["greedy"] * players, rng)
        if rules.forced_action(state, seat) is None and len(rules.legal_actions(state, seat)) > 1:
            choices.append((state, seat))
        state = rules.apply(state, seat, action)
    picked = [choices[i * len(choices) // moves] for i in range(min(moves, len(choices)))]
    budget = Budget(think_seconds=think_seconds)
    times = []
    for n, (position, seat) in enumerate(picked):
        started = time.process_time()
        search(rules, position, seat, random.Random(n), budget, clock=time.process_time)
        times.append(time.process_time() - started)
    return times


def cmd_bench(args: argparse.Namespace) -> int:
    if (args.games is not None and args.games < 1) or args.repeat < 1:
        raise CliError("--games and --repeat must be at least 1")
    chosen = [get_rules(args.rules)] if args.rules else [r for r in all_rules() if r is get_rules(r.id)]
    reference = _reference_speed()
    print(
        f"baseline (this machine): {reference:.2f} M dicts+tuples/s of plain Python "
        "(compare machines by games/s per M of it)"
    )
    games = {rules.id: _bench_one(rules, args, reference) for rules in chosen}
    if len(chosen) > 1:
        in_turns = _speeds_in_turns(chosen, args, games)
        speeds = {rules.id: (rules.title, in_turns[rules.id]) for rules in chosen}
        print(
            f"random games, every rule set in turn (best of {args.repeat} rounds): "
            + ", ".join(f"{title} {speed:.1f}/s" for title, speed in speeds.values())
        )
        # The others' random games/s against the --yardstick's, else against the fastest's.
        mark = args.yardstick if args.yardstick in speeds else max(speeds, key=lambda r: speeds[r][1])
        title, yardstick = speeds[mark]
        others = ", ".join(
            f"{other} {speed / yardstick:.2f}x"
            for rules_id, (other, speed) in speeds.items()
            if rules_id != mark
        )
        print(f"random games/s vs {title}: {others} (1 or more wanted)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    ids = [rules_id for rules_id, _ in available_rules()]
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    players_help = f"number of players (default: {DEFAULT_PLAYERS}, or the nearest count the rules allow)"

    play = sub.add_parser("play", help="play a whole game between bots and print its log")
    play.add_argument("--rules", required=True, choices=ids, help="rule set id")
    play.add_argument("--players", type=int, help=players_help)
    play.add_argument("--seed", default="1", help="game seed; digits make a number seed (default: 1)")
    play.add_argument("--bots", default="", help="comma-separated bot per seat: random, greedy or strong")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of new_game (repeatable): VALUE is JSON or a string; NAME=@FILE reads JSON",
    )
    play.add_argument("--log", help="write the game's JSON-lines log to this file")
    play.set_defaults(func=cmd_play)

    replay = sub.add_parser("replay", help="replay a JSON-lines log and check its recorded result")
    replay.add_argument("file")
    replay.set_defaults(func=cmd_replay)

    match = sub.add_parser("match", help="the first bot of --bots against the others, seats rotating")
    match.add_argument("--rules", required=True, choices=ids, help="rule set id")
    match.add_argument("--players", type=int, help=players_help)
    match.add_argument("--games", type=int, default=200)
    match.add_argument("--seed", default="match", help="base seed of the games")
    match.add_argument(
        "--bots", default="", help="comma-separated bots, the measured one first (default: greedy,random,...)"
    )
    match.add_argument(
        "--iterations", type=int, default=DEFAULT_BUDGET.iterations, help="strong bot: most rollouts"
    )
    match.add_argument(
        "--think-seconds", type=float, default=DEFAULT_BUDGET.think_seconds, help="strong bot: CPU s per move"
    )
    match.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_BUDGET.depth,
        help="strong bot: rollout moves before a position is judged (default: the rule set's)",
    )
    match.add_argument(
        "--candidates",
        type=int,
        default=DEFAULT_BUDGET.candidates,
        help="strong bot: actions searched, the greedy ranking's best (default: the rule set's)",
    )
    match.add_argument(
        "--rollout-greedy",
        type=float,
        default=DEFAULT_BUDGET.rollout_greedy,
        help="strong bot: share of rollout moves chosen greedily",
    )
    match.add_argument("--progress", action="store_true", help="a line on stderr after each game")
    match.set_defaults(func=cmd_match)

    bench = sub.add_parser("bench", help="speed of random play, replay, step and legal_actions")
    bench.add_argument("--rules", choices=ids, help="one rule set (default: every rule set)")
    bench.add_argument("--players", type=int, help=players_help)
    bench.add_argument(
        "--games",
        type=int,
        help=f"games per rule set (default: {BENCH_GAMES}, fewer if they take over {BENCH_BUDGET:g} s)",
    )
    bench.add_argument("--repeat", type=int, default=3, help="passes of games and replay (best counts)")
    bench.add_argument(
        "--strong-moves",
        type=int,
        default=BENCH_STRONG_MOVES,
        help=f"positions the strong bot is timed on, per rule set (default: {BENCH_STRONG_MOVES})",
    )
    bench.add_argument(
        "--think-seconds",
        type=float,
        default=DEFAULT_BUDGET.think_seconds,
        help="the strong bot's cap of CPU s per move (default: its default)",
    )
    bench.add_argument(
        "--yardstick", choices=ids, help="compare the others' games/s with this one's (default: the fastest)"
    )
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except (CliError, GameLogError, IllegalAction, InvalidOptions, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return status
