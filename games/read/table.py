"""A seat's table: what one seat (or a spectator) sees of a game at a seq, the seat's moves
numbered and grouped the way its table plugin groups them, what each will do, and whom the
game waits for.

This is the one place that puts these together: the HTML table and its live updates, the
replay's frames, the API's game detail, the turn emails and the answers to replies all read a
``SeatTable``. The table plugin (``games.tables``) decides how moves are grouped and worded
(``move_groups``, ``action_label``, ``preview``, ``final``); this module only asks it.
Nothing here is computed before it is asked for: the API's detail pays for previews only
when the caller's seat is to act (its ``moves``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from engine.base import Rules
from games.models import Game
from games.read.state import load_state, rules_for
from games.tables import Table, table_for
from games.tables.base import colour_name


@dataclass(frozen=True)
class NumberedMove:
    number: int
    label: str
    action: dict[str, Any]
    # Its place among the legal actions of the table that numbered it (its preview's too);
    # None for a move read back from a stored list.
    index: int | None = None


@dataclass(frozen=True)
class NumberedGroup:
    label: str
    hint: str
    moves: list[NumberedMove]


@dataclass(frozen=True)
class MoveList:
    """A seat's moves numbered 1..n in the order the groups and their moves come."""

    groups: list[NumberedGroup] = field(default_factory=list)

    @property
    def moves(self) -> list[NumberedMove]:
        return [move for group in self.groups for move in group.moves]

    def __len__(self) -> int:
        return sum(len(group.moves) for group in self.groups)

    def __bool__(self) -> bool:
        return len(self) > 0

    def number(self, number: int) -> NumberedMove | None:
        return next((move for move in self.moves if move.number == number), None)

    @property
    def pass_move(self) -> NumberedMove | None:
        """The move that passes, where passing is legal."""
        return next((move for move in self.moves if move.action.get("type") == "pass"), None)

    def to_json(self) -> list[dict[str, Any]]:
        """The list as stored with the emails that show it (``from_json`` reads it back)."""
        return [
            {"label": group.label, "hint": group.hint,
             "moves": [{"number": m.number, "label": m.label, "action": m.action} for m in group.moves]}
            for group in self.groups
        ]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> MoveList:
        return cls([
            NumberedGroup(str(group["label"]), str(group["hint"]), [
                NumberedMove(int(move["number"]), str(move["label"]), dict(move["action"]))
                for move in group["moves"]
            ])
            for group in data
        ])


class SeatTable:
    """The game after event ``seq`` as seat ``position`` sees it (None: a spectator, or the
    replay's everyone view). ``playing`` is False for a seat a bot plays: it sees its view
    and is offered no moves."""

    def __init__(
        self, game: Game, position: int | None, *, seq: int | None = None, playing: bool = True
    ) -> None:
        self.game = game
        self.position = position
        self.seq = game.seq if seq is None else seq
        self.playing = playing and position is not None
        self.table: Table = table_for(game.rules_id)

    @cached_property
    def rules(self) -> Rules[Any]:
        return rules_for(self.game)

    @cached_property
    def state(self) -> Any:
        return load_state(self.game, self.seq)

    @cached_property
    def view(self) -> dict[str, Any]:
        return dict(self.rules.view(self.state, self.position))

    @cached_property
    def to_act(self) -> list[int]:
        """The seats the game waits for at ``seq``."""
        return list(self.rules.to_act(self.state))

    @cached_property
    def legal_actions(self) -> list[dict[str, Any]]:
        """The seat's legal actions in the engine's order; empty unless it is to act at ``seq``
        (and, at the latest seq, the game is running)."""
        if not self.playing or (self.seq == self.game.seq and not self.game.is_running):
            return []
        assert self.position is not None
        if self.position not in self.to_act:
            return []
        return [dict(action) for action in self.rules.legal_actions(self.state, self.position)]

    @cached_property
    def previews(self) -> list[str]:
        """What each legal action will do (the table's ``preview``), by legal action."""
        assert self.position is not None or not self.legal_actions
        return [
            self.table.preview(action, self.view, rules=self.rules, state=self.state, seat=self.position or 0)
            for action in self.legal_actions
        ]

    @cached_property
    def finals(self) -> list[str]:
        """What the confirm step says of each legal action that cannot be taken back ("" for
        one that can), by legal action."""
        return [
            self.table.final(action, rules=self.rules, state=self.state, seat=self.position or 0)
            for action in self.legal_actions
        ]

    @cached_property
    def controls(self) -> list[Any]:
        """What the table's controls template draws (the table's ``controls``), with previews."""
        return self.table.controls(self.legal_actions, self.view, self.previews) if self.legal_actions else []

    @cached_property
    def moves(self) -> MoveList:
        """The legal actions numbered 1..n in the table's grouping (``move_groups``)."""
        groups: list[NumberedGroup] = []
        number = 0
        legal = self.legal_actions
        for group in self.table.move_groups(legal, self.view) if legal else []:
            moves = []
            for move in group.moves:
                number += 1
                moves.append(NumberedMove(number, move.label, dict(legal[move.index]), move.index))
            if moves:
                groups.append(NumberedGroup(group.label, group.hint, moves))
        return MoveList(groups)

    @cached_property
    def move_rows(self) -> list[dict[str, Any]]:
        """The numbered moves as the API lists them: ``number`` and ``label`` as ``moves``
        (the turn email's numbering), the ``group`` each is in, what it will do (``preview``)
        and the ``action`` to send. Empty unless the seat is to act."""
        if not self.legal_actions:
            return []
        previews = self.previews
        return [
            {"number": move.number, "group": group.label, "label": move.label,
             "preview": previews[move.index] if move.index is not None else "", "action": move.action}
            for group in self.moves.groups
            for move in group.moves
        ]

    def waiting_for(self, names: dict[int, str], to_act: list[int] | None = None) -> list[dict[str, Any]]:
        """Whom the game waits for, with the name and colour each is shown with."""
        colours = list(self.view.get("colours") or [])
        return [
            {"seat": s, "name": names.get(s, f"Seat {s}"), "colour": colours[s] if s < len(colours) else "",
             "colour_name": colour_name(colours, s)}
            for s in (self.to_act if to_act is None else to_act)
        ]


def seat_table(
    game: Game, position: int | None, *, seq: int | None = None, playing: bool = True
) -> SeatTable:
    """``position``'s table in ``game`` after event ``seq`` (default: the latest). The game
    must have started (``seq`` from 1 to ``game.seq``)."""
    target = game.seq if seq is None else seq
    if target < 1 or target > game.seq:
        raise ValueError(f"seq {target} is outside 1..{game.seq}")
    return SeatTable(game, position, seq=target, playing=playing)
