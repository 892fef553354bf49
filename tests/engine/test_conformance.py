"""ENGINE-CONFORMANCE: every registered rule set keeps the engine contract (engine/README.md)
in seeded random playouts at every player count it supports — the platform's generic code
relies on nothing else. A new rule set joins these tests by being registered.

The checks themselves (tests/engine/conformance.py) are shown to fail on faulty rule sets
(tests/engine/toy_rules.py), so a pass means something.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
from engine.base import Rules
from engine.gamelog import GameLog, parse, rules_of
from tests.engine import conformance
from tests.engine.toy_rules import (
    CarelessDoubloons,
    ChattyDoubloons,
    DicePreviewDoubloons,
    DoubloonsRules,
    ForetellingPreviewDoubloons,
    HastyDoubloons,
    LeakyDoubloons,
    MutatingDoubloons,
    PeekingDoubloons,
    PryingPreviewDoubloons,
    TellingDoubloons,
    WrongScoreDoubloons,
)

GAMES_PER_COUNT = 5
# Pirates ends by P-TURN-2 at 1,000 actions; random games of it take about 120. A rule set
# whose random games outlast this bound fails below, since its end would go unchecked.
MAX_ACTIONS = 1500
DEEP_EVERY = 5

CASES = [
    (rules_id, players)
    for rules_id, _ in engine.available_rules()
    for players in engine.get_rules(rules_id).player_counts
]


def test_every_rule_set_is_checked() -> None:
    assert "pirates" in {rules_id for rules_id, _ in CASES}
    assert {rules_id for rules_id, _ in CASES} == {rules_id for rules_id, _ in engine.available_rules()}


@pytest.mark.parametrize("rules_id", [rules_id for rules_id, _ in engine.available_rules()])
def test_declarations_match_what_new_game_accepts(rules_id: str) -> None:
    """Options, player counts, colours and seat names are what the rule set plays by; an
    unknown option, a player count outside player_counts and a bad seed are refused."""
    conformance.check_declarations(engine.get_rules(rules_id))


def run_playouts(rules: Rules[Any], players: int, games: int = GAMES_PER_COUNT) -> list[conformance.Playout]:
    return [
        conformance.playout(
            rules,
            players,
            f"{conformance.SEED_MARK}:{rules.id}:{players}:{game}",
            max_actions=MAX_ACTIONS,
            deep_every=DEEP_EVERY,
        )
        for game in range(games)
    ]


@pytest.mark.parametrize(("rules_id", "players"), CASES, ids=[f"{r}-{n}p" for r, n in CASES])
def test_random_playouts_keep_the_contract(rules_id: str, players: int) -> None:
    """to_act, legal_actions, forced_action, step/apply (pure, every listed action applies,
    illegal ones refused with a sentence), dump/load, views (JSON, no seed, no secret part),
    secret choices indistinguishable to others, result at the end, determinism; ``reveals``:
    the same answer in states differing only in a secret of the mover's, nothing changed or
    drawn, and a move it lets be taken back is no secret and draws nothing; ``preview``: the
    same sentence in those states, nothing changed or drawn; ``score_now``: one number per
    seat, public, the result's scores at the end."""
    playouts = run_playouts(engine.get_rules(rules_id), players)
    assert all(p.actions > 0 for p in playouts)
    assert sum(p.secret_variants for p in playouts) > 20, "reveals was compared across secrets"
    assert sum(p.preview_variants for p in playouts) > 20, "preview was compared across secrets"
    assert sum(p.undoable for p in playouts) > 0, "some move of the rule set can be taken back"
    assert any(p.finished for p in playouts), f"no random game ended within {MAX_ACTIONS} actions"
    assert sum(p.determinized for p in playouts) > 20, "determinize was checked"
    assert sum(p.redrawn for p in playouts) > 10, "determinize drew hidden parts beyond the generator again"


def test_the_checks_pass_a_sound_rule_set_with_secret_simultaneous_picks() -> None:
    """The toy rule set has what Pirates lacks — several seats at once, secret picks, chance
    in play, forced actions — so every check runs for real on it."""
    rules = DoubloonsRules()
    conformance.check_declarations(rules)
    playouts = [p for players in rules.player_counts for p in run_playouts(rules, players, 4)]
    assert all(p.finished for p in playouts)
    assert sum(p.secret_pairs for p in playouts) > 20, "secret choices were compared"
    assert sum(p.forced for p in playouts) > 0, "forced actions were checked"
    assert sum(p.secret_variants for p in playouts) > 20, "reveals was compared across secrets"
    assert sum(p.previews for p in playouts) > 20, "previews were said and checked"
    assert sum(p.preview_variants for p in playouts) > 20, "preview was compared across secrets"
    assert sum(p.redrawn for p in playouts) > 10, "determinize drew the others' pending bids again"


@pytest.mark.parametrize(
    ("faulty", "complaint"),
    [
        (LeakyDoubloons(), "view"),
        (ChattyDoubloons(), "text for everyone"),
        (MutatingDoubloons(), "never change the state"),
        (PeekingDoubloons(), "reveals reads a secret"),
        (CarelessDoubloons(), "reveals nothing, but its step is secret"),
        (PryingPreviewDoubloons(), "preview reads a secret"),
        (ForetellingPreviewDoubloons(), "preview reads a secret"),
        (DicePreviewDoubloons(), "preview never draws from a generator"),
        (WrongScoreDoubloons(), "score_now at the end is the result's scores"),
        (TellingDoubloons(), "determinize leaks the truth"),
    ],
    ids=["pending-bids-in-view", "secret-bid-in-text", "step-mutates-input", "reveals-peeks", "reveals-lies",
         "preview-pries", "preview-foretells", "preview-draws", "score-now-wrong",
         "determinize-leaks"],
)
def test_the_checks_catch_a_faulty_rule_set(faulty: Rules[Any], complaint: str) -> None:
    with pytest.raises(AssertionError, match=complaint):
        run_playouts(faulty, 3, 2)


CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "games"


def corpus_logs(rules_id: str) -> list[tuple[str, GameLog]]:
    logs = [(path.name, parse(path.read_text("utf-8"))) for path in sorted(CORPUS.glob("*.jsonl"))]
    return [(name, log) for name, log in logs if log.header.rules == rules_id]


@pytest.mark.parametrize("rules_id", [rules_id for rules_id, _ in engine.available_rules()])
def test_apply_is_step_on_every_action_of_the_corpus(rules_id: str) -> None:
    """apply and step().state dump alike on every action of every stored game of the rule
    set (tests/fixtures/games/), and the replay ends at the recorded result."""
    logs = corpus_logs(rules_id)
    assert logs, f"the corpus holds no game of {rules_id}"
    for name, log in logs:
        rules = rules_of(log)
        header = log.header
        actions = [(logged.seat, logged.action) for logged in log.actions]
        state = conformance.check_apply_is_step(
            rules, header.players, header.seed, header.options, actions, name
        )
        assert log.result is not None and rules.result(state) == log.result, name


def apply_is_step_in_random_games(rules: Rules[Any], games: int) -> int:
    checked = 0
    for players in rules.player_counts:
        for game in range(games):
            seed = f"apply-is-step:{players}:{game}"
            actions = conformance.random_actions(rules, players, seed, MAX_ACTIONS)
            conformance.check_apply_is_step(rules, players, seed, None, actions, seed)
            checked += len(actions)
    return checked


def test_apply_is_step_in_seeded_random_games_of_the_toy() -> None:
    assert apply_is_step_in_random_games(DoubloonsRules(), 10) > 200


def test_the_apply_check_catches_an_apply_that_parts_from_step() -> None:
    """HastyDoubloons settles a tie without rolling in apply alone: only the tied rounds
    differ, and the check finds one in a few seeded games."""
    with pytest.raises(AssertionError, match=r"apply and step\(\)\.state differ"):
        apply_is_step_in_random_games(HastyDoubloons(), 10)
