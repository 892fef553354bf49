"""Development stays on the machine: the dev server listens on 127.0.0.1 unless PIRATES_HOST says
otherwise, and the dev outbox (everyone's log-in links and reply boxes) refuses any client that
is not on this machine, also with DEBUG on."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from django.core.mail import EmailMessage, get_connection
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games.views.site import OUTBOX_LOOPBACK_ONLY
from tests.realservers import ROOT


def procfile_web_line() -> str:
    lines = (ROOT / "Procfile.dev").read_text().splitlines()
    (web,) = [line.removeprefix("web:").strip() for line in lines if line.startswith("web:")]
    return web


def dev_web_command(**env: str) -> subprocess.CompletedProcess[str]:
    """What Procfile.dev's web line (the one scripts/dev starts) would run, with ``env``."""
    base = {k: v for k, v in os.environ.items() if k not in {"PIRATES_HOST", "PIRATES_PORT"}}
    return subprocess.run(
        ["bash", "-c", f"{procfile_web_line()} --print"], env={**base, **env}, cwd=ROOT,
        capture_output=True, text=True, timeout=60,
    )


def test_the_dev_server_listens_on_loopback_by_default() -> None:
    ran = dev_web_command()
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split()[-2:] == ["runserver", "127.0.0.1:8000"]
    assert dev_web_command(PIRATES_PORT="8123").stdout.split()[-1] == "127.0.0.1:8123"
    assert "0.0.0.0" not in (ROOT / "Procfile.dev").read_text()
    assert "0.0.0.0" not in (ROOT / "scripts" / "dev").read_text()


@pytest.mark.parametrize(("host", "listen"), [("0.0.0.0", "0.0.0.0:8000"), ("::1", "'[::1]:8000'"),
                                              ("localhost", "127.0.0.1:8000")])
def test_pirates_host_chooses_another_address(host: str, listen: str) -> None:
    ran = dev_web_command(PIRATES_HOST=host)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split()[-1] == listen


@pytest.mark.parametrize(("env", "message"), [
    ({"PIRATES_HOST": "pirates.example.org"}, "PIRATES_HOST='pirates.example.org' is not an IP address"),
    ({"PIRATES_PORT": "80a"}, "PIRATES_PORT='80a' is not a"),
    ({"PIRATES_PORT": "70000"}, "PIRATES_PORT='70000' is not a port number"),
])
def test_a_bad_dev_address_is_refused_with_one_line(env: dict[str, str], message: str) -> None:
    ran = dev_web_command(**env)
    assert ran.returncode == 2
    assert ran.stdout == ""
    assert ran.stderr.startswith(f"Configuration error: {message}")
    assert len(ran.stderr.strip().splitlines()) == 1


@pytest.fixture
def outbox(settings: SettingsWrapper, tmp_path: Path) -> Path:
    settings.DEBUG = True
    settings.DEV_OUTBOX_PAGE = True
    settings.EMAIL_OUTBOX_DIR = tmp_path / "outbox"
    message = EmailMessage("Your log-in link", "https://example.test/login/secret", to=["anne@example.test"],
                           connection=get_connection("games.mail.OutboxEmailBackend"))
    message.extra_headers["Reply-To"] = "m-1-0-1-abc@pirates.localhost"
    assert message.send() == 1
    return tmp_path / "outbox"


def pages(outbox: Path) -> list[tuple[str, str]]:
    (name,) = [path.name for path in outbox.glob("*.eml")]
    return [("get", "/dev/outbox/"), ("get", f"/dev/outbox/{name}/"), ("get", f"/dev/outbox/{name}/html/"),
            ("post", f"/dev/outbox/{name}/reply/")]


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["192.168.1.20", "10.0.0.7", "2001:db8::5", "::ffff:192.168.1.20", ""])
def test_the_outbox_refuses_other_machines(outbox: Path, address: str) -> None:
    client = Client(REMOTE_ADDR=address)
    before = sorted(path.name for path in outbox.iterdir())
    for method, url in pages(outbox):
        response = getattr(client, method)(url, {"text": "1"} if method == "post" else None)
        assert response.status_code == 403, url
        assert response.content.decode() == OUTBOX_LOOPBACK_ONLY
        assert b"secret" not in response.content
    assert sorted(path.name for path in outbox.iterdir()) == before  # the reply did nothing


@pytest.mark.django_db
@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"])
def test_the_outbox_answers_this_machine(outbox: Path, address: str) -> None:
    response = Client(REMOTE_ADDR=address).get("/dev/outbox/")
    assert response.status_code == 200
    assert b"Your log-in link" in response.content


@pytest.mark.django_db
def test_behind_a_trusted_proxy_the_client_it_names_must_be_local(
    outbox: Path, settings: SettingsWrapper
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    remote = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert remote.get("/dev/outbox/").status_code == 403
    local = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert local.get("/dev/outbox/").status_code == 200
