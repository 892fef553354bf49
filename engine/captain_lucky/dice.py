"""The game's generator between rolls, without reading its state back after every roll.

A state's ``rng_state`` is either ``random.Random.getstate()`` (after setup, after ``load``) or a
``DiceTrail``: "that state, then ``rolls`` throws of one die". Reading 625 words back out of the
generator cost about 8 us per roll; a trail is read out only when someone asks for its value
(``dump``, equality), and the generator it stands on is handed to the next roll directly.

A trail is an immutable value: it equals, and hashes as, the ``getstate()`` tuple it stands
for, and copies of it are itself. Its generator is shared along one line of play: the first
roll from a trail takes it (a claim popped from a dict, one caller only); any other roll from
the same trail (a second branch: step after apply, a bot trying moves) rebuilds the generator
from the trail's origin and throws the same dice again, at most ``_REBASE`` of them.
"""

from __future__ import annotations

import random
from typing import Any

from engine.base import RngState, rng_from_state

DIE_FACES = 6  # K-TURN-7: every draw of play is one randrange(6)

# After this many throws since its origin a trail reads the generator's state once and starts
# again from there, so a second branch never throws more than this many dice to catch up.
_REBASE = 48


class DiceTrail:
    __slots__ = ("_origin", "_rng", "_rolls", "_stand", "_state")

    def __init__(
        self,
        origin: RngState,
        rolls: int,
        rng: random.Random | None,
        stand: dict[int, DiceTrail] | None = None,
    ) -> None:
        self._origin = origin
        self._rolls = rolls
        self._rng = rng
        # Its one entry, id(trail) -> trail, names the trail the generator stands at; shared
        # along the line of play.
        self._stand: dict[int, DiceTrail] = {} if stand is None else stand
        self._state: RngState | None = origin if rolls == 0 else None

    def getstate(self) -> RngState:
        """The ``random.Random.getstate()`` this trail stands for."""
        state = self._state
        if state is None:
            stand = self._stand
            if self._rng is not None and stand.pop(id(self), None) is self:
                state = self._rng.getstate()
                stand[id(self)] = self
            else:
                rng = rng_from_state(self._origin)
                draw = rng.randrange
                for _ in range(self._rolls):
                    draw(DIE_FACES)
                state = rng.getstate()
            self._state = state
        return state

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiceTrail):
            return self is other or self.getstate() == other.getstate()
        if isinstance(other, tuple):
            return self.getstate() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.getstate())

    def __repr__(self) -> str:
        return f"DiceTrail({self.getstate()!r})"

    def __copy__(self) -> DiceTrail:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> DiceTrail:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (DiceTrail, (self.getstate(), 0, None))


GeneratorState = RngState | DiceTrail


def plain_state(rng_state: GeneratorState) -> RngState:
    """The ``getstate()`` tuple of either form."""
    return rng_state.getstate() if type(rng_state) is DiceTrail else rng_state  # type: ignore[return-value]


def throw(
    rng_state: GeneratorState, dice: tuple[bool, ...], which: list[int], heads: int
) -> tuple[tuple[bool, ...], DiceTrail]:
    """K-TURN-7: one ``randrange(6)`` per thrown die, in die order, faces below ``heads`` being
    heads; the dice after the throw and the trail the generator stands at then."""
    rng = None
    if type(rng_state) is DiceTrail:
        trail: DiceTrail = rng_state
        stand = trail._stand
        if trail._rng is not None and stand.pop(id(trail), None) is trail:
            rng = trail._rng
            origin, rolls = trail._origin, trail._rolls
        else:
            origin, rolls, stand = trail.getstate(), 0, {}
    else:
        origin, rolls, stand = rng_state, 0, {}  # type: ignore[assignment]
    if rng is None:
        rng = rng_from_state(origin)
    rolled = list(dice)
    draw = rng.randrange
    for i in which:
        rolled[i] = draw(DIE_FACES) < heads
    rolls += len(which)
    if rolls > _REBASE:
        origin, rolls = rng.getstate(), 0
    after = DiceTrail(origin, rolls, rng, stand)
    stand[id(after)] = after
    return tuple(rolled), after
