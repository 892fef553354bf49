"""Pirates (classic): the stored games in tests/fixtures/games/ (replayed to their recorded
results by tests/services/test_game_corpus.py, like every rule set's) reach every kind of
action and both ways a game ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import gamelog
from tests.engine.pirates_classic_support import RULES

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "games"
FILES = sorted(CORPUS.glob(f"{RULES.id}-v*-*p.jsonl"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_c_act_stored_game_replays_every_kind_of_action(path: Path) -> None:
    """C-ACT: the logged actions, applied with full validation, give the recorded result."""
    log = gamelog.parse(path.read_text("utf-8"))
    assert log.result is not None and gamelog.check_result(log) == log.result
    kinds = {logged.action["type"] for logged in log.actions}
    assert kinds == {"move", "board", "skip", "challenge", "decline"}, "every kind of action is replayed"
    final = gamelog.replay(log)
    assert RULES.view(final, None)["end_reason"] in ("all_ships_boarded", "full_round_of_skips")
