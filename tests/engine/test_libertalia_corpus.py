"""The recorded Libertalia games (tests/fixtures/games/libertalia-v1-*.jsonl) replay with
engine.gamelog to the results recorded when they were played (L-RNG-2: the log of player
actions and the seed are the whole game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import gamelog

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "games"
FILES = sorted(CORPUS.glob("libertalia-v1-*p.jsonl"))


def test_corpus_covers_several_player_counts() -> None:
    assert [p.name for p in FILES] == [f"libertalia-v1-{n}p.jsonl" for n in (2, 4, 6)]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_l_rng_2_recorded_game_replays_to_its_result(path: Path) -> None:
    """L-RNG-2: replaying the logged actions from the seed reaches the recorded result."""
    log = gamelog.parse(path.read_text("utf-8"))
    assert (log.header.rules, log.header.version) == ("libertalia", 1)
    assert log.header.players == int(path.stem.split("-")[-1].rstrip("p"))
    assert log.result is not None
    assert gamelog.check_result(log) == log.result
