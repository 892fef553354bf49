"""A tamper-evident log: the hash chain's formula (engine/chain.py, as
engine/README.md documents it for outside verifiers), and ``python -m engine replay`` checking
the chain of a log that carries hashes while a log without them replays as before."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.chain import GENESIS, ChainError, event_hash, link, verify
from engine.gamelog import GameLogError, action_event, parse, result_event, started_event, write_lines
from tests.engine.pirates_support import RULES, playout

ROOT = Path(__file__).resolve().parents[2]

STARTED: dict[str, Any] = {
    "seq": 1,
    "kind": "game_started",
    "seat": None,
    "payload": {"rules": "pirates", "version": 1, "players": 3, "seed": "s3cr3t", "options": {}},
    "actor": "user:1",
}


def test_the_formula_is_sha256_over_canonical_json_of_prev_and_the_stored_fields() -> None:
    """The known answer engine/README.md prints, and the same bytes built by hand."""
    canonical = (
        '{"actor":"user","kind":"game_started","payload":{"options":{},"players":3,"rules":"pirates",'
        '"seed":"s3cr3t","version":1},"prev":"' + "0" * 64 + '","seat":null,"seq":1}'
    )
    expected = "92fee7a435e58daee89d43fe63ea833d97e863f62a989283301b52e5f8cbc4a8"
    assert hashlib.sha256(canonical.encode()).hexdigest() == expected
    assert event_hash(GENESIS, **STARTED) == expected
    # Not ASCII-escaped: the UTF-8 bytes of the text as written.
    text = "Red passes — «ünïcode»."
    payload = {"action": {"type": "pass"}, "text": text}
    by_hand = json.dumps(
        {"actor": "user", "kind": "action", "payload": payload, "prev": expected, "seat": 0, "seq": 2},
        separators=(",", ":"), ensure_ascii=False,
    ).encode("utf-8")
    assert text.encode("utf-8") in by_hand
    got = event_hash(expected, seq=2, kind="action", seat=0, payload=payload, actor="user:1")
    assert got == hashlib.sha256(by_hand).hexdigest()
    # A person counts as "user": the export names people by user name, which may change.
    assert event_hash(expected, seq=2, kind="action", seat=0, payload=payload, actor="user:anne") == got


def test_every_stored_field_and_the_previous_hash_change_the_hash() -> None:
    base = event_hash(GENESIS, **STARTED)
    changed: list[dict[str, Any]] = [
        {**STARTED, "seq": 2},
        {**STARTED, "kind": "action"},
        {**STARTED, "seat": 0},
        {**STARTED, "payload": {**STARTED["payload"], "seed": "s3cr3u"}},
        {**STARTED, "actor": "bot:greedy"},
    ]
    hashes = {event_hash(GENESIS, **event) for event in changed}
    hashes.add(event_hash("1" * 64, **STARTED))
    assert base not in hashes and len(hashes) == 6
    # Key order never matters (PostgreSQL's jsonb does not keep it).
    reordered = {**STARTED, "payload": dict(reversed(list(STARTED["payload"].items())))}
    assert event_hash(GENESIS, **reordered) == base


def test_verify_returns_the_head_and_names_the_first_broken_link() -> None:
    events = link(
        [
            STARTED,
            {"seq": 2, "kind": "action", "seat": 0, "payload": {"action": {"type": "pass"}}, "actor": "u:1"},
            {"seq": 3, "kind": "seat_to_bot", "seat": 0, "payload": {"seat": 0}, "actor": "system:timeout"},
        ]
    )
    assert verify(events) == events[-1]["hash"] and verify([]) == GENESIS
    events[1]["payload"] = {"action": {"type": "pass"}, "text": "altered"}
    with pytest.raises(ChainError, match=r"^seq 2: the hash does not match") as raised:
        verify(events)
    assert raised.value.seq == 2
    with pytest.raises(ChainError, match=r"^seq 1: the hash must be 64 lowercase hex digits"):
        verify([{**STARTED, "hash": "ABC"}])


def chained_log(seed: int | str = 4, players: int = 3) -> list[dict[str, Any]]:
    final, steps = playout(players, seed)
    events = [{**started_event("pirates", 1, players, seed, {}), "actor": "user:1"}]
    events += [
        action_event(seq, seat, action, "bot:random") for seq, (_, seat, action) in enumerate(steps, 2)
    ]
    result = RULES.result(final)
    assert result is not None
    return [*link(events), result_event(result)]


def test_a_chained_log_parses_with_its_head_and_one_without_hashes_still_replays() -> None:
    events = chained_log()
    log = parse(write_lines(events))
    assert log.head == events[-2]["hash"]
    plain = parse(write_lines([{k: v for k, v in e.items() if k != "hash"} for e in events]))
    assert plain.head is None and plain.actions == log.actions


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("action", "the hash chain breaks here"),
        ("hash", "the hash chain breaks here"),
        ("actor", "the hash chain breaks here"),
        ("missing hash", "the hash is missing or not 64 lowercase hex digits"),
    ],
)
def test_a_changed_event_in_a_chained_log_is_refused_naming_its_seq(change: str, message: str) -> None:
    events = chained_log()
    event = events[6]  # seq 7, line 7
    if change == "action":
        event["payload"]["action"] = events[7]["payload"]["action"]
    elif change == "hash":
        event["hash"] = hashlib.sha256(b"forged").hexdigest()
    elif change == "actor":
        event["actor"] = "user:2"
    else:
        del event["hash"]
    with pytest.raises(GameLogError, match=rf"^seq 7 \(line 7\): {message}"):
        parse(write_lines(events))


def test_a_hash_in_a_log_whose_first_event_has_none_is_refused() -> None:
    events = chained_log()
    events[0].pop("hash")
    expected = r"^seq 2 \(line 2\): this event has a hash but the first event has none"
    with pytest.raises(GameLogError, match=expected):
        parse(write_lines(events))


def run_replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


def test_the_command_line_checks_the_chain_and_prints_the_head(tmp_path: Path) -> None:
    events = chained_log()
    path = tmp_path / "game.jsonl"
    path.write_text(write_lines(events), "utf-8")
    replayed = run_replay(path)
    assert replayed.returncode == 0, replayed.stderr
    assert f"the chain's head is {events[-2]['hash']}" in replayed.stdout

    events[4]["payload"]["action"] = {"type": "pass"}
    path.write_text(write_lines(events), "utf-8")
    refused = run_replay(path)
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: seq 5 (line 5): the hash chain breaks here")
    assert len(refused.stderr.splitlines()) == 1 and "Traceback" not in refused.stderr
