"""Done when: a whole game played to the end by replies only, with a real SMTP
server where the mail travels. Every turn email and every answer goes out over SMTP to a
server this test runs; each player reads the latest email that asks for their move, replies
with a number from its list (now and then first a wrong number, and once the same message
twice), and the reply goes in through ``manage.py mail_ingest`` as a mail server's pipe
would deliver it."""

from __future__ import annotations

import io
import random
import sys
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from django.core.management import call_command
from pytest_django.fixtures import Settings as SettingsWrapper

from games.emails import thread_root_id
from games.emails.addresses import MoveAddress, read_address
from games.inbound.compose import reply_to
from games.models import Event, Game, Notification, Seat
from tests import realservers
from tests.inbound.helpers import MOVE_LINE, OnCommit, people, start_game
from tests.notifications.smtp_sink import Sink, smtp_server, text_of

MAX_TURNS = 400


@pytest.fixture
def sink(settings: SettingsWrapper) -> Iterator[Sink]:
    port = realservers.free_port()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_TIMEOUT = 5
    with smtp_server(port) as server:
        yield server


def _ingest(on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch, raw: bytes, recipient: str) -> str:
    """The mail server's pipe: the message on standard input, the envelope as arguments."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    out = io.StringIO()
    with on_commit(execute=True):
        call_command("mail_ingest", "--recipient", recipient, stdout=out)
    return out.getvalue().strip()


def _asking(sink: Sink, email: str) -> EmailMessage:
    """The latest email to ``email`` that asks for a move (it has a reply address)."""
    found = sink.matching(lambda m: m["To"] == email and m["Reply-To"] is not None)
    assert found, f"no email asking {email} for a move"
    return found[-1]


@pytest.mark.smtp
@pytest.mark.slow
@pytest.mark.django_db
def test_a_whole_game_is_played_by_replies_alone_over_smtp(
    on_commit: OnCommit, sink: Sink, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seats = {seat.position: seat for seat in Seat.objects.filter(game=game).select_related("user")}
    rng = random.Random(16)
    played = wrong = 0
    duplicate_sent = False
    for turn in range(MAX_TURNS):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        (position,) = game.to_act
        user = seats[position].user
        assert user is not None
        asking = _asking(sink, user.email)
        address = str(asking["Reply-To"])
        # The email in the player's inbox is for the position the game is in now.
        assert read_address(address) == MoveAddress(game.pk, position, game.seq)
        numbers = [int(number) for number, _label in MOVE_LINE.findall(text_of(asking))]
        assert numbers == list(range(1, len(numbers) + 1)), text_of(asking)
        if turn % 10 == 5:
            # A wrong number: the answer (over SMTP) says so and lists the moves again.
            outcome = _ingest(on_commit, monkeypatch, reply_to(asking, "999"), address)
            assert outcome == "problem (answer: problem)"
            answer = _asking(sink, user.email)
            assert answer["Auto-Submitted"] == "auto-replied" and "There is no move 999" in text_of(answer)
            assert [int(n) for n, _ in MOVE_LINE.findall(text_of(answer))] == numbers
            asking, wrong = answer, wrong + 1
        raw = reply_to(asking, str(rng.choice(numbers)))
        assert _ingest(on_commit, monkeypatch, raw, address) == "played (answer: played)"
        played += 1
        if not duplicate_sent:
            assert _ingest(on_commit, monkeypatch, raw, address) == "duplicate"
            duplicate_sent = True
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result is not None

    # Every move of the game was a person's reply: one action event each, nothing else.
    moves = Event.objects.filter(game=game).exclude(kind=Event.Kind.GAME_STARTED)
    assert set(moves.values_list("kind", flat=True)) <= {Event.Kind.ACTION, Event.Kind.AUTO_PASS}
    replies = moves.filter(kind=Event.Kind.ACTION)
    assert replies.count() == played
    assert all(key.startswith("mail:") for key in replies.values_list("idempotency_key", flat=True))
    # Every answer travelled: a confirmation per move, an answer per wrong number.
    answers = sink.matching(lambda m: m["Auto-Submitted"] == "auto-replied")
    assert len([m for m in answers if "is played in" in text_of(m)]) == played
    assert len(answers) == played + wrong
    sent = Notification.objects.filter(kind=Notification.Kind.ANSWER, sent_at__isnull=False)
    assert sent.count() == played + wrong
    assert len(sink.matching(lambda m: str(m["Subject"]).startswith("Game over"))) == 3
    # As they arrived over SMTP, each player's emails of the game thread under one root (answers
    # name the reply they answer after it), and none of them invites an automatic response.
    for seat in seats.values():
        player = seat.user
        assert player is not None
        theirs = [m for m in sink.received() if m["To"] == player.email]
        assert {str(m["References"]).split()[0] for m in theirs} == {thread_root_id(game.pk, player.pk)}
        assert {str(m["X-Auto-Response-Suppress"]) for m in theirs} == {"All"}
        assert {str(m["Auto-Submitted"]) for m in theirs} == {"auto-generated", "auto-replied"}
