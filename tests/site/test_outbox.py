"""The development outbox: every email written to var/outbox, listed and shown on a page."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.mail import EmailMultiAlternatives, get_connection
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper


@pytest.fixture
def outbox_dir(settings: SettingsWrapper, tmp_path: Path) -> Path:
    settings.EMAIL_OUTBOX_DIR = tmp_path / "outbox"
    settings.DEV_OUTBOX_PAGE = True
    return tmp_path / "outbox"


def _send(subject: str) -> None:
    connection = get_connection("games.mail.OutboxEmailBackend")
    message = EmailMultiAlternatives(
        subject, "It is your turn.\nhttps://example.test/g/1", to=["anne@example.test"], connection=connection
    )
    message.attach_alternative("<p>It is <b>your turn</b>.</p>", "text/html")
    assert message.send() == 1


@pytest.mark.django_db
def test_outbox_lists_and_shows_sent_email(client: Client, outbox_dir: Path) -> None:
    _send("Your turn in Game 7")
    files = list(outbox_dir.glob("*.eml"))
    assert len(files) == 1
    listing = client.get("/dev/outbox/")
    assert listing.status_code == 200
    assert b"Your turn in Game 7" in listing.content
    assert b"anne@example.test" in listing.content
    detail = client.get(f"/dev/outbox/{files[0].name}/")
    assert detail.status_code == 200
    assert b"It is your turn." in detail.content
    html = client.get(f"/dev/outbox/{files[0].name}/html/")
    assert html.status_code == 200
    assert b"<b>your turn</b>" in html.content
    assert "sandbox" in html["Content-Security-Policy"]


@pytest.mark.django_db
def test_outbox_refuses_paths_outside_the_folder(client: Client, outbox_dir: Path) -> None:
    _send("x")
    assert client.get("/dev/outbox/..%2F..%2Fsettings.py/").status_code == 404
    assert client.get("/dev/outbox/nope.eml/").status_code == 404


@pytest.mark.django_db
def test_outbox_page_absent_in_production(client: Client, settings: SettingsWrapper) -> None:
    settings.DEV_OUTBOX_PAGE = False
    assert client.get("/dev/outbox/").status_code == 404
