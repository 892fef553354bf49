"""The checks every rule set passes, whatever its game (engine/README.md, "The contract").

In the manner of OpenSpiel's random_sim_test: seeded random playouts at every player count,
with the contract's invariants checked at each state. Plain functions, so tests can run them
on any ``Rules`` object: tests/engine/test_conformance.py runs them on every registered rule
set, and on faulty test rule sets to show each check can fail.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from engine.base import Action, Rules, Step, rng_state_to_json
from engine.errors import IllegalAction, InvalidOptions, InvalidSnapshot

# A seed no view may show while the game runs (design.md, Secrets); distinctive, so finding
# it in a view's JSON is no accident.
SEED_MARK = "conformance-seed-5f0c2a9e"
GARBAGE: list[Any] = [
    None,
    42,
    "pass",
    [],
    {},
    {"type": "no-such-action"},
    {"type": None},
    {"type": ["capture"]},
]


@dataclass
class Playout:
    """What one checked random game went through."""

    players: int
    seed: str
    states: int = 0
    actions: int = 0
    finished: bool = False
    secret_pairs: int = 0
    forced: int = 0
    # Moves reveals() called revealing nothing, and states compared with a secret changed.
    undoable: int = 0
    secret_variants: int = 0
    # Previews said (not None), and previews compared with a secret changed.
    previews: int = 0
    preview_variants: int = 0
    # Determinizations checked, and those whose hidden parts (beyond the generator) differed.
    determinized: int = 0
    redrawn: int = 0
    visited: list[tuple[Any, int, Action]] = field(default_factory=list)


def as_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, allow_nan=False)


def check_json(data: Any, what: str) -> str:
    """``data`` is plain JSON (no tuples, no NaN, string keys): it survives a round trip."""
    text = as_json(data)
    assert json.loads(text) == data, f"{what} changes in a JSON round trip (tuples? int keys?)"
    return text


def check_declarations(rules: Rules[Any]) -> None:
    """What a rule set declares is coherent and new_game keeps to it."""
    assert rules.id and rules.id == rules.id.lower() and " " not in rules.id
    assert type(rules.version) is int and rules.version >= 1
    assert isinstance(rules.title, str) and rules.title
    counts = rules.player_counts
    assert counts and list(counts) == sorted(set(counts)), "player_counts: ascending, each once"
    assert rules.min_players == counts[0] and rules.max_players == counts[-1]
    assert len(rules.colours) >= rules.max_players, "a colour for every seat"
    assert len(set(rules.colours)) == len(rules.colours) and all(rules.colours)
    names = [rules.seat_name(s) for s in range(rules.max_players)]
    assert all(isinstance(n, str) and n for n in names) and len(set(names)) == len(names)
    assert rules.seat_colours(counts[0]) == list(rules.colours[: counts[0]])
    option_names = [option.name for option in rules.options]
    assert len(set(option_names)) == len(option_names), "each option declared once"
    players = counts[0]
    for option in rules.options:
        assert option.help, f"option {option.name} needs a help text"
        if option.example is not None:
            rules.new_game(players, SEED_MARK, {option.name: copy.deepcopy(option.example)})
        with pytest.raises(InvalidOptions):  # a value of no sensible type
            rules.new_game(players, SEED_MARK, {option.name: {"no": ["such", "value"]}})
    with pytest.raises(InvalidOptions):
        rules.new_game(players, SEED_MARK, {"no_such_option": 1})
    with pytest.raises(InvalidOptions):
        rules.new_game(counts[0] - 1, SEED_MARK)
    with pytest.raises(InvalidOptions):
        rules.new_game(counts[-1] + 1, SEED_MARK)
    for bad_seed in (1.5, None, ["seed"]):
        with pytest.raises(InvalidOptions):
            rules.new_game(players, bad_seed)  # type: ignore[arg-type]
    unplayed = [n for n in range(counts[0], counts[-1] + 1) if n not in counts]
    for n in unplayed:
        with pytest.raises(InvalidOptions):
            rules.new_game(n, SEED_MARK)


def check_refused(rules: Rules[Any], state: Any, seat: Any, action: Any) -> None:
    """``action`` of ``seat`` raises IllegalAction with a sentence, from step and from apply."""
    for call in (rules.step, rules.apply):
        with pytest.raises(IllegalAction) as refused:
            call(state, seat, action)
        assert str(refused.value).strip(), f"IllegalAction for {action!r} needs a sentence"


def check_step(rules: Rules[Any], state: Any, players: int, done: Step[Any]) -> None:
    assert isinstance(done, Step)
    assert isinstance(done.text, str) and done.text.strip(), "every action has a sentence for everyone"
    for reader, text in done.private.items():
        assert type(reader) is int and 0 <= reader < players, "private texts are keyed by seat"
        assert isinstance(text, str) and text.strip()
    if done.public_action is not None:
        check_json(done.public_action, "public_action")
    assert done.full_text is None or (isinstance(done.full_text, str) and done.full_text.strip())
    assert rules.action_count(done.state) == rules.action_count(state) + 1


def check_views(rules: Rules[Any], state: Any, players: int, running: bool) -> dict[int | None, str]:
    """Every seat's and the spectator's view is JSON; none shows the seed while the game runs,
    and the spectator's shows no part of ``dump`` the rule set declares secret."""
    views: dict[int | None, str] = {}
    for viewer in [None, *range(players)]:
        text = check_json(rules.view(state, viewer), f"the view of {viewer}")
        if running:
            assert SEED_MARK not in text, f"the seed shows in the view of {viewer}"
        views[viewer] = text
    if running:
        dumped = rules.dump(state)
        spectator = (views[None], json.dumps(rules.view(state, None)))
        for key in rules.secret_parts:
            assert key in dumped, f"secret_parts names {key!r}, which dump does not have"
            part = dumped[key]
            if isinstance(part, list | dict) and len(part) < 2:
                continue  # one card or one pick is indistinguishable from ordinary view content
            for shown in (as_json(part), json.dumps(part)):
                assert all(shown not in text for text in spectator), f"the spectator's view shows {key}"
    return views


# Pairs of same-looking choices compared per state and seat (a hand of nine cards has eight).
SECRET_PAIRS = 3


def check_secret_choices(rules: Rules[Any], state: Any, seat: int, players: int) -> int:
    """Two legal actions of ``seat`` whose steps show others the same ``public_action`` leave
    every other seat, and spectators, with identical views and texts. Returns how many such
    pairs were compared."""
    groups: dict[str, list[Step[Any]]] = {}
    for action in rules.legal_actions(state, seat):
        done = rules.step(state, seat, action)
        if done.public_action is not None:
            groups.setdefault(as_json(done.public_action), []).append(done)
    pairs = 0
    for steps in groups.values():
        first = steps[0]
        # Each choice against the first: SECRET_PAIRS of them, a different few in each state.
        rest = steps[1:]
        if len(rest) > SECRET_PAIRS:
            start = rules.action_count(state) % len(rest)
            rest = [rest[(start + k) % len(rest)] for k in range(SECRET_PAIRS)]
        for other in rest:
            pairs += 1
            for deciding in rules.to_act(first.state):  # the others' take-back is no clue
                if deciding != seat:
                    check_reveals_secrecy(rules, first.state, deciding, [other.state])
                    check_preview_secrecy(rules, first.state, deciding, [other.state])
            assert first.text == other.text, "a secret choice shows in the text for everyone"
            for viewer in [None, *(s for s in range(players) if s != seat)]:
                assert as_json(rules.view(first.state, viewer)) == as_json(rules.view(other.state, viewer)), (
                    f"a secret choice of seat {seat} shows in the view of {viewer}"
                )
                if viewer is not None:
                    assert first.text_for(viewer) == other.text_for(viewer), (
                        f"a secret choice of seat {seat} shows in the text of seat {viewer}"
                    )
    return pairs


MAX_VARIANT_TRIES = 12
RNG_KEYS = frozenset({"version", "internal", "gauss_next"})
# Another generator state, to put in place of a game's own (a secret of every rule set).
OTHER_RNG = rng_state_to_json(random.Random(f"{SEED_MARK}:another generator").getstate())


def generator_parts(dumped: dict[str, Any]) -> list[str]:
    """The top-level keys of a dump that hold a generator's state (``rng_state_to_json``)."""
    return [key for key, value in dumped.items() if isinstance(value, dict) and set(value) == RNG_KEYS]


def _first(entry: Any) -> Any:
    """One card of a seat's entry in a per-seat part: a list's first item, or a whole number."""
    if isinstance(entry, list):
        return entry[0] if entry and type(entry[0]) is int else None
    return entry if type(entry) is int and entry else None


def _put(entry: Any, old: Any, new: Any) -> Any:
    if not isinstance(entry, list):
        return new
    changed = [new if item == old else item for item in entry]
    return sorted(changed) if entry == sorted(entry) else changed


def _exchanges(dumped: dict[str, Any], seat: int, players: Any) -> list[dict[str, Any]]:
    """Dumps where another seat has one card in another of its places: its hand's first card
    swapped with its pending pick's or its graveyard's first, say. What the seat holds in all
    stays the same, so only a seat that may look into both places can tell."""
    per_seat = [
        key
        for key, value in dumped.items()
        if isinstance(value, list) and len(value) == players and all(type(e) in (int, list) for e in value)
    ]
    found = []
    for a in per_seat:
        for b in per_seat:
            if a >= b:
                continue
            for other in range(players):
                x, y = _first(dumped[a][other]), _first(dumped[b][other])
                if other == seat or x is None or y is None or x == y:
                    continue
                left, right = list(dumped[a]), list(dumped[b])
                left[other], right[other] = _put(left[other], x, y), _put(right[other], y, x)
                found.append({**dumped, a: left, b: right})
    return found


def secret_variants(rules: Rules[Any], state: Any, seat: int) -> list[Any]:
    """States that differ from ``state`` only in what ``seat`` may not see: another generator,
    a list in another order (a deck), two other seats' entries of a per-seat list swapped
    (their hands), a card of another seat's in another of its places (hand and pending pick,
    hand and graveyard). A candidate is kept only when it loads and gives ``seat`` the very
    same view and legal actions; so whatever it changed was hidden from ``seat``."""
    dumped = rules.dump(state)
    players = dumped.get("players")
    candidates: list[dict[str, Any]] = _exchanges(dumped, seat, players)
    for key, value in dumped.items():
        if not isinstance(value, list) or len(value) < 2:
            continue
        candidates.append({**dumped, key: list(reversed(value))})
        if len(value) == players:
            others = [s for s in range(len(value)) if s != seat]
            for a, b in itertools.pairwise(others):
                swapped = list(value)
                swapped[a], swapped[b] = value[b], value[a]
                candidates.append({**dumped, key: swapped})
    # A sample, to stay quick: which one varies from state to state, the same in every run.
    random.Random(rules.action_count(state)).shuffle(candidates)
    candidates = [{**dumped, key: OTHER_RNG} for key in generator_parts(dumped)] + candidates
    seen = as_json(rules.view(state, seat))
    legal = rules.legal_actions(state, seat)
    variants: dict[tuple[str, ...], Any] = {}  # one per set of parts changed
    for data in candidates[: MAX_VARIANT_TRIES + 1]:
        changed = tuple(key for key in dumped if data[key] is not dumped[key] and data[key] != dumped[key])
        if not changed or changed in variants:
            continue
        try:
            variant = rules.load(json.loads(json.dumps(data)))
        except InvalidSnapshot:
            continue
        if as_json(rules.view(variant, seat)) == seen and rules.legal_actions(variant, seat) == legal:
            variants[changed] = variant
    return list(variants.values())


DETERMINIZE_DRAWS = 6


def check_determinize(rules: Rules[Any], state: Any, seat: int, others: list[Any]) -> tuple[int, int]:
    """``determinize(state, seat, rng)``: the state is unchanged; each draw loads back and
    gives ``seat`` the same view and legal actions; the generator is never the real one; and
    where ``others`` (states differing from ``state`` only in what ``seat`` may not see) show
    a hidden part beyond the generator, some draw differs from the truth there too. Returns
    (draws checked, draws that redrew a hidden part beyond the generator). With the same
    generator, ``determinize`` gives one state for ``state`` and for each of ``others``: it
    reads only what the seat sees, so a search bot's choice cannot depend on a secret."""
    before = rules.dump(state)
    generators = generator_parts(before)
    seen = as_json(rules.view(state, seat))
    legal = rules.legal_actions(state, seat)
    redrawn = 0
    for k in range(DETERMINIZE_DRAWS):
        drawn = rules.determinize(state, seat, random.Random(f"{SEED_MARK}:determinize:{k}"))
        assert rules.dump(state) == before, "determinize must never change the state it is given"
        data = rules.dump(drawn)
        assert rules.dump(rules.load(json.loads(json.dumps(data)))) == data, "a determinization loads back"
        assert as_json(rules.view(drawn, seat)) == seen, (
            "a determinization shows the seat its view of the truth"
        )
        assert rules.legal_actions(drawn, seat) == legal, "a determinization gives the seat the same actions"
        for key in generators:
            assert data[key] != before[key], f"determinize leaks the truth: {key} is the real generator"
        redrawn += any(data[key] != before[key] for key in before if key not in generators)
    for other in others:
        for k in range(2):
            seeded = f"{SEED_MARK}:determinize:{k}"
            mine = rules.dump(rules.determinize(state, seat, random.Random(seeded)))
            theirs = rules.dump(rules.determinize(other, seat, random.Random(seeded)))
            assert mine == theirs, "determinize reads a secret: it draws alike only from what the seat sees"
    hidden = any(
        rules.dump(other)[key] != before[key] for other in others for key in before if key not in generators
    )
    if hidden:
        assert redrawn, f"determinize leaks the truth: {DETERMINIZE_DRAWS} draws kept every hidden part"
    return DETERMINIZE_DRAWS, redrawn


def check_reveals(rules: Rules[Any], state: Any, seat: int, action: Action, done: Step[Any]) -> bool:
    """``reveals`` answers None or a clause, changes nothing (the generator included), and a
    move it calls revealing nothing is no secret step and leaves every secret part of the
    dump and the generator as they were: taking it back hides nothing that was shown.
    Returns whether the move reveals nothing."""
    before = rules.dump(state)
    reason = rules.reveals(state, seat, dict(action))
    assert rules.dump(state) == before, "reveals never changes the state or advances its generator"
    if reason is not None:
        assert isinstance(reason, str) and reason.strip() and not reason.endswith("."), (
            "reveals gives a clause (no final stop) or None"
        )
        return False
    assert not done.secret and not done.private, (
        f"reveals says {action!r} reveals nothing, but its step is secret or shows a seat something"
    )
    after = rules.dump(done.state)
    for key in (*rules.secret_parts, *generator_parts(before)):
        assert after.get(key) == before.get(key), (
            f"reveals says {action!r} reveals nothing, but it changes {key}"
        )
    return True


def check_reveals_secrecy(rules: Rules[Any], state: Any, seat: int, others: list[Any]) -> int:
    """``reveals`` reads nothing ``seat`` may not see: in every state of ``others`` (each
    differing from ``state`` only in a secret of ``seat``'s) it answers alike for every legal
    action. Returns how many states were compared."""
    for action in rules.legal_actions(state, seat):
        said = rules.reveals(state, seat, dict(action))
        for other in others:
            assert rules.reveals(other, seat, dict(action)) == said, (
                f"reveals reads a secret: seat {seat}'s {action!r} is answered differently "
                "in two states that differ only in what that seat may not see"
            )
    return len(others)


def check_preview(rules: Rules[Any], state: Any, seat: int, action: Action) -> bool:
    """``preview`` says None or a sentence, changes nothing, and draws from no generator: the
    state's (its dump, the generator's state included, is as it was) nor the global one.
    Returns whether it said something."""
    before = rules.dump(state)
    global_generator = random.getstate()
    said = rules.preview(state, seat, dict(action))
    assert random.getstate() == global_generator, "preview never draws from a generator"
    assert rules.dump(state) == before, "preview never changes the state or advances its generator"
    assert said is None or (isinstance(said, str) and said.strip()), "preview gives a sentence or None"
    return said is not None


def check_preview_secrecy(rules: Rules[Any], state: Any, seat: int, others: list[Any]) -> int:
    """``preview`` reads nothing ``seat`` may not see: in every state of ``others`` (each
    differing from ``state`` only in a secret of ``seat``'s) it says the same of every legal
    action. ``score_now`` reads only public parts, so it is the same in all of them too.
    Returns how many states were compared."""
    for action in rules.legal_actions(state, seat):
        said = rules.preview(state, seat, dict(action))
        for other in others:
            assert rules.preview(other, seat, dict(action)) == said, (
                f"preview reads a secret: seat {seat}'s {action!r} is previewed differently "
                "in two states that differ only in what that seat may not see"
            )
    scores = rules.score_now(state)
    for other in others:
        assert rules.score_now(other) == scores, "score_now reads a secret"
    return len(others)


def check_score_now(rules: Rules[Any], state: Any, players: int, result: dict[str, Any] | None) -> None:
    """One number per seat, changing nothing; at the end, the result's scores."""
    before = rules.dump(state)
    scores = rules.score_now(state)
    assert rules.dump(state) == before, "score_now never changes the state"
    assert isinstance(scores, list) and len(scores) == players, "score_now has one entry per seat"
    assert all(type(score) in (int, float) for score in scores), "score_now gives numbers"
    if result is not None:
        assert scores == result["scores"], "score_now at the end is the result's scores"


# When several seats decide at once (Libertalia's picks), the costly per-seat checks run for
# this many of them in each deep state, a different few from state to state: every seat's
# choices are still checked over a game, and a six-seat pick costs a third of checking all.
DEEP_SEATS = 2


def deep_seats(rules: Rules[Any], state: Any, to_act: list[int]) -> list[int]:
    """The seats of ``to_act`` whose every action a deep check tries: all of them up to
    ``DEEP_SEATS``, otherwise ``DEEP_SEATS`` in turn by the state's action count."""
    if len(to_act) <= DEEP_SEATS:
        return to_act
    start = rules.action_count(state) % len(to_act)
    return [to_act[(start + k) % len(to_act)] for k in range(DEEP_SEATS)]


def check_state(
    rules: Rules[Any],
    state: Any,
    players: int,
    earlier: list[tuple[Any, int, Action]],
    *,
    deep: bool,
    record: Playout | None = None,
) -> tuple[int, int]:
    """The invariants of one reachable state. ``deep``: also every legal action, purity,
    round trips, refusals, views, secrecy and what ``reveals`` says (the costly checks, on a
    sample of states). Returns (secret pairs compared, forced actions seen); ``record``
    counts the take-back checks."""
    to_act = rules.to_act(state)
    finished = rules.is_finished(state)
    result = rules.result(state)
    assert finished == (result is not None)
    assert (to_act == []) == finished, "to_act is empty exactly when the game is over"
    assert to_act == sorted(set(to_act)) and all(0 <= s < players for s in to_act)
    if len(to_act) > 1:
        assert rules.simultaneous, "several seats act at once, so the rule set must say simultaneous"
    forced = 0
    for seat in range(players):
        legal = rules.legal_actions(state, seat)
        forced_action = rules.forced_action(state, seat)
        if seat not in to_act:
            assert legal == [], f"seat {seat} is not to act but has legal actions"
            assert forced_action is None
            continue
        assert legal, f"seat {seat} is to act but has no legal action"
        assert legal == rules.legal_actions(state, seat), "legal_actions is deterministic"
        texts = [check_json(action, "a legal action") for action in legal]
        assert len(set(texts)) == len(texts), "each legal action is listed once"
        if forced_action is not None:
            forced += 1
            assert [forced_action] == legal, "a forced action is the seat's only legal action"
        late = rules.timeout_action(state, seat)
        assert late is None or late in legal, "a timeout's action is one of the seat's legal actions"
    if not deep:
        if finished:
            check_score_now(rules, state, players, result)
        else:
            assert len(rules.score_now(state)) == players, "score_now has one entry per seat"
        return 0, forced

    before = rules.dump(state)
    check_json(before, "dump")
    assert rules.dump(rules.load(json.loads(json.dumps(before)))) == before, "load(dump(s)) dumps equal"
    check_views(rules, state, players, running=not finished)
    pairs = 0
    untouched = "step and apply never change the state they are given"
    for seat in deep_seats(rules, state, to_act):
        for action in rules.legal_actions(state, seat):
            done = rules.step(state, seat, dict(action))
            assert rules.dump(state) == before, untouched
            check_step(rules, state, players, done)
            applied = rules.apply(state, seat, dict(action))
            assert rules.dump(state) == before, untouched
            assert rules.dump(applied) == rules.dump(done.state), "apply gives the state step gives"
            undoable = check_reveals(rules, state, seat, action, done)
            said = check_preview(rules, state, seat, action)
            if record is not None:
                record.undoable += undoable
                record.previews += said
        pairs += check_secret_choices(rules, state, seat, players)
        others = secret_variants(rules, state, seat)
        variants = check_reveals_secrecy(rules, state, seat, others)
        compared = check_preview_secrecy(rules, state, seat, others)
        if record is not None:
            record.secret_variants += variants
            record.preview_variants += compared
        if not finished:
            drawn, redrawn = check_determinize(rules, state, seat, others)
            if record is not None:
                record.determinized += drawn
                record.redrawn += redrawn
    for action in GARBAGE:
        for seat in to_act or range(players):
            check_refused(rules, state, seat, action)
    for bad_seat in (-1, players, "0", None, 0.0):
        probe = rules.legal_actions(state, to_act[0])[0] if to_act else {"type": "pass"}
        check_refused(rules, state, bad_seat, probe)
    idle = [s for s in range(players) if s not in to_act]
    if to_act and idle:
        check_refused(rules, state, idle[0], rules.legal_actions(state, to_act[0])[0])
    for _, old_seat, old_action in earlier[-6:]:
        if old_action not in rules.legal_actions(state, old_seat):
            check_refused(rules, state, old_seat, old_action)  # legal once, not now
    assert rules.dump(state) == before, untouched
    check_score_now(rules, state, players, result)
    if finished:
        assert result is not None
        assert isinstance(result["scores"], list) and len(result["scores"]) == players
        assert all(type(score) is int for score in result["scores"])
        winners = result["winners"]
        assert winners and winners == sorted(set(winners)) and all(0 <= w < players for w in winners)
        check_json(result, "result")
    return pairs, forced


def playout(rules: Rules[Any], players: int, seed: str, *, max_actions: int, deep_every: int) -> Playout:
    """One random game, checked at every state (deeply at every ``deep_every``-th and the
    last), for at most ``max_actions`` actions; then replayed to the same dumps."""
    record = Playout(players, seed)
    state = rules.new_game(players, seed)
    rng = random.Random(seed)
    log: list[tuple[int, Action]] = []
    while True:
        running = not rules.is_finished(state)
        deep = record.states % deep_every == 0 or not running or record.actions >= max_actions
        pairs, forced = check_state(rules, state, players, record.visited, deep=deep, record=record)
        record.states += 1
        record.secret_pairs += pairs
        record.forced += forced
        if not running or record.actions >= max_actions:
            break
        seat = rng.choice(rules.to_act(state))
        action = rng.choice(rules.legal_actions(state, seat))
        record.visited.append((state, seat, action))
        log.append((seat, json.loads(json.dumps(action))))
        state = rules.step(state, seat, action).state
        record.actions += 1
    record.finished = rules.is_finished(state)
    # The same seed and actions give the same game (design.md, Randomness).
    again = rules.new_game(players, seed)
    for seat, action in log:
        again = rules.apply(again, seat, action)
    assert rules.dump(again) == rules.dump(state), "replaying the same seed and actions reproduces the game"
    return record


def check_apply_is_step(
    rules: Rules[Any], players: int, seed: int | str, options: dict[str, Any] | None,
    actions: list[tuple[int, Action]], where: str,
) -> Any:  # fmt: skip
    """``apply(state, seat, action)`` and ``step(state, seat, action).state`` dump alike on
    every action of a game (an ``apply`` that skips the sentences must skip nothing else);
    the final state."""
    state = rules.new_game(players, seed, options)
    for number, (seat, action) in enumerate(actions, start=1):
        applied = rules.apply(state, seat, action)
        stepped = rules.step(state, seat, action).state
        assert as_json(rules.dump(applied)) == as_json(rules.dump(stepped)), (
            f"{where}, action {number} ({action!r} of seat {seat}): apply and step().state differ"
        )
        state = applied
    return state


def random_actions(
    rules: Rules[Any], players: int, seed: int | str, max_actions: int
) -> list[tuple[int, Action]]:
    """The (seat, action)s of a seeded game of random moves, the first seat to act moving."""
    state = rules.new_game(players, seed)
    rng = random.Random(f"moves:{seed}")
    moves: list[tuple[int, Action]] = []
    while not rules.is_finished(state) and len(moves) < max_actions:
        seat = rules.to_act(state)[0]
        action = rng.choice(rules.legal_actions(state, seat))
        moves.append((seat, action))
        state = rules.step(state, seat, action).state
    return moves
