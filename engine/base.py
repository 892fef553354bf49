"""The contract every rule set fulfils, and helpers they share.

A rule set is a stateless object; all of a game lives in its immutable state value. The web
service only ever talks to a rule set through these methods, so a new game plugs in by
subclassing :class:`Rules` in a subpackage of ``engine`` that lists it in ``RULE_SETS`` (found
by :mod:`engine.registry`). engine/README.md describes the whole contract.
"""

from __future__ import annotations

import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, NamedTuple, NoReturn, TypeVar

from engine.errors import InvalidOptions, InvalidSnapshot

S = TypeVar("S")

JSON = Any
"""A value made of dicts, lists, str, int, float, bool and None only."""

Action = dict[str, Any]


class FrozenAction(dict[str, Any]):
    """An action as ``legal_actions`` hands it out: a JSON object that cannot be changed.

    A rule set lists the same few thousand actions over and over, and building a fresh dict
    for each listing was most of the cost of ``legal_actions``, the engine's hottest path. So
    each action is built once and shared, which is only safe because nobody can change it.
    It is a real ``dict``: ``json``, ``==`` and ``isinstance(action, dict)`` treat it like any
    action, and ``dict(action)`` (or ``copy.copy``) gives an ordinary dict to change.
    """

    __slots__ = ()

    def _refuse(self) -> NoReturn:
        raise TypeError("an action from legal_actions cannot be changed; copy it with dict(action)")

    def __setitem__(self, key: str, value: Any) -> NoReturn:
        self._refuse()

    def __delitem__(self, key: str) -> NoReturn:
        self._refuse()

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        self._refuse()

    def clear(self) -> NoReturn:
        self._refuse()

    def pop(self, *args: Any) -> NoReturn:
        self._refuse()

    def popitem(self) -> NoReturn:
        self._refuse()

    def setdefault(self, *args: Any) -> NoReturn:
        self._refuse()

    def update(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._refuse()

    # Copies and pickles are plain dicts (unpickling a dict subclass would call __setitem__).
    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return copy.deepcopy(dict(self), memo)

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return (dict, (dict(self),))


SEAT_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "black")


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat]


_SEAT_NAMES = tuple(colour.capitalize() for colour in SEAT_COLOURS)


def seat_name(seat: int) -> str:
    """The colour of a seat as a player-facing name ("Red")."""
    return _SEAT_NAMES[seat]


@dataclass(frozen=True)
class OptionInfo:
    """One option a rule set's ``new_game`` takes, as the platform needs to know it."""

    name: str
    help: str
    # Hidden from everyone but the service until the game ends (a fixed deal predicts the game).
    secret: bool = False
    # Fixes something the seed would otherwise draw (a deck, a first seat, dice): a game that
    # uses it is not a fair shuffle, and the platform says so.
    fixes_chance: bool = False
    # A value ``new_game`` accepts at every player count (forms show it; the conformance suite
    # starts a game with it); None when there is no short one.
    example: JSON = None


NO_PRIVATE_TEXT: Mapping[int, str] = MappingProxyType({})

# What ``Rules.reveals`` answers for a rule set that does not decide move by move.
FINAL_BY_DEFAULT = "this game cannot take moves back"
# The clause for a move that ends the game: the end shows what the rules hid (the seed and
# the deal with it, where the rule set reveals them) and nothing can be taken back after it.
ENDS_THE_GAME = "it ends the game"


class Step(NamedTuple, Generic[S]):
    """What one action did: the new state and what each audience may read of it.

    - ``text``: the log sentence for everyone (other seats and spectators).
    - ``private``: seat -> the sentence that seat reads instead of ``text`` (its own secret
      pick in full, the cards it drew). Never shown to anyone else, not even after the end.
    - ``public_action``: what other seats and spectators may see of the action itself;
      ``None`` when the action is public as it is (or is revealed by this very step). The
      acting seat always sees its action. Two actions of one seat with the same
      ``public_action`` must leave every other seat's view and text identical.
    - ``full_text``: the sentence for everyone once the game is over (a pick kept secret
      until then); ``None`` means ``text`` stays the public sentence for ever.

    A NamedTuple rather than a frozen dataclass: one is built on every move, and a frozen
    dataclass took five times as long to build (a microsecond, a sixth of a Pirates step).
    """

    state: S
    text: str
    private: Mapping[int, str] = NO_PRIVATE_TEXT
    public_action: Action | None = None
    full_text: str | None = None

    @property
    def secret(self) -> bool:
        """Whether others may not see the action as it was made."""
        return self.public_action is not None

    def text_for(self, seat: int | None) -> str:
        """The sentence ``seat`` reads while the game runs (``None``: a spectator)."""
        if seat is None:
            return self.text
        return self.private.get(seat, self.text)


class Rules(ABC, Generic[S]):
    """One rule set (one game, one version).

    Several seats may be asked to act at once (``to_act`` returns them all); a rule set that
    needs randomness during play keeps a ``random.Random`` state inside its game state and
    serialises it in ``dump``. The class attributes declare what the platform needs to know
    so that nothing outside the rule set's own folders has to name it.
    """

    id: str
    version: int
    title: str
    min_players: int
    max_players: int
    # The options ``new_game`` accepts, with what the platform must know of each.
    options: tuple[OptionInfo, ...] = ()
    # True when several seats may owe a decision at the same time (secret picks, challenges).
    simultaneous: bool = False
    # True when actions draw from the game's generator during play (dice, draws).
    chance_in_play: bool = False
    # Seat colours in seat order; a rule set whose colours are drawn at setup says so in its
    # view (``view["colours"]``) and uses these only before the game starts.
    colours: tuple[str, ...] = SEAT_COLOURS
    # Top-level keys of ``dump`` that no spectator may see while the game runs (a deck's
    # order, hands, pending picks, the random state). The conformance suite checks that the
    # spectator's view never carries them; seat views may show a seat its own part.
    secret_parts: tuple[str, ...] = ()
    # Whether the seed (and the options that fix what it would draw) may be shown once the
    # game is over, so anyone can check the shuffle. False for a game that keeps something
    # secret for ever which the seed would give away (Captain Lucky's hands, K-END-4).
    reveal_seed_at_end: bool = True
    # Hints for the strong bot's search (``engine/search.py``), measured against greedy bots:
    # ``depth`` (rollout moves before a position is judged), ``candidates`` (actions searched,
    # the greedy ranking's best) and ``scale`` (points of lead worth a clear edge, about the
    # usual gap between a greedy game's winner and runner-up). Missing keys take its defaults.
    search_tuning: Mapping[str, float] = MappingProxyType({})

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    @abstractmethod
    def new_game(self, players: int, seed: int | str, options: dict[str, Any] | None = None) -> S:
        """A fresh game; raises ``InvalidOptions`` for bad arguments."""

    @abstractmethod
    def to_act(self, state: S) -> list[int]:
        """The seats that may act now, in seat order; empty when the game is over."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """Every legal action of ``seat``, each once, in a deterministic order; ``[]`` for a
        seat not in ``to_act``. Every seat in ``to_act`` has at least one."""

    @abstractmethod
    def step(self, state: S, seat: int, action: Action) -> Step[S]:
        """Validate and perform ``action`` once: the new state and what happened, per
        audience (sentences worded from the state before the action). Raises
        ``IllegalAction`` with a sentence for the player."""

    def apply(self, state: S, seat: int, action: Action) -> S:
        """The state after ``seat`` plays ``action``; raises ``IllegalAction``."""
        return self.step(state, seat, action).state

    def forced_action(self, state: S, seat: int) -> Action | None:
        """The action the service makes at once for ``seat`` because it is the seat's only
        legal one and the rules say it is taken without asking (a pass, a skip); ``None``
        otherwise. Rule sets answer this without building the whole legal list."""
        return None

    def timeout_action(self, state: S, seat: int) -> Action | None:
        """What the rules themselves say a late ``seat`` does when its deadline passes (an
        unanswered question counts as declined); ``None`` leaves it to the game's timeout
        policy (a bot's move or a pass)."""
        return None

    def reveals(self, state: S, seat: int, action: Action) -> str | None:
        """Why ``seat`` playing ``action`` (legal for it) in ``state`` is final, or ``None``
        when the move reveals nothing: it shows no hidden part (a card drawn, a hand, a
        secret pick) and uses no draw of the game's generator, so the player may take it back
        until another seat acts, and the state before it is all that changes back.

        The reason is a clause in the rule set's words that reads after "This move is
        final: " ("it draws a card", "your pick is revealed with the others"). It is decided
        only from what ``seat`` may see: two states that differ only in a secret give the
        same answer, and nothing here advances the generator or changes ``state``. A rule set
        may raise ``IllegalAction`` for an action ``step`` would refuse.

        The default is the safe answer for a rule set that does not say: every move final."""
        return FINAL_BY_DEFAULT

    def preview(self, state: S, seat: int, action: Action) -> str | None:
        """What ``seat`` will see ``action`` (legal for it) do, said before the move is made,
        in the rule set's own words ("Costs 3 ducats: ducats 12 → 9."); ``None`` when the rule
        set has nothing to say beyond the action itself.

        Like ``reveals`` it reads only what ``seat`` may see: two states that differ only in a
        secret of that seat's give the same preview. It never uses the game's generator (the
        next roll, the next card are secrets; a preview names what chance decides without
        deciding it), draws from no other, and never changes ``state``."""
        return None

    @abstractmethod
    def score_now(self, state: S) -> list[int | float]:
        """Each seat's score if the game ended now, one entry per seat, for the replay chart;
        at the end it equals ``result(state)["scores"]``. Read from public parts only: the
        chart is shown to every watcher."""

    def evaluate(self, state: S, seat: int) -> float | None:
        """How good ``state`` is for ``seat`` (higher is better), for the greedy bot;
        ``None`` when the rule set has no evaluation (the greedy bot then plays at random).
        It judges only from what ``seat`` may know (its view), so bots do not peek."""
        return None

    def determinize(self, state: S, seat: int, rng: random.Random) -> S:
        """A full state that ``seat`` cannot tell from ``state``: the same view for ``seat``
        (so the same legal actions), with everything hidden from it drawn again from ``rng``
        (the deck's order, other seats' hands and pending secret picks, the game's generator),
        never copied from the real hidden parts. Search bots plan on such states. Never
        changes ``state``; uses no randomness but ``rng``.

        The default refuses: a rule set without it cannot be played by a searching bot."""
        raise NotImplementedError(f"{self.id} cannot determinize a state for a search bot")

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` (``None``: a spectator) may see, as JSON."""

    @abstractmethod
    def result(self, state: S) -> dict[str, list[int]] | None:
        """``None`` while running, else ``{"scores": [...], "winners": [...]}``."""

    @abstractmethod
    def dump(self, state: S) -> dict[str, JSON]:
        """A JSON snapshot from which ``load`` rebuilds an equal state."""

    @abstractmethod
    def load(self, data: dict[str, JSON]) -> S:
        """The state of a ``dump``; raises ``InvalidSnapshot`` for a malformed one."""

    @abstractmethod
    def action_count(self, state: S) -> int:
        """How many actions have been applied since the game started."""

    def is_finished(self, state: S) -> bool:
        return self.result(state) is not None

    def seat_colours(self, players: int) -> list[str]:
        return list(self.colours[:players])

    def seat_name(self, seat: int) -> str:
        """A seat as players read it ("Red")."""
        return self.colours[seat].capitalize()


RngState = tuple[Any, ...]


def rng_state_to_json(rng_state: RngState) -> dict[str, JSON]:
    """``random.Random.getstate()`` as plain JSON (tuples become lists)."""
    version, internal, gauss_next = rng_state
    return {"version": version, "internal": list(internal), "gauss_next": gauss_next}


def rng_state_from_json(data: JSON) -> RngState:
    if not isinstance(data, dict) or set(data) != {"version", "internal", "gauss_next"}:
        raise InvalidSnapshot("rng must be an object with version, internal and gauss_next")
    internal = data["internal"]
    if not isinstance(internal, list) or not all(type(x) is int for x in internal):
        raise InvalidSnapshot("rng.internal must be a list of integers")
    state: RngState = (data["version"], tuple(internal), data["gauss_next"])
    try:
        rng_from_state(state)
    except (TypeError, ValueError) as exc:
        raise InvalidSnapshot(f"rng is not a valid random state: {exc}") from exc
    return state


class _Generator(random.Random):
    """``random.Random`` without its Python-level seeding, for a generator whose state is set
    at once: the C constructor seeds cheaply from the small int it is given, and
    ``random.Random.__init__`` (a second, Python, seeding) is skipped. Once the state is set
    its draws are those of ``random.Random``."""

    def __init__(self, seed: int = 0) -> None:  # deliberately no Python seeding: setstate follows
        pass


def fresh_rng_state(rng: random.Random) -> RngState:
    """A new generator state drawn from ``rng``: what a determinization puts in place of the
    game's generator, so a search cannot foresee the real future draws."""
    return random.Random(rng.getrandbits(64)).getstate()


def rng_from_state(rng_state: RngState) -> random.Random:
    """A generator standing at ``rng_state``. Not ``random.Random()``: that first reads the
    system's entropy, a system call that cost more than the draws of a whole action, and
    seeds again in Python, only for ``setstate`` to overwrite it all."""
    rng = _Generator(0)
    rng.setstate(rng_state)
    return rng


def whole_number(value: Any, name: str, low: int, high: int) -> int:
    """``value`` from a snapshot, checked to be a JSON integer from ``low`` to ``high``."""
    if type(value) is not int or not low <= value <= high:
        raise InvalidSnapshot(f"{name} must be a whole number from {low} to {high}")
    return value


def json_list(value: Any, name: str, length: int | None = None) -> list[Any]:
    """``value`` from a snapshot, checked to be a JSON list (of ``length`` items if given)."""
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise InvalidSnapshot(f"{name} must be a list" + ("" if length is None else f" of {length}"))
    return value


def check_new_game(
    game: str, players: Any, seed: Any, options: Any, *, low: int, high: int, known: Sequence[str]
) -> dict[str, Any]:
    """The arguments every ``new_game`` takes, checked: a player count from ``low`` to
    ``high``, a whole-number or string seed, options an object naming only ``known`` ones.
    The options as a dict; ``game`` names the game in messages ("Pirates is for 3 to 5
    players")."""
    if type(players) is not int or not low <= players <= high:
        raise InvalidOptions(f"{game} is for {low} to {high} players, not {players!r}")
    if type(seed) not in (int, str):
        raise InvalidOptions("seed must be a whole number or a string")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise InvalidOptions("options must be an object")
    unknown = sorted(map(str, set(options) - set(known)))
    if unknown:
        raise InvalidOptions(f"Unknown options: {', '.join(unknown)}; known: {', '.join(known)}")
    return options


def check_snapshot_header(
    data: Any, keys: Collection[str], game: str, *, rules_id: str, version: int
) -> None:
    """A snapshot (``dump``) is an object with exactly ``keys``, of this rule set and version."""
    if not isinstance(data, dict) or set(data) != set(keys):
        raise InvalidSnapshot(f"a {game} snapshot must be an object with the keys " + ", ".join(sorted(keys)))
    if data["rules"] != rules_id or data["version"] != version:
        raise InvalidSnapshot(
            f"this snapshot is of {data['rules']!r} version {data['version']!r}, "
            f"not {rules_id!r} version {version}"
        )


def view_header(rules_id: str, version: int, title: str, viewer: int | None) -> dict[str, JSON]:
    """The keys every view starts with: which rule set and version, its title, whose view."""
    return {"rules": rules_id, "version": version, "title": title, "viewer": viewer}
