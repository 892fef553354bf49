"""Pirates (classic): every stored game in tests/fixtures/games/ replays, with engine.gamelog,
to the result recorded when it was played (regenerate with
``python -m tests.fixtures.generate_classic_games`` only for a new rule set version)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import gamelog
from tests.engine.pirates_classic_support import CORPUS, CORPUS_GAMES, RULES, corpus_path

FILES = sorted(CORPUS.glob(f"{RULES.id}-v*-*p.jsonl"))


def test_the_corpus_has_a_finished_game_for_three_four_and_five_players() -> None:
    """C-SET-1: a recorded game at every player count."""
    assert [corpus_path(players) for players in sorted(CORPUS_GAMES)] == [
        p for p in FILES if "-v1-" in p.name
    ]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_c_act_stored_game_replays_to_its_recorded_result(path: Path) -> None:
    """C-ACT: the logged actions, applied with full validation, give the recorded result."""
    log = gamelog.parse(path.read_text("utf-8"))
    assert (log.header.rules, f"-v{log.header.version}-{log.header.players}p") == (
        RULES.id,
        path.stem[len(RULES.id) :],
    )
    assert log.result is not None
    assert gamelog.check_result(log) == log.result
    kinds = {logged.action["type"] for logged in log.actions}
    assert kinds == {"move", "board", "skip", "challenge", "decline"}, "every kind of action is replayed"
    final = gamelog.replay(log)
    assert RULES.view(final, None)["end_reason"] in ("all_ships_boarded", "full_round_of_skips")
