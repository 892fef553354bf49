"""The JSON-lines game log: one event per line, as the web service exports it and as
``python -m engine replay`` reads it.

    {"seq": 1, "kind": "game_started", "seat": null,
     "payload": {"rules": "<id>", "version": 1, "players": 4, "seed": "s", "options": {}}}
    {"seq": 2, "kind": "action", "seat": 2, "payload": {"action": {...}}, "actor": "user:alice"}
    ...
    {"kind": "result", "payload": {"scores": [...], "winners": [...]}}      (optional, last)

Every event after the first that carries ``payload.action`` is applied for its seat, whatever
its kind (a timeout's or a bot's move is still an action), unless a later ``take_back`` event
names its seq (``payload.takes_back``): a taken-back move is left out. Other events are skipped.

A log may carry each event's ``hash`` (engine/chain.py), as the web export does: then every
event must carry one and every link is checked before anything is replayed. A log without
hashes replays as before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.base import Action, Rules
from engine.chain import GENESIS, hash_of, is_hash
from engine.errors import IllegalAction, InvalidOptions, UnknownRules
from engine.registry import get_rules

GAME_STARTED = "game_started"
ACTION = "action"
RESULT = "result"
# A player took back their last move: ``payload.takes_back`` is that move's seq, which must be
# the last action read so far; the replay leaves the move out.
TAKE_BACK = "take_back"


class GameLogError(ValueError):
    """A log that cannot be read or replayed; the message names the line or seq."""


class TakeBackError(GameLogError):
    """A take-back that does not name the last action not yet taken back."""

    def __init__(self, seq: int, takes_back: int) -> None:
        super().__init__(f"seq {seq}: a take-back must name the last action's seq (not {takes_back})")
        self.seq = seq
        self.takes_back = takes_back


@dataclass(frozen=True)
class Step:
    """One event as a replay reads it: an action of ``seat``, a take-back of the action at
    seq ``takes_back``, or neither (an event that changes no state)."""

    seq: int
    seat: int | None = None
    action: Action | None = None
    takes_back: int | None = None


S = TypeVar("S")


def walk(steps: Iterable[Step], state: S, apply: Callable[[S, Step], S]) -> Iterator[tuple[Step, S]]:
    """The one replay that honours take-backs: ``state`` after each of ``steps`` in turn.

    An action's state is ``apply(state, step)``; a take-back's is the state before the action
    it names, which must be the last action not yet taken back (else ``TakeBackError``); any
    other step leaves the state as it was. Both the log replay here and the web service's
    state rebuild (games/read/state.py) replay through this function, so a take-back means
    the same in both. ``state`` is any value: ``parse`` walks the surviving actions as a tuple.
    """
    undo: list[tuple[int, S]] = []  # (seq of an action not taken back, the state before it)
    for step in steps:
        if step.takes_back is not None:
            if not undo or undo[-1][0] != step.takes_back:
                raise TakeBackError(step.seq, step.takes_back)
            state = undo.pop()[1]
        elif step.action is not None:
            undo.append((step.seq, state))
            state = apply(state, step)
        yield step, state


def final(walked: Iterable[tuple[Step, S]], state: S) -> S:
    """The state after the last step of ``walked`` (``state`` when there is none)."""
    for _step, after in walked:
        state = after
    return state


@dataclass(frozen=True)
class Header:
    rules: str
    version: int
    players: int
    seed: int | str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoggedAction:
    seq: int
    seat: int
    action: Action
    actor: str | None = None
    line: int = 0


@dataclass(frozen=True)
class _LoggedStep(Step):
    """A step read from a log line: the action as logged (or a take-back), with its line."""

    logged: LoggedAction | None = None
    line: int = 0


@dataclass(frozen=True)
class GameLog:
    header: Header
    actions: list[LoggedAction]
    result: dict[str, Any] | None = None
    # The last event's hash when the log is chained (every link checked), else None.
    head: str | None = None


def started_event(
    rules: str, version: int, players: int, seed: int | str, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    payload = {"rules": rules, "version": version, "players": players, "seed": seed, "options": options or {}}
    return {"seq": 1, "kind": GAME_STARTED, "seat": None, "payload": payload}


def action_event(seq: int, seat: int, action: Action, actor: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {"seq": seq, "kind": ACTION, "seat": seat, "payload": {"action": action}}
    if actor is not None:
        event["actor"] = actor
    return event


def result_event(result: dict[str, Any]) -> dict[str, Any]:
    return {"kind": RESULT, "payload": {"scores": result["scores"], "winners": result["winners"]}}


def write_lines(events: Iterable[dict[str, Any]]) -> str:
    """The log text: one compact JSON object per line, each line ending in a newline."""
    return "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in events)


def _fail(line: int, message: str) -> GameLogError:
    return GameLogError(f"line {line}: {message}")


def _header(event: dict[str, Any], line: int) -> Header:
    if event.get("kind") != GAME_STARTED or event.get("seq") != 1:
        raise _fail(line, 'the first event must be {"seq": 1, "kind": "game_started", ...}')
    payload = event.get("payload")
    if not isinstance(payload, dict):
        raise _fail(line, "game_started needs a payload object")
    missing = [key for key in ("rules", "version", "players", "seed") if key not in payload]
    if missing:
        raise _fail(line, "game_started payload lacks " + ", ".join(missing))
    rules, version, players, seed = (payload[k] for k in ("rules", "version", "players", "seed"))
    options = payload.get("options")
    if options is None:
        options = {}
    if not isinstance(rules, str):
        raise _fail(line, "payload.rules must be a string")
    if type(version) is not int or type(players) is not int:
        raise _fail(line, "payload.version and payload.players must be whole numbers")
    if type(seed) not in (int, str):
        raise _fail(line, "payload.seed must be a string or a whole number")
    if not isinstance(options, dict):
        raise _fail(line, "payload.options must be an object")
    return Header(rules, version, players, seed, options)


def parse(source: str | Iterable[str]) -> GameLog:
    """Read a log (text or lines). Blank lines are ignored; line numbers count them."""
    lines = source.splitlines() if isinstance(source, str) else list(source)
    header: Header | None = None
    steps: list[_LoggedStep] = []
    result: dict[str, Any] | None = None
    expected_seq = 1
    chain = _Chain()
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        if result is not None:
            raise _fail(number, "nothing may follow the result event")
        try:
            event = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _fail(number, f"not valid JSON ({exc.msg})") from None
        if not isinstance(event, dict):
            raise _fail(number, "an event must be a JSON object")
        if header is None:
            header = _header(event, number)
            chain.check(event, number)
            expected_seq = 2
            continue
        kind = event.get("kind")
        if not isinstance(kind, str):
            raise _fail(number, "an event needs a kind")
        if kind == RESULT:
            result = _result(event, number)
            continue
        seq = event.get("seq")
        if type(seq) is not int or seq != expected_seq:
            raise _fail(number, f"seq must be {expected_seq} (no gaps), not {seq!r}")
        expected_seq += 1
        chain.check(event, number)
        payload = event.get("payload")
        if kind == TAKE_BACK:
            undone = payload.get("takes_back") if isinstance(payload, dict) else None
            if type(undone) is not int:
                raise _fail(number, f"seq {seq}: a take-back must name the last action's seq")
            steps.append(_LoggedStep(seq, takes_back=undone, line=number))
            continue
        if not isinstance(payload, dict) or "action" not in payload:
            continue
        seat = event.get("seat")
        if type(seat) is not int:
            raise _fail(number, f"seq {seq}: an action needs the seat number that plays it")
        actor = event.get("actor")
        if actor is not None and not isinstance(actor, str):
            raise _fail(number, f"seq {seq}: actor must be a string")
        logged = LoggedAction(seq, seat, payload["action"], actor, number)
        steps.append(_LoggedStep(seq, seat, payload["action"], logged=logged, line=number))
    if header is None:
        raise GameLogError("the log is empty: it needs a game_started event")
    return GameLog(header, _surviving(steps), result, chain.head())


def _surviving(steps: list[_LoggedStep]) -> list[LoggedAction]:
    """The logged actions that no take-back took back, walked by the same ``walk`` as every
    replay (its state here is the tuple of actions so far)."""
    lines = {step.seq: step.line for step in steps}

    def add(kept: tuple[LoggedAction, ...], step: Step) -> tuple[LoggedAction, ...]:
        assert isinstance(step, _LoggedStep) and step.logged is not None
        return (*kept, step.logged)

    empty: tuple[LoggedAction, ...] = ()
    try:
        kept: tuple[LoggedAction, ...] = final(walk(steps, empty, add), empty)
    except TakeBackError as exc:
        raise _fail(lines[exc.seq], f"seq {exc.seq}: a take-back must name the last action's seq") from None
    return list(kept)


class _Chain:
    """The hash chain of a log being read: chained if its first event has a hash, and then
    every event must have the hash of its content and the hash before it."""

    def __init__(self) -> None:
        self.chained: bool | None = None
        self.prev = GENESIS

    def check(self, event: dict[str, Any], line: int) -> None:
        stored = event.get("hash")
        if self.chained is None:
            self.chained = stored is not None
        seq = event["seq"]
        where = f"seq {seq} (line {line})"
        if not self.chained:
            if stored is not None:
                raise GameLogError(f"{where}: this event has a hash but the first event has none")
            return
        if not is_hash(stored):
            raise GameLogError(f"{where}: the hash is missing or not 64 lowercase hex digits")
        if hash_of(self.prev, event) != stored:
            raise GameLogError(f"{where}: the hash chain breaks here: this event or its hash was altered")
        self.prev = stored

    def head(self) -> str | None:
        return self.prev if self.chained else None


def _result(event: dict[str, Any], line: int) -> dict[str, Any]:
    payload = event.get("payload")
    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("scores"), list)
        or not isinstance(payload.get("winners"), list)
    ):
        raise _fail(line, "the result event needs payload.scores and payload.winners lists")
    return {"scores": payload["scores"], "winners": payload["winners"]}


def rules_of(log: GameLog) -> Rules[Any]:
    try:
        return get_rules(log.header.rules, log.header.version)
    except UnknownRules as exc:
        raise GameLogError(f"seq 1: {exc}") from None


def replay(log: GameLog) -> Any:
    """The final state after applying every logged action with full validation."""
    header = log.header
    rules = rules_of(log)
    try:
        state = rules.new_game(header.players, header.seed, header.options)
    except InvalidOptions as exc:
        raise GameLogError(f"seq 1: {exc}") from None
    lines = {logged.seq: logged.line for logged in log.actions}

    def apply(state: Any, step: Step) -> Any:
        assert step.seat is not None and step.action is not None
        try:
            return rules.apply(state, step.seat, step.action)
        except IllegalAction as exc:
            raise GameLogError(f"seq {step.seq} (line {lines[step.seq]}): illegal action: {exc}") from None

    steps = (Step(logged.seq, logged.seat, logged.action) for logged in log.actions)
    return final(walk(steps, state, apply), state)


def check_result(log: GameLog) -> dict[str, list[int]] | None:
    """Replay the log and compare with its recorded result; returns the replayed result."""
    replayed = rules_of(log).result(replay(log))
    if log.result is not None and replayed != log.result:
        shown = "the game is still running" if replayed is None else json.dumps(replayed)
        raise GameLogError(f"the recorded result {json.dumps(log.result)} differs from the replay: {shown}")
    return replayed
