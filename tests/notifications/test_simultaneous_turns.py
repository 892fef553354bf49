"""Simultaneous turns in the service (Libertalia's Sunrise, L-SUN-1, L-DEC-2): every
seat that must choose gets its own turn email and deadline, another seat's choice moves
neither, reminders go only to the seats that have not chosen (once), and a timeout makes a bot
choose once for each late seat; a decision that follows from those choices is a new turn."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone

from games import tasks
from games.models import Event, Game, Seat
from games.services import timeouts
from tests.notifications.helpers import OnCommit, make_user, sent
from tests.web.libertalia_support import DEAL3, libertalia_game, play, seat_users

pytestmark = pytest.mark.django_db

# Campaign 1 without any Day decision before the Dusk; day-space 1 holds an officer and two
# maps, so the owner of the highest character must choose at Dusk (L-DUSK-2).
DEAL: dict[str, Any] = {**DEAL3, "ranks": [[2, 3, 5, 7, 9, 10, 12, 16, 29]]}


def _start(on_commit: OnCommit) -> Game:
    people = [make_user(name) for name in ("anne", "bart", "cleo")]
    with on_commit(execute=True):
        game = libertalia_game(people, DEAL, title="Sunrise Cove")
    game.refresh_from_db()
    return game


def _turn_emails() -> dict[str, int]:
    counts: dict[str, int] = {}
    for message in sent():
        if message.subject.startswith("Your turn"):
            counts[message.to[0]] = counts.get(message.to[0], 0) + 1
    return counts


def _sweep(on_commit: OnCommit) -> dict[str, int]:
    with on_commit(execute=True):
        result: dict[str, int] = tasks.sweep.delay().get()
    return result


def test_every_seat_to_choose_gets_its_own_turn_email_and_keeps_its_deadline(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    game = _start(django_capture_on_commit_callbacks)
    users = seat_users(game)
    assert game.to_act == [0, 1, 2]
    assert _turn_emails() == {user.email: 1 for user in users.values()}
    deadline, reminder = game.deadline, game.reminder_at
    assert deadline is not None and reminder is not None
    with django_capture_on_commit_callbacks(execute=True):
        play(game, users[0], {"type": "play", "rank": 2})
    assert game.to_act == [1, 2]
    assert list(Seat.objects.filter(game=game, must_act=True).values_list("position", flat=True)) == [1, 2]
    # Another seat's choice neither emails the others again nor moves their deadline.
    assert _turn_emails() == {user.email: 1 for user in users.values()}
    assert (game.deadline, game.reminder_at) == (deadline, reminder)
    with django_capture_on_commit_callbacks(execute=True):
        play(game, users[1], {"type": "play", "rank": 3})
    assert game.to_act == [2] and (game.deadline, game.reminder_at) == (deadline, reminder)


def test_reminders_go_once_to_the_seats_that_have_not_chosen(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    game = _start(django_capture_on_commit_callbacks)
    users = seat_users(game)
    with django_capture_on_commit_callbacks(execute=True):
        play(game, users[0], {"type": "play", "rank": 2})
    mail.outbox.clear()
    Game.objects.filter(pk=game.pk).update(reminder_at=timezone.now() - timedelta(minutes=1))
    assert _sweep(django_capture_on_commit_callbacks)["reminders"] == 1
    reminded = sorted(m.to[0] for m in sent() if m.subject.startswith("Reminder"))
    assert reminded == sorted([users[1].email, users[2].email])
    # Bart chooses; Cleo, still to choose, is not reminded a second time for this Sunrise.
    with django_capture_on_commit_callbacks(execute=True):
        play(game, users[1], {"type": "play", "rank": 3})
    assert game.reminder_at is None
    mail.outbox.clear()
    assert _sweep(django_capture_on_commit_callbacks)["reminders"] == 0 and not sent()


def test_a_timeout_makes_a_bot_choose_once_for_each_late_seat(
    django_capture_on_commit_callbacks: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anne chooses; Bart and Cleo are late: the bot chooses for each, once (here the Beggar
    and the Captain, fixed so that the reveal is known). The Captain, highest on the ship,
    then owes the Dusk pick: a new turn for Cleo, with her own email and a new deadline,
    which the sweep leaves alone."""
    game = _start(django_capture_on_commit_callbacks)
    users = seat_users(game)
    with django_capture_on_commit_callbacks(execute=True):
        play(game, users[0], {"type": "play", "rank": 2})
    chosen = {1: {"type": "play", "rank": 3}, 2: {"type": "play", "rank": 29}}
    monkeypatch.setattr(timeouts, "timeout_action", lambda game, rules, state, seat: chosen[seat])
    mail.outbox.clear()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert _sweep(django_capture_on_commit_callbacks)["timeouts"] == 1
    game.refresh_from_db()
    timeout_events = Event.objects.filter(game=game, kind=Event.Kind.TIMEOUT)
    late = list(timeout_events.values_list("seat", "payload__action"))
    assert late == [(1, chosen[1]), (2, chosen[2])]
    timed_out = dict(Seat.objects.filter(game=game).values_list("position", "consecutive_timeouts"))
    assert timed_out == {0: 0, 1: 1, 2: 1}
    # The reveal led to Cleo's Dusk pick: her turn, emailed, with a deadline of its own.
    assert game.to_act == [2]
    assert game.deadline is not None and game.deadline > timezone.now() + timedelta(hours=1)
    assert _turn_emails() == {users[2].email: 1}
    assert _sweep(django_capture_on_commit_callbacks)["timeouts"] == 0
    assert Event.objects.filter(game=game, kind=Event.Kind.TIMEOUT).count() == 2
