"""Table talk: the players of a game write short lines to each other.

Chat is not part of the game's log: it changes nothing in the game, so it is neither
hash-chained nor replayed. Only the game's seated players may write; whoever may see the
game may read it (spectators of a public game too, like the table itself).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from games import rows, side_effects
from games.models import ChatMessage, Game, Seat, person_name
from games.services.errors import Conflict, Forbidden, InvalidInput

MAX_LENGTH = 500
SHOWN = 30


def chat_post(*, game: Game, user: User, text: object) -> ChatMessage:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("Write something first.")
    text = " ".join(text.split())
    if len(text) > MAX_LENGTH:
        raise InvalidInput(f"A chat line has at most {MAX_LENGTH} characters.")
    if not Seat.objects.filter(game=game, user=user).exists():
        raise Forbidden("Only the game's players can talk at its table.")
    if game.status == Game.Status.ABORTED:
        raise Conflict("The game was aborted.")
    with transaction.atomic():
        message = ChatMessage.objects.create(game=game, user=user, text=text)
        side_effects.after_chat(game.pk, message.pk)
    return message


def chat_version(game: Game) -> int:
    """The newest line's id (0 without any): the table's live version includes it."""
    return int(ChatMessage.objects.filter(game=game).aggregate(last=Max("id"))["last"] or 0)


def chat_lines(game: Game, limit: int = SHOWN, since_seq: int | None = None) -> list[dict[str, Any]]:
    """The latest lines, oldest first; with ``since_seq``, only those written after event
    ``since_seq`` (a player's last move: what a turn email tells them)."""
    latest = rows.chat_rows(game.pk, limit, since_seq)
    return [
        {"id": line.pk, "user": line.user.get_username(), "name": person_name(line.user), "text": line.text,
         "created_at": line.created_at}
        for line in reversed(latest)
    ]
