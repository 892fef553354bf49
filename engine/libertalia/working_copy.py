"""The working copy a step changes, and the log of what it did.

A step copies the state's tuples into lists once (:class:`Table`), runs the whole procedure
on them, and freezes the result into a new state; the input state is never touched. The
:class:`Log` collects one sentence per event, with a private variant where an event is
secret to all but one seat (a Sunrise pick, a Surgeon's return).
"""

from __future__ import annotations

import random
from bisect import insort

from engine.base import rng_from_state
from engine.libertalia.characters import COLOURS, CharacterSet
from engine.libertalia.state import NOBODY, Character, LibertaliaState, key, left_of, right_of

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
    """Sentences in order; each may have a different wording for some seats."""

    __slots__ = ("entries", "revealed")

    def __init__(self) -> None:
        self.entries: list[tuple[str, dict[int, str] | None]] = []
        # The first thing the step showed that was hidden, or drew at random, as the clause
        # ``Rules.reveals`` answers; None while the step showed nothing hidden.
        self.revealed: str | None = None

    def reveal(self, reason: str) -> None:
        if self.revealed is None:
            self.revealed = reason

    def add(self, text: str, private: dict[int, str] | None = None) -> None:
        self.entries.append((text, private))

    def public(self) -> str:
        return " ".join(text for text, _ in self.entries)

    def private_seats(self) -> list[int]:
        return sorted({seat for _, private in self.entries if private for seat in private})

    def for_seat(self, seat: int) -> str:
        return " ".join(
            private[seat] if private and seat in private else text for text, private in self.entries
        )


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


class Table:
    """The mutable copy of a state; attribute names and meanings are the state's."""

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

    def __init__(self, state: LibertaliaState) -> None:
        self.chars: CharacterSet = state.chars
        self.players = state.players
        self.colours = state.colours
        self.campaign = state.campaign
        self.day = state.day
        self.phase = state.phase
        self.dealt = list(state.dealt)
        self.hands = [list(h) for h in state.hands]
        self.picks = list(state.picks)
        self.ship: list[Character] = list(state.ship)
        self.dens = [list(d) for d in state.dens]
        self.graves = [list(g) for g in state.graves]
        self.removed = [list(r) for r in state.removed]
        self.booty = [list(b) for b in state.booty]
        self.doubloons = list(state.doubloons)
        self.spaces = [list(s) for s in state.spaces]
        self.bag = list(state.bag)
        self.actor: Character = state.actor
        self.decision = state.decision
        self.picks_left = state.picks_left
        self.officer = state.officer
        self.night = list(state.night)
        self.fortunes = list(state.fortunes)
        self.fixed_ranks = state.fixed_ranks
        self.fixed_layouts = state.fixed_layouts
        self.fixed_draws = state.fixed_draws
        self.actions = state.actions
        self.rng_state = state.rng_state
        self._rng: random.Random | None = None

    def freeze(self) -> LibertaliaState:
        rng_state = self.rng_state if self._rng is None else self._rng.getstate()
        return LibertaliaState(
            chars=self.chars,
            players=self.players,
            colours=self.colours,
            campaign=self.campaign,
            day=self.day,
            phase=self.phase,
            dealt=tuple(self.dealt),
            hands=tuple(map(tuple, self.hands)),
            picks=tuple(self.picks),
            ship=tuple(self.ship),
            dens=tuple(map(tuple, self.dens)),
            graves=tuple(map(tuple, self.graves)),
            removed=tuple(map(tuple, self.removed)),
            booty=tuple(map(tuple, self.booty)),
            doubloons=tuple(self.doubloons),
            spaces=tuple(map(tuple, self.spaces)),
            bag=tuple(self.bag),
            actor=self.actor,
            decision=self.decision,
            picks_left=self.picks_left,
            officer=self.officer,
            night=tuple(self.night),
            fortunes=tuple(self.fortunes),
            fixed_ranks=self.fixed_ranks,
            fixed_layouts=self.fixed_layouts,
            fixed_draws=self.fixed_draws,
            actions=self.actions,
            rng_state=rng_state,
        )

    # The generator is rebuilt only when a step draws (campaign setup, Spanish Spy).
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = rng_from_state(self.rng_state)
        return self._rng

    # Names, in the game's words.
    def name(self, seat: int) -> str:
        return COLOURS[self.colours[seat]].capitalize()

    def card(self, rank: int) -> str:
        """A card of one's own: "the Captain (rank 29)"."""
        return f"the {self.chars.name[rank]} (rank {rank})"

    def character(self, seat: int, rank: int) -> str:
        """A character of anyone's: "Green's Captain"."""
        return f"{self.name(seat)}'s {self.chars.name[rank]}"

    def token(self, kind: int, count: int = 1) -> str:
        return booty_words(self.chars, kind, count)

    def tokens(self, counts: list[int] | tuple[int, ...]) -> str:
        return listing([self.token(k, n) for k, n in enumerate(counts) if n])

    # The order of the ship (L-ORD).
    def key(self, seat: int, rank: int) -> int:
        return key(self.chars, self.colours, seat, rank)

    def board(self, seat: int, rank: int) -> None:
        """Put a character on the ship at its key (L-ORD-2)."""
        new = self.key(seat, rank)
        index = 0
        while index < len(self.ship) and self.key(*self.ship[index]) < new:
            index += 1
        self.ship.insert(index, (seat, rank))

    def highest(self) -> Character:
        """L-ORD-3: the ship is kept in key order, so the last one."""
        return self.ship[-1] if self.ship else NOBODY

    def neighbours(self, seat: int) -> list[int]:
        """L-SET-2: left and right, once each (with two players both are the other)."""
        return sorted({left_of(self.players, seat), right_of(self.players, seat)})

    # Doubloons (L-DBL).
    def gain(self, seat: int, amount: int) -> int:
        self.doubloons[seat] += amount
        return amount

    def lose(self, seat: int, amount: int) -> int:
        """L-DBL-2: a loss takes at most what is held; returns what was actually lost."""
        lost = min(amount, self.doubloons[seat])
        self.doubloons[seat] -= lost
        return lost

    # Characters and tokens moving between zones (L-ZONE).
    def to_grave(self, seat: int, rank: int) -> None:
        insort(self.graves[seat], rank)

    def discard_from_den(self, seat: int, rank: int) -> None:
        self.dens[seat].remove(rank)
        self.to_grave(seat, rank)

    def discard_from_ship(self, character: Character) -> None:
        self.ship.remove(character)
        self.to_grave(*character)

    def to_hand(self, seat: int, rank: int) -> None:
        insort(self.hands[seat], rank)

    def to_bag(self, seat: int, kind: int, count: int) -> None:
        """L-ZONE-4: discarded tokens go back to the bag at once."""
        self.booty[seat][kind] -= count
        self.bag[kind] += count

    def held(self, seat: int) -> int:
        return sum(self.booty[seat])

    def bag_list(self) -> list[int]:
        """L-RNG-1: the bag listed in booty_order."""
        return [kind for kind, count in enumerate(self.bag) for _ in range(count)]
