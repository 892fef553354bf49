"""Sending with no lock or transaction open (games/emails/sending.py), against PostgreSQL and a
real SMTP server (aiosmtpd) that a test can hold open mid-send or make refuse a message.

The email is claimed in a short transaction (the game check runs there), sent with nothing
open, then recorded. A move is never held up by the mail server; a claim left by a sender that
died mid-send is taken over after EMAIL_CLAIM_SECONDS and the email goes again as the same
message (the same Message-ID); a fresh claim makes any other sender back off.
"""

from __future__ import annotations

import asyncio
import smtplib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage as ParsedMessage
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.mail import EmailMessage
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.db import connection, connections, transaction
from django.db.models import F
from pytest_django.fixtures import Settings as SettingsWrapper

from games import emails
from games.emails import sending
from games.models import Game, Invitation, Notification
from games.services import game_create, game_start, seat_join
from tests import realservers
from tests.notifications.helpers import SITE, move
from tests.notifications.smtp_sink import Sink

WAIT = 30
Kind = Notification.Kind


@dataclass
class HeldSink(Sink):
    """An SMTP server's handler that keeps the DATA of messages to ``hold_for`` unanswered
    until the test releases them, and answers the next ``refuse`` messages with a 451."""

    hold_for: set[str] = field(default_factory=set)
    holding: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)
    refuse: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse > 0:
            self.refuse -= 1
            return "451 4.3.0 Try again later"
        if self.hold_for & set(envelope.rcpt_tos):
            self.holding.set()
            # The conversation stays open, as with a mail server answering slowly; the event
            # loop keeps serving other connections meanwhile.
            while not self.released.is_set():
                await asyncio.sleep(0.02)
        return await super().handle_DATA(server, session, envelope)


@dataclass
class Observed:
    in_transaction: list[bool] = field(default_factory=list)


OBSERVED = Observed()


class RecordingSmtpBackend(SmtpBackend):
    """Django's SMTP backend, noting whether the sending thread's connection is inside a
    transaction when it talks to the mail server."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        OBSERVED.in_transaction.append(connection.in_atomic_block)
        return int(super().send_messages(email_messages) or 0)


@pytest.fixture
def smtp(settings: SettingsWrapper) -> Iterator[HeldSink]:
    from aiosmtpd.controller import Controller

    sink = HeldSink()
    port = realservers.free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    OBSERVED.in_transaction.clear()
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", port, 120
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_CLAIM_SECONDS = 600
    try:
        yield sink
    finally:
        sink.released.set()
        controller.stop()


class Sender(threading.Thread):
    """``work`` on a thread of its own (its own database connection, as another worker has)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.work = work
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.work()
        except BaseException as exc:  # handed to the test, which asserts on it
            self.error = exc
        finally:
            connections.close_all()

    def outcome(self) -> Any:
        self.join(WAIT)
        assert not self.is_alive(), f"still running after {WAIT}s"
        if self.error is not None:
            raise self.error
        return self.result


def _started_game() -> tuple[Game, User]:
    """A running game of three people whose first turn email is not sent yet (the row gone):
    the test sends it. Returns the game and the person to act."""
    names = ("ann", "ben", "cal")
    people = [User.objects.create_user(n, f"{n}@example.test", "a-long-password-1") for n in names]
    game = game_create(creator=people[0], rules_id="pirates", players=3, title="Skull Bay")
    for person in people[1:]:
        seat_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, by=people[0])  # its turn email goes to locmem (conftest)
    game.refresh_from_db()
    Notification.objects.filter(game=game).delete()
    to_act = game.seats.select_related("user").get(position=game.to_act[0]).user
    assert to_act is not None
    return game, to_act


def _smtp_backend(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "tests.notifications.test_send_claims.RecordingSmtpBackend"


def _turn_note(game: Game, user: User) -> Notification:
    return Notification.objects.get(game=game, user=user, kind=Kind.TURN, key=str(game.seq))


def _to(sink: Sink, user: User) -> list[ParsedMessage]:
    return sink.matching(lambda m: m["To"] == user.email)


def _lockable_now(model_table: str, pk: int) -> bool:
    """Whether another connection can lock the row at once (nobody holds a lock on it)."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {model_table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
        return cursor.fetchone() is not None


@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_a_move_commits_while_the_mail_server_holds_the_turn_email_open(
    smtp: HeldSink, settings: SettingsWrapper, django_capture_on_commit_callbacks: Any
) -> None:
    game, first = _started_game()
    seq = game.seq
    _smtp_backend(settings)
    smtp.hold_for = {first.email}
    sender = Sender(lambda: emails.send_turn_emails(game_id=game.pk, seq=seq))
    sender.start()
    assert smtp.holding.wait(WAIT), "the turn email never reached the mail server"

    # Mid-send: nothing is locked, neither the game row (FOR SHARE until now) nor the row
    # being sent, and the sender has no transaction open.
    note = _turn_note(game, first)
    assert note.claimed_at is not None and note.sent_at is None and note.attempts == 1
    assert _lockable_now(Game._meta.db_table, game.pk)
    assert _lockable_now(Notification._meta.db_table, note.pk)
    assert OBSERVED.in_transaction == [False]

    # The player moves (another connection): it commits while the email is still held open.
    mover = Sender(lambda: move(django_capture_on_commit_callbacks, game))
    mover.start()
    moved = mover.outcome()
    assert moved.user_id == first.pk
    assert not smtp.released.is_set() and sender.is_alive()
    game.refresh_from_db()
    assert game.seq == seq + 1

    smtp.released.set()
    assert sender.outcome() == 1
    note.refresh_from_db()
    assert note.sent_at is not None and note.claimed_at is None and note.attempts == 1
    [message] = _to(smtp, first)
    assert message["Message-ID"] == sending.notification_message_id(note)
    assert message["Message-ID"].endswith("@pirates.test>")  # SITE_URL's host
    assert OBSERVED.in_transaction and not any(OBSERVED.in_transaction)


class Crash(BaseException):
    """The sending process dying right after the mail server accepted the message."""


@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_a_claim_left_by_a_crashed_sender_is_resent_with_the_same_message_id(
    smtp: HeldSink, settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, first = _started_game()
    _smtp_backend(settings)

    def crash(pk: int) -> None:
        raise Crash()

    monkeypatch.setattr(sending, "_record_sent", crash)
    with pytest.raises(Crash):
        emails.send_turn_emails(game_id=game.pk, seq=game.seq)
    monkeypatch.undo()
    note = _turn_note(game, first)
    assert note.sent_at is None and note.claimed_at is not None and note.attempts == 1
    assert len(_to(smtp, first)) == 1

    # Within the lease the claim may still be a sender at work: nothing is sent, and the
    # caller is told to try later.
    for _ in range(3):
        with pytest.raises(sending.SendInProgress):
            emails.send_turn_emails(game_id=game.pk, seq=game.seq)
    assert len(_to(smtp, first)) == 1

    # The clock moves past the lease: the claim is taken over and the email goes again.
    lease = timedelta(seconds=settings.EMAIL_CLAIM_SECONDS + 1)
    Notification.objects.filter(pk=note.pk).update(claimed_at=F("claimed_at") - lease)
    assert emails.send_turn_emails(game_id=game.pk, seq=game.seq) == 1
    assert emails.send_turn_emails(game_id=game.pk, seq=game.seq) == 0
    note.refresh_from_db()
    assert note.sent_at is not None and note.claimed_at is None and note.attempts == 2
    first_copy, second_copy = _to(smtp, first)
    assert first_copy["Message-ID"] == second_copy["Message-ID"] == sending.notification_message_id(note)
    assert first_copy["Subject"] == second_copy["Subject"] == "Your turn in Skull Bay"


@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_a_fresh_claim_by_a_concurrent_sender_makes_a_second_sender_send_nothing(
    smtp: HeldSink, settings: SettingsWrapper
) -> None:
    game, first = _started_game()
    seq = game.seq
    _smtp_backend(settings)
    smtp.hold_for = {first.email}
    busy = Sender(lambda: emails.send_turn_emails(game_id=game.pk, seq=seq))
    busy.start()
    assert smtp.holding.wait(WAIT)

    # A duplicate task (the outbox published the row again, a retry) while the first one is
    # talking to the mail server: it backs off, every time, and sends nothing.
    for _ in range(3):
        second = Sender(lambda: emails.send_turn_emails(game_id=game.pk, seq=seq))
        second.start()
        with pytest.raises(sending.SendInProgress):
            second.outcome()
    assert len(OBSERVED.in_transaction) == 1  # only the first sender reached the backend
    assert _turn_note(game, first).attempts == 1

    smtp.released.set()
    assert busy.outcome() == 1
    assert emails.send_turn_emails(game_id=game.pk, seq=seq) == 0  # the retry: already sent
    assert len(_to(smtp, first)) == 1
    assert _turn_note(game, first).attempts == 1


@pytest.mark.postgres
@pytest.mark.smtp
@pytest.mark.django_db(transaction=True)
def test_a_send_error_releases_the_claim_and_the_retry_sends_once(
    smtp: HeldSink, settings: SettingsWrapper
) -> None:
    game, first = _started_game()
    _smtp_backend(settings)
    smtp.refuse = 2
    for attempt in (1, 2):
        with pytest.raises(smtplib.SMTPDataError):
            emails.send_turn_emails(game_id=game.pk, seq=game.seq)
        note = _turn_note(game, first)
        # Released at once (no waiting out the lease), the attempt counted.
        assert note.claimed_at is None and note.sent_at is None and note.attempts == attempt
    assert _to(smtp, first) == []

    assert emails.send_turn_emails(game_id=game.pk, seq=game.seq) == 1
    assert emails.send_turn_emails(game_id=game.pk, seq=game.seq) == 0
    note = _turn_note(game, first)
    assert note.sent_at is not None and note.claimed_at is None and note.attempts == 3
    [message] = _to(smtp, first)
    assert message["Message-ID"] == sending.notification_message_id(note)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_turn_that_passed_before_the_claim_sends_nothing_and_leaves_no_row(
    settings: SettingsWrapper, django_capture_on_commit_callbacks: Any
) -> None:
    game, first = _started_game()
    seq = game.seq
    move(django_capture_on_commit_callbacks, game)
    assert emails.send_turn_emails(game_id=game.pk, seq=seq) == 0
    assert not Notification.objects.filter(game=game, user=first, key=str(seq)).exists()


# --- Message-IDs ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("site_url", "from_email", "domain"),
    [
        ("https://pirates.example.org", "Pirates <captain@mail.example.net>", "pirates.example.org"),
        ("https://Pirates.Example.org:8443/", "captain@mail.example.net", "pirates.example.org"),
        ("http://127.0.0.1:8000", "Pirates <captain@mail.example.net>", "mail.example.net"),
        ("http://[::1]:8000", "captain@mail.example.net", "mail.example.net"),
        ("http://localhost:8000", "Pirates by Mail <captain@pirates.localhost>", "localhost"),
    ],
)
def test_message_ids_use_the_sites_domain(
    settings: SettingsWrapper, site_url: str, from_email: str, domain: str
) -> None:
    settings.SITE_URL, settings.DEFAULT_FROM_EMAIL = site_url, from_email
    value = sending.message_id(Kind.TURN, "42")
    assert value.startswith("<pbm.turn.42.") and value.endswith(f"@{domain}>")
    assert sending.message_id(Kind.TURN, "42") == value  # fixed
    assert sending.message_id(Kind.TURN, "43") != value
    settings.SECRET_KEY = "another-deployment-" + "x" * 40
    assert sending.message_id(Kind.TURN, "42") != value


@pytest.mark.django_db
def test_an_invitation_to_an_address_without_account_has_a_message_id_fixed_by_the_invitation(
    settings: SettingsWrapper,
) -> None:
    from django.core import mail

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    anne = User.objects.create_user("anne", "anne@example.test", "a-long-password-1")
    game = game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")
    invitation = Invitation.objects.create(
        game=game, email="nobody@example.test", invited_by=anne, token="t" * 40
    )
    mail.outbox.clear()
    assert emails.send_invitation_now(invitation_id=invitation.pk)
    assert emails.send_invitation_now(invitation_id=invitation.pk)  # no row: a retry sends again
    first, second = (m.message()["Message-ID"] for m in mail.outbox)
    assert first == second == sending.message_id(Kind.INVITATION, f"i{invitation.pk}")
    assert first.endswith(f"@{SITE.removeprefix('http://')}>")
