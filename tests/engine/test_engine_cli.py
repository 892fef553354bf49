"""``python -m engine`` as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import available_rules, registry
from engine.cli import main, wilson
from tests.engine.toy_rules import DoubloonsRules

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_play_writes_a_log_that_replay_accepts(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    played = run(
        "play", "--rules", "pirates", "--players", "3", "--seed", "cli", "--bots", "greedy,random,random",
        "--log", str(log),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    assert lines[0].startswith("1. ") or lines[0].lstrip().startswith("1. ")
    assert any(line.startswith("Final scores: Red ") for line in lines)
    assert any(line.startswith("Winner") for line in lines)
    events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert events[0]["payload"]["seed"] == "cli" and events[-1]["kind"] == "result"
    assert events[1]["actor"] == "bot:greedy" or events[1]["actor"] == "bot:random"

    replayed = run("replay", str(log))
    assert replayed.returncode == 0, replayed.stderr
    assert "The recorded result matches the replay." in replayed.stdout


def test_replay_of_a_corrupted_log_exits_1_with_one_line(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert run("play", "--rules", "pirates", "--seed", "7", "--log", str(log)).returncode == 0
    lines = log.read_text("utf-8").splitlines()
    event = json.loads(lines[3])
    event["payload"]["action"] = {"type": "pass"}
    lines[3] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n", "utf-8")
    replayed = run("replay", str(log))
    assert replayed.returncode == 1
    assert replayed.stderr.startswith("error: seq 4 (line 4): illegal action")
    assert "Traceback" not in replayed.stderr and len(replayed.stderr.splitlines()) == 1

    log.write_text("garbage\n", "utf-8")
    replayed = run("replay", str(log))
    assert replayed.returncode == 1 and "line 1: not valid JSON" in replayed.stderr
    missing = run("replay", str(tmp_path / "missing.jsonl"))
    assert missing.returncode == 1 and missing.stderr.startswith("error:")


def test_bad_arguments_are_one_line_errors() -> None:
    bad = run("play", "--rules", "pirates", "--players", "7")
    assert bad.returncode == 1 and bad.stderr.startswith("error: Pirates is for 3 to 5 players")
    bad = run("play", "--rules", "pirates", "--bots", "greedy,random")
    assert bad.returncode == 1 and "names 2 bots for 4 players" in bad.stderr
    bad = run("play", "--rules", "pirates", "--option", "colour=red")
    assert bad.returncode == 1 and "pirates has no option 'colour'; options: card_set, deck" in bad.stderr
    bad = run("play", "--rules", "pirates", "--option", "first_seat=9")
    assert bad.returncode == 1 and bad.stderr.startswith("error: first_seat must be a seat number")


def test_match_and_bench_run_quickly() -> None:
    match = run("match", "--rules", "pirates", "--games", "8")
    assert match.returncode == 0, match.stderr
    assert "greedy wins" in match.stdout and "plays at random" not in match.stdout
    yardstick, title = available_rules()[-1]
    bench = run(
        "bench", "--games", "10", "--repeat", "1", "--yardstick", yardstick, "--strong-moves", "2",
        "--think-seconds", "0.05",
    )  # fmt: skip
    assert bench.returncode == 0, bench.stderr
    assert bench.stdout.startswith("baseline (this machine): ")
    for rules_id, title in available_rules():  # every rule set, without naming one
        assert f"{title} ({rules_id}), " in bench.stdout
    labels = (
        "games/s per M of the baseline", "average actions per game", "ms/game", "step (", "us/call",
        "replay vs naive reference", "x (target 5x); without its copy", "strong bot per move:",
        "s mean, p99 ", "(CPU, 2 moves of a greedy game, cap 0.05 s)",
    )  # fmt: skip
    for label in labels:
        assert bench.stdout.count(label) == len(available_rules())
    # Every other rule set's random games/s against the yardstick's, once, on the last line.
    last = bench.stdout.splitlines()[-1]
    assert last.startswith(f"random games/s vs {title}: ")
    assert last.count("x, ") == len(available_rules()) - 2 and last.endswith("(1 or more wanted)")


@pytest.fixture
def doubloons(monkeypatch: pytest.MonkeyPatch) -> DoubloonsRules:
    """The test rule set of several seats at once, registered for this test only."""
    rules = DoubloonsRules()
    monkeypatch.setitem(registry._RULES, rules.id, {rules.version: rules})
    return rules


def test_play_and_replay_when_several_seats_act_at_once(
    doubloons: DoubloonsRules, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every seat owes a bid at once; the bots bid one at a time in seat order, and the
    printed log tells the game as everyone reads it after the end (the bids in full)."""
    log = tmp_path / "doubloons.jsonl"
    args = ["play", "--rules", "doubloons", "--players", "3", "--bots", "greedy", "--option", "purse=2"]
    assert main([*args, "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "1. Red bids " in out and "has chosen" not in out
    events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    assert events[0]["payload"]["options"] == {"purse": 2}
    assert [e["seat"] for e in events[1:-1]] == [0, 1, 2] * 3
    assert main(["replay", str(log)]) == 0
    assert "The recorded result matches the replay." in capsys.readouterr().out


def test_match_and_bench_work_for_any_registered_rule_set(
    doubloons: DoubloonsRules, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["match", "--rules", "doubloons", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "4 games of Doubloons (test game), 4 players" in out
    assert "has no position evaluation, so the greedy bot plays at random" in out
    bench = ["bench", "--rules", "doubloons", "--games", "5", "--repeat", "1", "--think-seconds", "0.02"]
    assert main(bench) == 0
    out = capsys.readouterr().out
    assert "Doubloons (test game) (doubloons), 4 players, 5 random games" in out
    assert "replay vs naive reference" in out and "strong bot per move:" in out
    assert "Pirates" not in out and "random games/s vs" not in out


def test_match_measures_the_first_bot_with_a_wilson_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(
        ["match", "--rules", "captain-lucky", "--players", "2", "--games", "4", "--bots", "strong,greedy",
         "--iterations", "6", "--depth", "6"]
    ) == 0
    out = capsys.readouterr().out
    assert "strong against greedy, seats rotating" in out
    line = next(text for text in out.splitlines() if text.startswith("strong wins "))
    assert " of 4 (" in line and "95% interval" in line and "shared" in line
    assert "CPU s per move: mean" in out


def test_match_refuses_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--rules", "pirates", "--games", "2", "--bots", "clever,greedy,greedy,greedy"]) == 1
    assert "unknown bots: clever" in capsys.readouterr().err


def test_wilson_interval_brackets_the_rate() -> None:
    low, high = wilson(10, 20)
    assert low < 0.5 < high and 0.29 < low < 0.30 and 0.70 < high < 0.71
