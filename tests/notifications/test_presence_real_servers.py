"""Presence defers a turn email; it never cancels one (games/presence.py), with the real
servers: a Celery worker and Celery beat on Redis, sharing the PostgreSQL test database, and
sending through an SMTP server this test starts.

She sits at a table with a bot (her tab polls), finishes her turn and closes the tab; the bot
answers at once, while she still counts as at the table. Her turn email arrives all the same,
once she has been gone ``PRESENCE_SECONDS``: the turn task re-arms its row, and beat's relay
(and, failing that, its sweep) sends it.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from engine.bots import choose_action
from games import presence
from games.models import Event, Game, Notification, Outbox, PlayerProfile, Seat
from games.services import action_submit, game_create, game_start, load_state, rules_for
from tests import realservers
from tests.conftest import CeleryWorker
from tests.notifications.smtp_sink import Sink, smtp_server, wait_until

WAIT = 90


@pytest.fixture
def smtp_port() -> int:
    return realservers.free_port()


@pytest.fixture
def presence_env(smtp_port: int) -> dict[str, str]:
    """Short presence and sweep times for the worker and beat, bots at once, our SMTP server."""
    return {
        "PRESENCE_SECONDS": "4",
        "SWEEP_INTERVAL_SECONDS": "1",
        "OUTBOX_RELAY_SECONDS": "1",
        "BOT_MOVE_DELAY_SECONDS": "0",
        "TURN_EMAIL_GRACE_SECONDS": "0",
        "EMAIL_HOST": "127.0.0.1",
        "EMAIL_PORT": str(smtp_port),
        "EMAIL_TIMEOUT": "5",
    }


@pytest.fixture
def celery_worker_env(presence_env: dict[str, str]) -> dict[str, str]:
    return presence_env


@pytest.fixture
def sink(smtp_port: int) -> Iterator[Sink]:
    with smtp_server(smtp_port) as server:
        yield server


@pytest.fixture
def beat(celery_worker: CeleryWorker, presence_env: dict[str, str], tmp_path: Path) -> Iterator[Path]:
    """Celery beat (``celery -A pirates_site beat``) with the worker's settings."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=realservers.shared_test_database_url(),
        DJANGO_DEBUG="1",
        VAR_DIR=str(tmp_path / "beat-var"),
        CELERY_TASK_ALWAYS_EAGER="0",
        **presence_env,
    )
    log = tmp_path / "beat.log"
    schedule = tmp_path / "celerybeat-schedule"
    command = [sys.executable, "-m", "celery", "-A", "pirates_site", "beat", "--loglevel=INFO",
               f"--schedule={schedule}"]
    with realservers.started(command, env, log, "beat: Starting", 60):
        yield log


def her_turn(game_id: int, position: int) -> bool:
    return position in Game.objects.values_list("to_act", flat=True).get(pk=game_id)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.celery_worker
@pytest.mark.smtp
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_she_leaves_the_bot_answers_at_once_and_her_turn_email_arrives(
    sink: Sink, celery_worker: CeleryWorker, beat: Path
) -> None:
    her = User.objects.create_user("anne", "anne@example.test", "a-long-password-1")
    PlayerProfile.objects.create(user=her, notify=PlayerProfile.Notify.WHEN_AWAY)
    game = game_create(creator=her, rules_id="captain-lucky", players=2, bot_seats=1)
    game = game_start(game_id=game.pk, by=her)
    seat = Seat.objects.get(game=game, user=her)
    # Her turn (the worker plays the bot's first turn if it begins); her tab is open.
    presence.seat_seen(seat)
    wait_until(lambda: her_turn(game.pk, seat.position), WAIT, "her turn")
    game.refresh_from_db()
    rng = random.Random(7)
    moved = Event.objects.filter(game=game).count()
    while seat.position in game.to_act:  # her whole turn, at the table
        seat.refresh_from_db()
        presence.seat_seen(seat)
        action = choose_action(rules_for(game), load_state(game), seat.position, "random", rng)
        action_submit(game_id=game.pk, user=her, action=action, expected_seq=game.seq)
        game.refresh_from_db()
    assert Event.objects.filter(game=game).count() > moved
    # The tab is closed: no more polls. The worker plays the bot's answer at once.
    wait_until(lambda: her_turn(game.pk, seat.position), WAIT, "the bot's answer")
    game.refresh_from_db()
    answered_at = game.seq
    assert Event.objects.get(game=game, seq=answered_at).kind == Event.Kind.BOT

    def her_email() -> list[EmailMessage]:
        return sink.matching(lambda m: m["To"] == her.email and m["X-Game-Seq"] == str(answered_at))

    found = wait_until(her_email, WAIT, "her turn email, once she counts as away")
    assert len(found) == 1
    note = Notification.objects.get(game=game, user=her, kind=Notification.Kind.TURN, key=str(answered_at))
    # The send is recorded once the mail server has taken it, a moment after the sink has it.
    wait_until(lambda: Notification.objects.get(pk=note.pk).sent_at is not None, WAIT, "the send recorded")
    # The turn's row was kept for her while she counted as at the table, then done.
    row = Outbox.objects.get(game=game, kind=Outbox.Kind.TURN, key=answered_at)
    wait_until(lambda: Outbox.objects.get(pk=row.pk).status == Outbox.Status.DONE, WAIT, "the row done")
    # Beat and the worker go on; the email is not sent twice.
    assert len(her_email()) == 1
