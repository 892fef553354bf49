"""Every registered rule set, every version, at every player count it supports: bot games
(random, greedy and mixed; forced actions made by the bots and by the system) play to the end
through tests/engine/bot_games.py, and the end is a proper result. A new rule set is checked
by being registered. (tests/engine/test_conformance.py checks every state of random games
against the contract; this checks whole games, greedy play included, and their outcome.)"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.base import Rules
from engine.registry import all_rules
from tests.engine.bot_games import corpus_bots, playout

CASES = [(rules, players) for rules in all_rules() for players in rules.player_counts]


def lineups(players: int) -> list[list[str]]:
    return [["random"] * players, ["greedy"] * players, corpus_bots(players)]


def check_result(rules: Rules[Any], final: Any, players: int) -> None:
    assert rules.is_finished(final) and rules.to_act(final) == []
    assert all(rules.legal_actions(final, seat) == [] for seat in range(players))
    result = rules.result(final)
    assert result is not None and set(result) >= {"scores", "winners"}
    scores, winners = result["scores"], result["winners"]
    assert len(scores) == players and all(type(score) is int for score in scores)
    assert winners and winners == sorted(set(winners)) and all(0 <= w < players for w in winners)
    assert json.loads(json.dumps(result)) == result
    assert rules.view(final, None)["result"] == result


@pytest.mark.parametrize(
    ("rules", "players"), CASES, ids=[f"{rules.id}-v{rules.version}-{n}p" for rules, n in CASES]
)
def test_bot_games_end_with_a_result_and_replay_from_their_log(rules: Rules[Any], players: int) -> None:
    for number, bots in enumerate(lineups(players)):
        for by_system in (False, True):
            seed = f"bot games {number} {by_system}"
            final, moves = playout(rules, players, seed, bots, forced_by_system=by_system)
            assert moves and rules.action_count(final) == len(moves)
            for state, seat, action in moves:
                assert seat in rules.to_act(state) and action in rules.legal_actions(state, seat)
            check_result(rules, final, players)
            again = rules.new_game(players, seed)
            for _, seat, action in moves:
                again = rules.apply(again, seat, json.loads(json.dumps(action)))
            assert rules.dump(again) == rules.dump(final), "the seed and the actions are the whole game"


def test_the_same_seed_and_bots_give_the_same_game() -> None:
    rules, players = CASES[0]
    first = playout(rules, players, "twice", corpus_bots(players))
    second = playout(rules, players, "twice", corpus_bots(players))
    assert [m[2] for m in first[1]] == [m[2] for m in second[1]]
    other = playout(rules, players, "another seed", corpus_bots(players))
    assert [m[2] for m in other[1]] != [m[2] for m in first[1]]
