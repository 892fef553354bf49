"""``python -m engine`` as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_play_writes_a_log_that_replay_accepts(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    played = run(
        "play", "--players", "3", "--seed", "cli", "--bots", "greedy,random,random", "--log", str(log)
    )
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
    assert run("play", "--seed", "7", "--log", str(log)).returncode == 0
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
    bad = run("play", "--players", "7")
    assert bad.returncode == 1 and bad.stderr.startswith("error: Pirates is for 3 to 5 players")
    bad = run("play", "--bots", "greedy,random")
    assert bad.returncode == 1 and "names 2 bots for 4 players" in bad.stderr


def test_match_and_bench_run_quickly() -> None:
    match = run("match", "--games", "8")
    assert match.returncode == 0, match.stderr
    assert "greedy wins" in match.stdout
    bench = run("bench", "--games", "10", "--repeat", "1")
    assert bench.returncode == 0, bench.stderr
    for label in ("games/s", "average actions per game", "ms/game", "us/call"):
        assert label in bench.stdout
