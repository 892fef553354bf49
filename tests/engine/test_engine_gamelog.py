"""The JSON-lines game log shared with the web export (engine/gamelog.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from engine.gamelog import (
    GameLogError,
    action_event,
    check_result,
    parse,
    replay,
    result_event,
    started_event,
    write_lines,
)
from tests.engine.pirates_support import RULES, playout


def log_text(seed: int | str = 5, players: int = 4, *, with_result: bool = True) -> str:
    final, steps = playout(players, seed)
    events = [started_event("pirates", 1, players, seed, {})]
    events += [
        action_event(seq, seat, action, "bot:random") for seq, (_, seat, action) in enumerate(steps, 2)
    ]
    if with_result:
        result = RULES.result(final)
        assert result is not None
        events.append(result_event(result))
    return write_lines(events)


def test_write_and_parse_round_trip() -> None:
    text = log_text()
    lines = text.splitlines()
    assert json.loads(lines[0]) == {
        "seq": 1,
        "kind": "game_started",
        "seat": None,
        "payload": {"rules": "pirates", "version": 1, "players": 4, "seed": 5, "options": {}},
    }
    second = json.loads(lines[1])
    assert second["kind"] == "action" and second["seq"] == 2 and second["actor"] == "bot:random"
    assert json.loads(lines[-1])["kind"] == "result"
    log = parse(text)
    assert log.header.players == 4 and log.header.seed == 5
    assert len(log.actions) == len(lines) - 2
    assert log.actions[0].line == 2 and log.actions[0].actor == "bot:random"
    assert parse(lines).actions == log.actions


def test_replay_reaches_the_recorded_result() -> None:
    log = parse(log_text("replay"))
    state = replay(log)
    assert RULES.result(state) == log.result
    assert check_result(log) == log.result


def test_system_events_with_actions_are_applied_and_others_skipped() -> None:
    text = log_text(9, with_result=False)
    events = [json.loads(line) for line in text.splitlines()]
    events[1]["kind"] = "timeout"
    events[1]["actor"] = "system:timeout"
    events.insert(2, {"seq": 3, "kind": "seat_dropped", "seat": 1, "payload": {"bot": "random"}})
    for seq, event in enumerate(events[3:], start=4):
        event["seq"] = seq
    log = parse(write_lines(events))
    assert [a.seq for a in log.actions][:2] == [2, 4]
    assert RULES.is_finished(replay(log))


def test_running_game_log_replays_without_result() -> None:
    lines = log_text(3, with_result=False).splitlines()[:20]
    assert check_result(parse(lines)) is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ls: ["{not json", *ls[1:]], "line 1: not valid JSON"),
        (lambda ls: ls[1:], "line 1: the first event must be"),
        (lambda ls: [ls[0], "[1, 2]", *ls[2:]], "line 2: an event must be a JSON object"),
        (lambda ls: [ls[0], *ls[2:]], "line 2: seq must be 2 \\(no gaps\\), not 3"),
        (
            lambda ls: [ls[0], ls[1].replace('"seat": ', '"seat": "x", "s": '), *ls[2:]],
            "line 2: seq 2: an action",
        ),
        (lambda ls: [*ls, ls[1]], "nothing may follow the result event"),
        (lambda ls: [*ls[:-1], '{"kind": "result", "payload": {}}'], "needs payload.scores"),
        (lambda ls: [ls[0].replace('"players": 4', '"players": "4"'), *ls[1:]], "whole numbers"),
        (lambda ls: [ls[0].replace('"rules": "pirates"', '"rules": 3'), *ls[1:]], "payload.rules must be"),
        (lambda ls: [ls[0].replace('"seed": 5', '"seed": 1.5'), *ls[1:]], "payload.seed must be"),
        (lambda ls: [ls[0].replace('"options": {}', '"options": []'), *ls[1:]], "payload.options must be"),
        (lambda ls: [ls[0].replace(', "seed": 5', ""), *ls[1:]], "lacks seed"),
        (lambda ls: [ls[0], '{"seq": 2, "seat": 0}', *ls[2:]], "an event needs a kind"),
        (lambda ls: [], "the log is empty"),
    ],
)
def test_malformed_logs_name_the_line(change: Callable[[list[str]], list[str]], message: str) -> None:
    lines = log_text().splitlines()
    with pytest.raises(GameLogError, match=message):
        parse(change(lines))


def test_illegal_action_names_the_seq() -> None:
    lines = log_text().splitlines()
    event = json.loads(lines[5])
    event["seat"] = (event["seat"] + 1) % 4
    lines[5] = json.dumps(event)
    with pytest.raises(GameLogError, match=r"seq 6 \(line 6\): illegal action: It is"):
        replay(parse(lines))


def test_unknown_rules_or_options_fail_at_seq_1() -> None:
    lines = log_text().splitlines()
    with pytest.raises(GameLogError, match="seq 1: Unknown rules 'chess'"):
        replay(parse([lines[0].replace('"pirates"', '"chess"'), *lines[1:]]))
    with pytest.raises(GameLogError, match="seq 1: Unknown options"):
        replay(parse([lines[0].replace('"options": {}', '"options": {"x": 1}'), *lines[1:]]))


def test_recorded_result_must_match_the_replay() -> None:
    lines = log_text().splitlines()
    result = json.loads(lines[-1])
    result["payload"]["scores"][0] += 1
    lines[-1] = json.dumps(result)
    with pytest.raises(GameLogError, match="differs from the replay"):
        check_result(parse(lines))
    unfinished = [*lines[:10], lines[-1]]
    with pytest.raises(GameLogError, match="the game is still running"):
        check_result(parse(unfinished))


def test_walk_is_the_one_replay_of_take_backs_for_the_log_and_the_service() -> None:
    """``walk``: a take-back returns to the state before the action it names, which must be
    the last action not yet taken back; the web service's state rebuild
    (games/read/state.py) replays through it too."""
    from engine.gamelog import Step, TakeBackError, final, walk

    def add(total: int, step: Step) -> int:
        assert isinstance(step.action, dict)
        return total + int(step.action["n"])

    steps = [
        Step(2, 0, {"n": 1}), Step(3, 1, {"n": 10}), Step(4, 1, takes_back=3), Step(5), Step(6, 0, {"n": 100})
    ]
    assert [state for _step, state in walk(steps, 0, add)] == [1, 11, 1, 1, 101]
    # Two take-backs in a row undo the last two actions, newest first.
    assert final(walk([*steps[:2], Step(4, 1, takes_back=3), Step(5, 0, takes_back=2)], 0, add), 0) == 0
    with pytest.raises(TakeBackError, match="seq 4"):
        final(walk([*steps[:2], Step(4, 0, takes_back=2)], 0, add), 0)
    with pytest.raises(TakeBackError):
        final(walk([Step(2, 0, takes_back=1)], 0, add), 0)
