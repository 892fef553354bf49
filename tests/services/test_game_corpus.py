"""RULE-VERSIONS: every stored game in tests/fixtures/games/ still replays, with the rule set
version it was played with, to the result recorded when it ended.

A rule change that alters the outcome of a stored log must bump the rule set's version (and
keep the old version replaying); this test fails otherwise. Files are named
``<rules>-v<version>-<players>p.jsonl``; ``python -m tests.fixtures.generate_games`` adds the
missing ones for every registered rule set and version (tests/engine/bot_games.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine import gamelog, get_rules
from engine.base import Rules
from engine.registry import all_rules
from tests.engine.bot_games import corpus_name, corpus_player_counts

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "games"
FILES = sorted(CORPUS.glob("*.jsonl"))
NAME = re.compile(r"^(?P<rules>[a-z-]+)-v(?P<version>\d+)-(?P<players>\d)p(?:-.*)?\.jsonl$")


def test_every_file_is_named_for_its_rule_set_version_and_player_count() -> None:
    assert FILES
    for path in FILES:
        assert NAME.match(path.name), f"{path.name} is not named <rules>-v<version>-<players>p.jsonl"


@pytest.mark.parametrize("rules", all_rules(), ids=lambda rules: f"{rules.id}-v{rules.version}")
def test_every_rule_set_version_has_games_at_its_fewest_a_middle_and_its_most_players(
    rules: Rules[Any],
) -> None:
    """A rule set or version without stored games would let a change to it pass unseen."""
    expected = [corpus_name(rules, n) for n in corpus_player_counts(rules)]
    assert [name for name in expected if not (CORPUS / name).exists()] == []


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


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_stored_sentences_are_the_ones_the_replay_writes(path: Path) -> None:
    """Each action's public sentence, as the log keeps it, is what replaying the action
    writes today: the log of actions and the seed are the whole game, dice and draws included."""
    log = gamelog.parse(path.read_text("utf-8"))
    rules = get_rules(log.header.rules, log.header.version)
    events = [e for e in map(json.loads, path.read_text("utf-8").splitlines()) if e.get("kind") == "action"]
    assert len(events) == len(log.actions)
    state = rules.new_game(log.header.players, log.header.seed, log.header.options)
    for logged, event in zip(log.actions, events, strict=True):
        step = rules.step(state, logged.seat, logged.action)
        assert event["payload"]["text"] == step.text
        state = step.state
    assert rules.is_finished(state)
