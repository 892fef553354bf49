"""A seat's legal moves, numbered for an email, and where a reply with a number goes.

The numbers are the read model's (``games.read.table``: the table plugin's grouping,
``Table.move_groups``, 1..n in the order the groups and their moves come), fixed when the
first email listing them is written: the list is stored (``ListedMoves``, one per game, seat
and seq, the three things a reply address names) and every later email for that position,
and every reply to one, reads it back. So a deploy that changes a table's grouping never
renumbers the moves of an email already sent.
"""

from __future__ import annotations

from typing import Any

from django.core.mail import EmailMultiAlternatives

from games import rows
from games.emails.addresses import move_address, replies_enabled
from games.models import Game, ListedMoves
from games.read import MoveList, seat_table
from games.read.table import NumberedGroup, NumberedMove

__all__ = ["MoveList", "NumberedGroup", "NumberedMove", "listed_moves", "numbered_moves", "reply_context"]


def _stored(game: Game, position: int, seq: int) -> MoveList | None:
    row = rows.listed_moves_row(game.pk, position, seq)
    return MoveList.from_json(row.moves) if row is not None else None


def numbered_moves(game: Game, position: int, seq: int) -> MoveList:
    """``position``'s moves in ``game`` after event ``seq`` as its emails list them: as stored
    when an email listed them, else numbered by the read model now (computed once). Empty
    when that seat was not to act then (or the game had not started)."""
    if seq < 1 or seq > game.seq:
        return MoveList()
    stored = _stored(game, position, seq)
    if stored is not None:
        return stored
    return seat_table(game, position, seq=seq).moves


def listed_moves(game: Game, position: int, seq: int) -> MoveList:
    """``numbered_moves`` for an email being written: the first to list them stores them, so
    every later email and reply at that position numbers them the same."""
    if seq < 1 or seq > game.seq:
        return MoveList()
    stored = _stored(game, position, seq)
    if stored is not None:
        return stored
    moves = seat_table(game, position, seq=seq).moves
    listed = ListedMoves(game=game, position=position, seq=seq, moves=moves.to_json())
    if moves and not rows.insert_once(listed):  # another email stored them a moment ago: theirs count
        return _stored(game, position, seq) or moves
    return moves


def reply_context(game: Game, position: int, seq: int) -> dict[str, Any]:
    """What an email asking ``position`` for a move at ``seq`` adds to its template context:
    the numbered moves (``moves``, stored as listed) and the signed address a reply goes to
    (``reply_address``, "" when replies are off or there is nothing to play)."""
    moves = listed_moves(game, position, seq)
    address = move_address(game.pk, position, seq) if moves and replies_enabled() else ""
    return {"moves": moves, "reply_address": address}


def with_reply_to(message: EmailMultiAlternatives, context: dict[str, Any]) -> EmailMultiAlternatives:
    """``message`` with its Reply-To set to the context's reply address, if it has one."""
    if context.get("reply_address"):
        message.reply_to = [context["reply_address"]]
    return message
