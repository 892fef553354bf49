"""Helpers for the notification tests: players, started games, moves and email parsing."""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.core.mail.backends.base import BaseEmailBackend

from engine.bots import choose_action
from games.models import Game, PlayerProfile, Seat
from games.services import action_submit, game_create, game_start, load_state, rules_for, seat_join

SITE = "http://pirates.test"
URL = re.compile(r"https?://[^\s<>\"']+")

OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


def make_user(name: str, notify: str | None = None) -> User:
    user = User.objects.create_user(name, f"{name}@example.test", "a-long-password-1")
    if notify is not None:
        PlayerProfile.objects.create(user=user, notify=notify)
    return user


def start_game(
    on_commit: OnCommit,
    people: list[User],
    *,
    bots: int = 0,
    policy: str = Game.TimeoutPolicy.BOT,
    title: str = "Skull Bay",
) -> Game:
    """A started game of Pirates with ``people`` seated (and ``bots``), side effects run."""
    with on_commit(execute=True):
        game = game_create(
            creator=people[0], rules_id="pirates", players=len(people) + bots, bot_seats=bots,
            title=title, timeout_policy=policy,
        )
        for person in people[1:]:
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=people[0])
    game.refresh_from_db()
    return game


def person_to_act(game: Game) -> Seat:
    game.refresh_from_db()
    seat = Seat.objects.select_related("user").get(game=game, position=game.to_act[0])
    assert seat.user is not None and not seat.replaced_by_bot
    return seat


def move(on_commit: OnCommit, game: Game) -> Seat:
    """The person to act plays the greedy move through the service; returns their seat."""
    seat = person_to_act(game)
    state = load_state(game)
    action = choose_action(rules_for(game), state, seat.position, "greedy", random.Random(game.seq))
    assert seat.user is not None
    with on_commit(execute=True):
        action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return seat


def sent() -> list[EmailMultiAlternatives]:
    return [m for m in mail.outbox if isinstance(m, EmailMultiAlternatives)]


def html_of(message: EmailMultiAlternatives) -> str:
    return next(str(content) for content, kind in message.alternatives if kind == "text/html")


def links(message: EmailMultiAlternatives) -> list[str]:
    return URL.findall(str(message.body))


def clear_outbox() -> None:
    mail.outbox.clear()


class SlowDummyBackend(BaseEmailBackend):
    """Takes a while per email (SLOW_MAIL_SECONDS, default 0.05), as a remote mail server does,
    and keeps nothing. For worker processes: the race between sending a turn email and the
    next move needs a real window, and a worker killed mid-send needs a send to kill."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        time.sleep(float(os.environ.get("SLOW_MAIL_SECONDS") or 0.05) * len(email_messages))
        return len(email_messages)
