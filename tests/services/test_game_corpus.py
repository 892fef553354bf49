"""RULE-VERSIONS: every stored game in tests/fixtures/games/ still replays, with the rule set
version it was played with, to the result recorded when it ended.

A rule change that alters the outcome of a stored log must bump the rule set's version (and
keep the old version replaying); this test fails otherwise. Files are named
``<rules>-v<version>-<players>p.jsonl``; add with ``python -m tests.fixtures.generate_games RULES_ID``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import gamelog, get_rules

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "games"
FILES = sorted(CORPUS.glob("*.jsonl"))
NAME = re.compile(r"^(?P<rules>[a-z-]+)-v(?P<version>\d+)-(?P<players>\d)p(?:-.*)?\.jsonl$")


def test_corpus_has_finished_games_for_three_four_and_five_players() -> None:
    players = set()
    for path in FILES:
        match = NAME.match(path.name)
        assert match, f"{path.name} is not named <rules>-v<version>-<players>p.jsonl"
        players.add(int(match["players"]))
    assert {3, 4, 5} <= players


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_stored_game_replays_to_its_recorded_result(path: Path) -> None:
    log = gamelog.parse(path.read_text("utf-8"))
    match = NAME.match(path.name)
    assert match is not None
    assert (log.header.rules, log.header.version, log.header.players) == (
        match["rules"],
        int(match["version"]),
        int(match["players"]),
    ), "the file name must say which rule set version and player count the log was played with"
    assert log.result is not None, "a corpus game must be finished, with its recorded result"
    get_rules(log.header.rules, log.header.version)  # old versions keep replaying
    assert gamelog.check_result(log) == log.result
