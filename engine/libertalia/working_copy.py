"""The working copy a step changes, and the log of what it did.

A step runs the whole procedure on a :class:`Table`, which shares the state's tuples and
copies into lists only the parts the step changes, and freezes the result into a new state;
the input state is never touched. The :class:`Log` collects one sentence per event, with a
private variant where an event is secret to all but one seat (a Sunrise pick, a Surgeon's
return), or none at all for a step whose sentences nobody reads (``Rules.apply``).
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Sequence

from engine.base import RngState, rng_from_state
from engine.libertalia.characters import COLOURS, CharacterSet
from engine.libertalia.state import NOBODY, Character, Layout, LibertaliaState, left_of, right_of

# What ``Rules.reveals`` says of a step that shows something hidden or draws at random,
# as a clause that reads after "This move is final: ".
PICK_REVEALED = "your pick is revealed with the others"  # L-SUN-1, L-SUN-2
PARROT_SHOWS_OWN = "it shows a card from your hand"  # L-CHAR-1: public at once
PARROT_SHOWS = "a card from a hand goes on the ship"  # L-CHAR-1, decided by the engine
SURGEON_OWN = "the card your Surgeon returns stays secret"  # L-CHAR-22
SURGEON_SECRET = "a Surgeon returns a card in secret"  # L-CHAR-22, decided by the engine
SPY_DRAWS = "a Spanish Spy draws from the bag"  # L-CHAR-17
NEXT_CAMPAIGN = "it ends the campaign: the next one is dealt"  # L-END, L-CAMP-2, L-CAMP-3


class Log:
    """Sentences in order; each may have a different wording for some seats.

    ``Log(text=False)`` keeps no sentences: ``Rules.apply`` and ``Rules.reveals`` want only
    the new state (and ``revealed``), and composing every sentence for every audience was a
    third of a replayed action. Code that builds a sentence at some cost asks ``log.text``
    first; ``add`` drops whatever reaches it from a silent log."""

    __slots__ = ("entries", "revealed", "text")

    def __init__(self, text: bool = True) -> None:
        self.entries: list[tuple[str, dict[int, str] | None]] = []
        # The first thing the step showed that was hidden, or drew at random, as the clause
        # ``Rules.reveals`` answers; None while the step showed nothing hidden.
        self.revealed: str | None = None
        self.text = text

    def reveal(self, reason: str) -> None:
        if self.revealed is None:
            self.revealed = reason

    def add(self, text: str, private: dict[int, str] | None = None) -> None:
        if self.text:
            self.entries.append((text, private))

    def public(self) -> str:
        return " ".join(text for text, _ in self.entries)

    def private_seats(self) -> list[int]:
        return sorted({seat for _, private in self.entries if private for seat in private})

    def for_seat(self, seat: int) -> str:
        return " ".join(
            private[seat] if private and seat in private else text for text, private in self.entries
        )


# A seat as players read it, by colour index: "Yellow".
SEAT_NAMES = tuple(colour.capitalize() for colour in COLOURS)


class _Silent(Log):
    """The log of ``Rules.apply``: no sentences, and nobody asks what was revealed. It keeps
    nothing, so one instance serves every call."""

    __slots__ = ()

    def reveal(self, reason: str) -> None:
        pass

    def add(self, text: str, private: dict[int, str] | None = None) -> None:
        pass


SILENT: Log = _Silent(text=False)


def plural(name: str, count: int) -> str:
    if count == 1 or name.endswith("s"):
        return name
    return name + "s"


def booty_words(chars: CharacterSet, kind: int, count: int = 1) -> str:
    """Booty as the log names it: "a jewel", "goods", "3 chests"."""
    name = chars.booty_name[kind]
    if count != 1:
        return f"{count} {plural(name, count)}"
    if name.endswith("s"):
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def listing(parts: list[str]) -> str:
    """ "a, b and c"; "nothing" for no parts."""
    if not parts:
        return "nothing"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def doubloons(count: int) -> str:
    return f"{count} doubloon" + ("" if count == 1 else "s")


# A table's parts are the state's tuples until changed, then lists: typed as read-only
# sequences, so that a change that skips the writers below is a type error.
Rows = Sequence[Sequence[int]]
_new_state = tuple.__new__


def _rows(rows: Rows) -> tuple[tuple[int, ...], ...]:
    """Rows as the state holds them: untouched rows stay the state's own tuples."""
    return rows if type(rows) is tuple else tuple(map(tuple, rows))


class Table:
    """The working copy of a state; attribute names and meanings are the state's.

    Copy on write: every attribute starts as the state's own tuple, shared, and becomes a list
    only when the step changes it, through the writers below (``hand(seat)``, ``den(seat)``,
    ``purse(seat)`` …, which turn the outer tuple and that one row into lists). ``freeze``
    builds tuples again only of what changed, so an action pays for what it touches, not for
    the whole state. Readers read the attributes directly, tuples or lists alike; a reader
    that keeps a row must read it again after a writer ran (the writer may have replaced it).
    """

    __slots__ = (
        "_rng",
        "actions",
        "actor",
        "bag",
        "booty",
        "campaign",
        "chars",
        "colours",
        "day",
        "dealt",
        "decision",
        "dens",
        "doubloons",
        "fixed_draws",
        "fixed_layouts",
        "fixed_ranks",
        "fortunes",
        "graves",
        "hands",
        "night",
        "officer",
        "phase",
        "picks",
        "picks_left",
        "players",
        "removed",
        "rng_state",
        "ship",
        "spaces",
    )

    chars: CharacterSet
    players: int
    colours: tuple[int, ...]
    campaign: int
    day: int
    phase: str
    dealt: Sequence[tuple[int, ...]]
    hands: Rows
    picks: Sequence[int]
    ship: Sequence[Character]
    dens: Rows
    graves: Rows
    removed: Rows
    booty: Rows
    doubloons: Sequence[int]
    spaces: Rows
    bag: Sequence[int]
    actor: Character
    decision: str
    picks_left: int
    officer: bool
    night: Sequence[bool]
    fortunes: Sequence[tuple[int, ...]]
    fixed_ranks: tuple[tuple[int, ...], ...]
    fixed_layouts: tuple[Layout, ...]
    fixed_draws: tuple[int, ...]
    actions: int
    rng_state: RngState

    def __init__(self, state: LibertaliaState, rng: random.Random | None = None) -> None:
        """``rng``: the game's generator standing at ``state.rng_state``, when it is at hand
        (new_game), so that it is not rebuilt from that state."""
        (
            self.chars,
            self.players,
            self.colours,
            self.campaign,
            self.day,
            self.phase,
            self.dealt,
            self.hands,
            self.picks,
            self.ship,
            self.dens,
            self.graves,
            self.removed,
            self.booty,
            self.doubloons,
            self.spaces,
            self.bag,
            self.actor,
            self.decision,
            self.picks_left,
            self.officer,
            self.night,
            self.fortunes,
            self.fixed_ranks,
            self.fixed_layouts,
            self.fixed_draws,
            self.actions,
            self.rng_state,
        ) = state
        self._rng: random.Random | None = rng

    def freeze(self) -> LibertaliaState:
        rng_state = self.rng_state if self._rng is None else self._rng.getstate()
        # Positional, in LibertaliaState's field order (tuple.__new__ skips the keyword
        # handling of the NamedTuple's constructor).
        return _new_state(
            LibertaliaState,
            (
                self.chars,
                self.players,
                self.colours,
                self.campaign,
                self.day,
                self.phase,
                tuple(self.dealt),
                self.hands if type(self.hands) is tuple else _rows(self.hands),
                tuple(self.picks),
                tuple(self.ship),
                self.dens if type(self.dens) is tuple else _rows(self.dens),
                self.graves if type(self.graves) is tuple else _rows(self.graves),
                self.removed if type(self.removed) is tuple else _rows(self.removed),
                self.booty if type(self.booty) is tuple else _rows(self.booty),
                tuple(self.doubloons),
                self.spaces if type(self.spaces) is tuple else _rows(self.spaces),
                tuple(self.bag),
                self.actor,
                self.decision,
                self.picks_left,
                self.officer,
                tuple(self.night),
                tuple(self.fortunes),
                self.fixed_ranks,
                self.fixed_layouts,
                self.fixed_draws,
                self.actions,
                rng_state,
            ),
        )

    # Writers: the one row (or list) a change needs, as a list of this table's own.
    # (The five row writers are one pattern written out: they run several times per action,
    # and a shared helper's call cost more than the rest of them.)
    def hand(self, seat: int) -> list[int]:
        rows = self.hands
        if type(rows) is tuple:
            rows = self.hands = list(rows)
        row = rows[seat]
        if type(row) is tuple:
            row = rows[seat] = list(row)  # type: ignore[index]
        return row  # type: ignore[return-value]

    def den(self, seat: int) -> list[int]:
        rows = self.dens
        if type(rows) is tuple:
            rows = self.dens = list(rows)
        row = rows[seat]
        if type(row) is tuple:
            row = rows[seat] = list(row)  # type: ignore[index]
        return row  # type: ignore[return-value]

    def grave(self, seat: int) -> list[int]:
        rows = self.graves
        if type(rows) is tuple:
            rows = self.graves = list(rows)
        row = rows[seat]
        if type(row) is tuple:
            row = rows[seat] = list(row)  # type: ignore[index]
        return row  # type: ignore[return-value]

    def purse(self, seat: int) -> list[int]:
        """``seat``'s booty counts, to change."""
        rows = self.booty
        if type(rows) is tuple:
            rows = self.booty = list(rows)
        row = rows[seat]
        if type(row) is tuple:
            row = rows[seat] = list(row)  # type: ignore[index]
        return row  # type: ignore[return-value]

    def space(self, index: int) -> list[int]:
        """Day-space ``index`` (0-based), to change."""
        rows = self.spaces
        if type(rows) is tuple:
            rows = self.spaces = list(rows)
        row = rows[index]
        if type(row) is tuple:
            row = rows[index] = list(row)  # type: ignore[index]
        return row  # type: ignore[return-value]

    def ship_w(self) -> list[Character]:
        if type(self.ship) is tuple:
            self.ship = list(self.ship)
        return self.ship  # type: ignore[return-value]

    def bag_w(self) -> list[int]:
        if type(self.bag) is tuple:
            self.bag = list(self.bag)
        return self.bag  # type: ignore[return-value]

    def picks_w(self) -> list[int]:
        if type(self.picks) is tuple:
            self.picks = list(self.picks)
        return self.picks  # type: ignore[return-value]

    def night_w(self) -> list[bool]:
        if type(self.night) is tuple:
            self.night = list(self.night)
        return self.night  # type: ignore[return-value]

    def doubloons_w(self) -> list[int]:
        if type(self.doubloons) is tuple:
            self.doubloons = list(self.doubloons)
        return self.doubloons  # type: ignore[return-value]

    # The generator is rebuilt only when a step draws (campaign setup, Spanish Spy).
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = rng_from_state(self.rng_state)
        return self._rng

    # Names, in the game's words.
    def name(self, seat: int) -> str:
        return SEAT_NAMES[self.colours[seat]]

    def card(self, rank: int) -> str:
        """A card of one's own: "the Captain (rank 29)"."""
        return f"the {self.chars.name[rank]} (rank {rank})"

    def character(self, seat: int, rank: int) -> str:
        """A character of anyone's: "Green's Captain"."""
        return f"{SEAT_NAMES[self.colours[seat]]}'s {self.chars.name[rank]}"

    def token(self, kind: int, count: int = 1) -> str:
        return booty_words(self.chars, kind, count)

    def tokens(self, counts: Sequence[int]) -> str:
        return listing([self.token(k, n) for k, n in enumerate(counts) if n])

    # The order of the ship (L-ORD).
    def key(self, seat: int, rank: int) -> int:
        return rank * 8 + self.chars.influence[self.colours[seat]][rank]  # state.key, inlined

    def board(self, seat: int, rank: int) -> None:
        """Put a character on the ship at its key (L-ORD-2)."""
        influence = self.chars.influence
        colours = self.colours
        new = rank * 8 + influence[colours[seat]][rank]
        ship = self.ship_w()
        index = 0
        for s, r in ship:
            if r * 8 + influence[colours[s]][r] >= new:
                break
            index += 1
        ship.insert(index, (seat, rank))

    def highest(self) -> Character:
        """L-ORD-3: the ship is kept in key order, so the last one."""
        return self.ship[-1] if self.ship else NOBODY

    def neighbours(self, seat: int) -> list[int]:
        """L-SET-2: left and right, once each (with two players both are the other)."""
        return sorted({left_of(self.players, seat), right_of(self.players, seat)})

    # Doubloons (L-DBL).
    def gain(self, seat: int, amount: int) -> int:
        self.doubloons_w()[seat] += amount
        return amount

    def lose(self, seat: int, amount: int) -> int:
        """L-DBL-2: a loss takes at most what is held; returns what was actually lost."""
        lost = min(amount, self.doubloons[seat])
        if lost:
            self.doubloons_w()[seat] -= lost
        return lost

    # Characters and tokens moving between zones (L-ZONE).
    def to_grave(self, seat: int, rank: int) -> None:
        insort(self.grave(seat), rank)

    def discard_from_den(self, seat: int, rank: int) -> None:
        self.den(seat).remove(rank)
        self.to_grave(seat, rank)

    def discard_from_ship(self, character: Character) -> None:
        self.ship_w().remove(character)
        self.to_grave(*character)

    def to_hand(self, seat: int, rank: int) -> None:
        insort(self.hand(seat), rank)

    def to_bag(self, seat: int, kind: int, count: int) -> None:
        """L-ZONE-4: discarded tokens go back to the bag at once."""
        self.purse(seat)[kind] -= count
        self.bag_w()[kind] += count

    def held(self, seat: int) -> int:
        return sum(self.booty[seat])

    def bag_list(self) -> list[int]:
        """L-RNG-1: the bag listed in booty_order."""
        return [kind for kind, count in enumerate(self.bag) for _ in range(count)]
