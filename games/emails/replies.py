"""A seat's legal moves, numbered for an email.

The numbers follow the table plugin's grouping (``Table.move_groups``: Pirates groups by
party, the generic table by kind of move), 1..n in the order the groups and their moves come.
Everything is recomputed from the game's state at a seq, so the number in a reply to the
email written at that seq maps back to the same action without storing the list anywhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.core.mail import EmailMultiAlternatives

from games.emails.addresses import move_address, replies_enabled
from games.models import Game
from games.services.state import load_state, rules_for
from games.tables import table_for


@dataclass(frozen=True)
class NumberedMove:
    number: int
    label: str
    action: dict[str, Any]


@dataclass(frozen=True)
class NumberedGroup:
    label: str
    hint: str
    moves: list[NumberedMove]


@dataclass(frozen=True)
class MoveList:
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


def numbered_moves(game: Game, position: int, seq: int) -> MoveList:
    """``position``'s legal moves in ``game`` after event ``seq``, numbered; empty when that
    seat was not to act then (or the game had not started)."""
    if seq < 1 or seq > game.seq:
        return MoveList()
    rules = rules_for(game)
    state = load_state(game, seq)
    if position not in rules.to_act(state):
        return MoveList()
    legal = rules.legal_actions(state, position)
    view = rules.view(state, position)
    groups: list[NumberedGroup] = []
    number = 0
    for group in table_for(game.rules_id).move_groups(legal, view):
        moves = []
        for move in group.moves:
            number += 1
            moves.append(NumberedMove(number, move.label, json.loads(move.action)))
        if moves:
            groups.append(NumberedGroup(group.label, group.hint, moves))
    return MoveList(groups)


def reply_context(game: Game, position: int, seq: int) -> dict[str, Any]:
    """What an email asking ``position`` for a move at ``seq`` adds to its template context:
    the numbered moves (``moves``) and the signed address a reply goes to (``reply_address``,
    "" when replies are off or there is nothing to play)."""
    moves = numbered_moves(game, position, seq)
    address = move_address(game.pk, position, seq) if moves and replies_enabled() else ""
    return {"moves": moves, "reply_address": address}


def with_reply_to(message: EmailMultiAlternatives, context: dict[str, Any]) -> EmailMultiAlternatives:
    """``message`` with its Reply-To set to the context's reply address, if it has one."""
    if context.get("reply_address"):
        message.reply_to = [context["reply_address"]]
    return message
