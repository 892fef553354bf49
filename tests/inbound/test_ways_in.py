"""The MTA pipe (``manage.py mail_ingest``), hosted providers' inbound
webhooks through django-anymail with the provider's signature checked, and the development
outbox's reply box, each delivering a reply that plays a move."""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import sys
import time
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import OperationalError
from django.http import HttpResponseBase
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games.emails.addresses import read_address
from games.inbound.parse import parse
from games.mail import outbox_entries
from games.models import Event, Game
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    latest_turn_email,
    people,
    reply_address,
    seat_to_act,
    start_game,
)

pytestmark = pytest.mark.django_db

HOOK_AUTH = "hook:s3cret-webhook-password"
MAILGUN_KEY = "mailgun-signing-key-for-tests"


def _game(on_commit: OnCommit) -> tuple[Game, bytes, str]:
    """A started game and a reply with "1" to the first player's turn email."""
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    return game, client_reply(email, "1"), reply_address(email)


def _stdin(monkeypatch: pytest.MonkeyPatch, raw: bytes) -> io.BytesIO:
    stream = io.BytesIO(raw)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stream))
    return stream


# --- the MTA pipe ------------------------------------------------------------------------------


def test_mail_ingest_reads_one_message_on_standard_input_and_plays_it(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, raw, address = _game(on_commit)
    _stdin(monkeypatch, raw)
    out = io.StringIO()
    with on_commit(execute=True):
        call_command("mail_ingest", "--recipient", address, "--sender", "anne@example.test", stdout=out)
    assert out.getvalue().strip() == "played (answer: played)"
    assert Event.objects.filter(game=game).count() == game.seq + 1


def test_mail_ingest_ignores_a_message_over_the_size_limit_and_reads_it_all(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch, settings: SettingsWrapper
) -> None:
    game, raw, _address = _game(on_commit)
    settings.INBOUND_MAX_BYTES = 64 * 1024
    big = raw + b"\r\n" + b"x" * (300 * 1024)
    stream = _stdin(monkeypatch, big)
    out = io.StringIO()
    mail.outbox.clear()
    call_command("mail_ingest", stdout=out)
    assert out.getvalue().strip() == "too_large"
    assert stream.tell() == len(big)  # drained: the mail server sees the message taken
    assert Event.objects.filter(game=game).count() == game.seq and mail.outbox == []


def test_mail_ingest_asks_the_mail_server_to_retry_when_the_database_is_down(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    _game_row, raw, _address = _game(on_commit)
    _stdin(monkeypatch, raw)

    def database_down(*args: object, **kwargs: object) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr("games.management.commands.mail_ingest.receive", database_down)
    with pytest.raises(SystemExit) as exited:
        call_command("mail_ingest", stdout=io.StringIO(), stderr=io.StringIO())
    assert exited.value.code == 75  # EX_TEMPFAIL: Postfix and Exim keep the message and retry


# --- hosted providers (django-anymail) ---------------------------------------------------------


def _mailgun_post(raw: bytes, recipient: str, *, key: str = MAILGUN_KEY) -> dict[str, str]:
    timestamp, token = str(int(time.time())), "a" * 50
    signature = hmac.new(key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    return {"body-mime": raw.decode(), "recipient": recipient, "sender": "anne@example.test",
            "timestamp": timestamp, "token": token, "signature": signature}


def _basic(auth: str = HOOK_AUTH) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(auth.encode()).decode()}


def _post_mailgun(client: Client, raw: bytes, address: str) -> HttpResponseBase:
    return client.post("/mail/inbound/mailgun/", _mailgun_post(raw, address), headers=_basic())


@pytest.fixture
def hooks(settings: SettingsWrapper) -> None:
    settings.ANYMAIL = {"WEBHOOK_SECRET": HOOK_AUTH, "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


def test_a_mailgun_post_with_a_valid_signature_plays_the_move(
    on_commit: OnCommit, client: Client, hooks: None
) -> None:
    game, raw, address = _game(on_commit)
    with on_commit(execute=True):
        response = client.post("/mail/inbound/mailgun/", _mailgun_post(raw, address), headers=_basic())
    assert response.status_code == 200
    assert Event.objects.filter(game=game).count() == game.seq + 1
    # Delivered again (providers retry): the same move is not played twice.
    with on_commit(execute=True):
        again = client.post("/mail/inbound/mailgun/", _mailgun_post(raw, address), headers=_basic())
    assert again.status_code == 200
    assert Event.objects.filter(game=game).count() == game.seq + 1


@pytest.mark.parametrize("forgery", ["signature", "basic_auth"])
def test_a_provider_post_that_fails_its_checks_changes_nothing(
    on_commit: OnCommit, client: Client, hooks: None, forgery: str
) -> None:
    game, raw, address = _game(on_commit)
    data = _mailgun_post(raw, address, key="not-the-key" if forgery == "signature" else MAILGUN_KEY)
    auth = _basic("hook:wrong" if forgery == "basic_auth" else HOOK_AUTH)
    mail.outbox.clear()
    with on_commit(execute=True):
        response = client.post("/mail/inbound/mailgun/", data, headers=auth)
    assert response.status_code == 400
    assert Event.objects.filter(game=game).count() == game.seq and mail.outbox == []


def test_the_webhooks_do_not_exist_until_configured(
    on_commit: OnCommit, client: Client, settings: SettingsWrapper
) -> None:
    game, raw, address = _game(on_commit)
    settings.ANYMAIL = {}
    assert _post_mailgun(client, raw, address).status_code == 404
    # The secret alone does not open Mailgun's, whose own signing key is missing.
    settings.ANYMAIL = {"WEBHOOK_SECRET": HOOK_AUTH}
    assert _post_mailgun(client, raw, address).status_code == 404
    assert client.post("/mail/inbound/nosuch/", {}, headers=_basic()).status_code == 404
    assert Event.objects.filter(game=game).count() == game.seq


def test_a_postmark_post_plays_the_move(
    on_commit: OnCommit, client: Client, hooks: None
) -> None:
    game, raw, address = _game(on_commit)
    seat = seat_to_act(game)
    assert seat.user is not None
    reply = parse(raw)
    body = reply.get_body(preferencelist=("plain",))
    assert body is not None
    payload = {
        "FromFull": {"Email": seat.user.email, "Name": seat.user.get_username()},
        "ToFull": [{"Email": address, "Name": ""}],
        "OriginalRecipient": address,
        "Subject": str(reply["Subject"]),
        "MessageID": "73e6d360-66eb-11e1-8e72-a8904824019b",
        "Date": str(reply["Date"]),
        "TextBody": body.get_content(),
        "HtmlBody": "",
        "Headers": [
            {"Name": "Return-Path", "Value": f"<{seat.user.email}>"},
            {"Name": "Message-ID", "Value": str(reply["Message-ID"])},
        ],
    }
    with on_commit(execute=True):
        response = client.post(
            "/mail/inbound/postmark/", json.dumps(payload), content_type="application/json", headers=_basic()
        )
    assert response.status_code == 200
    assert Event.objects.filter(game=game).count() == game.seq + 1
    assert len(answers_to(seat.user)) == 1


def test_a_provider_post_over_the_size_limit_is_taken_unread(
    on_commit: OnCommit, client: Client, hooks: None, settings: SettingsWrapper
) -> None:
    game, raw, address = _game(on_commit)
    settings.INBOUND_MAX_BYTES = 16 * 1024
    data = _mailgun_post(raw + b"\r\n" + b"x" * (80 * 1024), address)
    response = client.post("/mail/inbound/mailgun/", data, headers=_basic())
    assert response.status_code == 200  # taken, so the provider does not retry it
    assert Event.objects.filter(game=game).count() == game.seq


# --- the development outbox's reply box -------------------------------------------------------


def test_the_outbox_reply_box_delivers_a_reply_like_a_mail_client(
    on_commit: OnCommit, client: Client, settings: SettingsWrapper, tmp_path: Path
) -> None:
    settings.EMAIL_BACKEND = "games.mail.OutboxEmailBackend"
    settings.EMAIL_OUTBOX_DIR = tmp_path / "outbox"
    settings.DEV_OUTBOX_PAGE = True
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    (turn,) = outbox_entries()
    assert read_address(turn.reply_to) is not None
    page = client.get(f"/dev/outbox/{turn.name}/")
    assert b'name="text"' in page.content and f"/dev/outbox/{turn.name}/reply/".encode() in page.content

    with on_commit(execute=True):
        response = client.post(f"/dev/outbox/{turn.name}/reply/", {"text": "2"}, follow=True)

    assert response.redirect_chain[-1][0] == "/dev/outbox/"
    assert b"Your move was played" in response.content
    assert Event.objects.filter(game=game).count() == game.seq + 1
    subjects = [entry.subject for entry in outbox_entries()]
    assert "Re: Your turn in Skull Bay" in subjects  # the confirmation
    assert subjects.count("Your turn in Skull Bay") == 2  # and the next player's turn
    # Emails without a reply address get no box, and the box is a development page only.
    settings.DEV_OUTBOX_PAGE = False
    assert client.post(f"/dev/outbox/{turn.name}/reply/", {"text": "2"}).status_code == 404
