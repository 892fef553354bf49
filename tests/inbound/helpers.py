"""Helpers of the reply-by-email tests: games, the emails players get, and replies to them
written as mail clients write them."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMultiAlternatives

from games.inbound.compose import reply_to
from games.inbound.handle import Outcome, receive
from games.inbound.parse import parse
from games.models import Game, Seat
from games.services import game_create, game_start, seat_join

SITE = "http://pirates.test"
REPLY_DOMAIN = "reply.pirates.test"
MAIL = Path(__file__).parent / "mail"
MOVE_LINE = re.compile(r"^\s+(\d+)\. (.+)$", re.MULTILINE)

OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


def people(*names: str) -> list[User]:
    # No password: hashing one costs a second here, and replies by mail need none.
    return [User.objects.create_user(name, f"{name}@example.test") for name in names]


def start_game(
    on_commit: OnCommit, players: list[User], *, rules_id: str = "pirates", bots: int = 0,
    title: str = "Skull Bay",
) -> Game:
    """A started game with ``players`` seated (and ``bots``), its first turn emails sent."""
    with on_commit(execute=True):
        game = game_create(creator=players[0], rules_id=rules_id, players=len(players) + bots,
                           bot_seats=bots, title=title)
        for person in players[1:]:
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=players[0])
    game.refresh_from_db()
    return game


def seat_to_act(game: Game) -> Seat:
    game.refresh_from_db()
    return Seat.objects.select_related("user").get(game=game, position=game.to_act[0])


def sent() -> list[EmailMultiAlternatives]:
    return [m for m in mail.outbox if isinstance(m, EmailMultiAlternatives)]


def html_of(message: EmailMultiAlternatives) -> str:
    return next(str(content) for content, kind in message.alternatives if kind == "text/html")


def turn_emails(user: User) -> list[EmailMultiAlternatives]:
    return [m for m in sent() if m.to == [user.email] and m.subject.startswith("Your turn in")]


def latest_turn_email(user: User) -> EmailMultiAlternatives:
    found = turn_emails(user)
    assert found, f"no turn email for {user.get_username()}"
    return found[-1]


def answers_to(user: User) -> list[EmailMultiAlternatives]:
    return [
        m for m in sent() if m.to == [user.email] and m.extra_headers.get("Auto-Submitted") == "auto-replied"
    ]


def numbered(text: str) -> dict[int, str]:
    """The numbered moves an email's text lists."""
    return {int(number): label for number, label in MOVE_LINE.findall(text)}


def as_received(message: EmailMultiAlternatives) -> EmailMessage:
    """A sent email as the player's mail client receives it."""
    return parse(message.message().as_bytes())


def client_reply(message: EmailMultiAlternatives, text: str, *, sender: str | None = None) -> bytes:
    return reply_to(as_received(message), text, sender=sender)


def from_fixture(
    name: str, *, sender: str, to: str, reply: str, answering: EmailMultiAlternatives | None = None,
    message_id: str | None = None,
) -> bytes:
    """A reply written by a real mail client (tests/inbound/mail/<name>.eml), filled in."""
    original_id = str(answering.message()["Message-ID"]) if answering is not None else "<none@pirates.test>"
    text = (MAIL / f"{name}.eml").read_text()
    for placeholder, value in {
        "{{FROM}}": sender,
        "{{TO}}": to,
        "{{REPLY}}": reply,
        "{{REPLY_HTML}}": reply,
        "{{IN_REPLY_TO}}": original_id,
        "{{IN_REPLY_ID}}": original_id.strip("<>"),
        "{{MESSAGE_ID}}": message_id or uuid.uuid4().hex,
    }.items():
        text = text.replace(placeholder, value)
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode()


def reply_address(message: EmailMultiAlternatives) -> str:
    assert len(message.reply_to) == 1, message.reply_to
    return str(message.reply_to[0])


def deliver(on_commit: OnCommit, raw: bytes, **kwargs: Any) -> Outcome:
    """Deliver a message as the MTA pipe would, and run what its commit queues."""
    with on_commit(execute=True):
        return receive(raw, **kwargs)
