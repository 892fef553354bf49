"""A PostgreSQL outage answers 503 with Retry-After, never 500, and the site recovers by itself.

gunicorn (docker/commands/web, production settings) runs against a PostgreSQL server of this
test's own, which the test stops and starts again, more than once. While it is down, GETs and
POSTs of the API answer 503 with the API's JSON error and those of the site a short page;
``manage.py mail_ingest`` exits 75 so the mail server retries. Once it is back, everything
answers as before without restarting the web process: a restart with no request during it
included (a persistent connection broken by the restart is replaced, CONN_HEALTH_CHECKS).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from tests import realservers
from tests.faults.harness import COMMANDS, OwnPostgres, wait_until

pytestmark = [pytest.mark.faults, pytest.mark.slow]

ROOT = realservers.ROOT
CSRF = "c" * 32  # an unmasked CSRF secret: the cookie and the form field carry the same one
# How long each outage is exercised, and at most how many rounds of requests it gets.
OUTAGE_SECONDS = 4
OUTAGE_ROUNDS = 40
RECOVERY_LIMIT = 60


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Site:
    base_port: int
    token: str
    session: str
    game_id: int
    reply_raw: bytes
    reply_to: str
    env: dict[str, str]
    web: subprocess.Popen[bytes]
    log: Path
    pg: OwnPostgres

    def request(self, method: str, path: str, *, api: bool, body: bytes = b"",
                content_type: str = "") -> Reply:
        headers = {"Host": "127.0.0.1"}
        if api:
            headers["Authorization"] = f"Token {self.token}"
            headers["Content-Type"] = "application/json"
        else:
            headers["Cookie"] = f"sessionid={self.session}; csrftoken={CSRF}"
            if content_type:
                headers["Content-Type"] = content_type
        connection = http.client.HTTPConnection("127.0.0.1", self.base_port, timeout=30)
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
        finally:
            connection.close()

    # The four kinds of request: the API and the site, reading and writing.
    def api_get(self) -> Reply:
        return self.request("GET", f"/api/games/{self.game_id}/", api=True)

    def api_post(self) -> Reply:
        body = json.dumps({"players": 3, "title": f"Outage {uuid.uuid4().hex[:6]}"}).encode()
        return self.request("POST", "/api/games/", api=True, body=body)

    def site_get(self) -> Reply:
        return self.request("GET", f"/games/{self.game_id}/", api=False)

    def site_post(self) -> Reply:
        body = f"csrfmiddlewaretoken={CSRF}&text=ahoy".encode()
        return self.request("POST", f"/games/{self.game_id}/chat/", api=False, body=body,
                            content_type="application/x-www-form-urlencoded")

    def all_kinds(self) -> dict[str, Reply]:
        return {"api GET": self.api_get(), "api POST": self.api_post(),
                "site GET": self.site_get(), "site POST": self.site_post()}

    def mail_ingest(self) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "manage.py", "mail_ingest", "--recipient", self.reply_to,
             "--sender", "sailor@outage.example"],
            input=self.reply_raw, env=self.env, cwd=ROOT, capture_output=True, timeout=120,
        )

    def booted_workers(self) -> int:
        return self.log.read_text(errors="replace").count("Booting worker")


OK = {"api GET": 200, "api POST": 201, "site GET": 200, "site POST": 302}

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from rest_framework.authtoken.models import Token
from games.emails.addresses import move_address
from games.services import game_create
from games.services.accounts import mark_verified
user = User.objects.create_user("sailor", "sailor@outage.example", "not-a-pass-1234")
mark_verified(user)
game = game_create(creator=user, rules_id="pirates", players=3, title="Outage Bay")
session = SessionStore()
session[SESSION_KEY] = str(user.pk)
session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[HASH_SESSION_KEY] = user.get_session_auth_hash()
session.create()
print(json.dumps({"token": Token.objects.create(user=user).key, "session": session.session_key,
                  "game": game.pk, "reply_to": move_address(game.pk, 0, 0)}))
"""


def _reply_message(reply_to: str) -> bytes:
    message = EmailMessage()
    message["From"] = "sailor@outage.example"
    message["To"] = reply_to
    message["Subject"] = "Re: Your turn in Outage Bay"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@outage.example>"
    message.set_content("1\n")
    return bytes(message)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    root = tmp_path_factory.mktemp("outage")
    pg = OwnPostgres()
    try:
        pg.create()
        port = realservers.free_port()
        skip = ("CELERY_", "EMAIL_", "PGHOST", "REDIS_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
        env.update(
            DJANGO_DEBUG="0", SECRET_KEY="outage-" + uuid.uuid4().hex * 2, ALLOWED_HOSTS="127.0.0.1",
            SECURE_SSL_REDIRECT="0", **pg.role_env(), VAR_DIR=str(root / "var"),
            STATIC_ROOT=str(root / "static"),
            BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2", THROTTLE_RATES="game_create=off",
            DB_CONNECT_TIMEOUT="2", LOG_LEVEL="INFO", PYTHONUNBUFFERED="1",
        )
        migrated = subprocess.run([str(COMMANDS / "migrate")], env=env, cwd=ROOT, capture_output=True,
                                  text=True, timeout=300)
        assert migrated.returncode == 0, migrated.stdout + migrated.stderr
        # Production serves collected, hashed static files (the image collects them at build).
        collected = subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
                                   env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert collected.returncode == 0, collected.stderr
        made = subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert made.returncode == 0, made.stderr
        setup = json.loads(made.stdout.strip().splitlines()[-1])
        log = root / "web.log"
        with realservers.started([str(COMMANDS / "web")], env, log, "Booting worker", 60) as web:
            the_site = Site(port, setup["token"], setup["session"], setup["game"],
                            _reply_message(setup["reply_to"]), setup["reply_to"], env, web, log, pg)
            wait_until(lambda: the_site.api_get().status == 200 and the_site.booted_workers() >= 2,
                       60, "both web workers to answer")
            yield the_site
    finally:
        pg.destroy()


def _assert_unavailable(kind: str, reply: Reply) -> None:
    assert reply.status == 503, (kind, reply.status, reply.body[:300])
    assert int(reply.headers["retry-after"]) > 0, kind
    if kind.startswith("api"):
        body = reply.json()
        assert body["error"] == "unavailable" and body["detail"], (kind, body)
        assert set(body) == {"error", "detail"}
    else:
        assert reply.headers["content-type"].startswith("text/html"), kind
        page = reply.body.decode()
        assert "Back in a moment" in page and 'name="viewport"' in page
        assert "<script" not in page and "<style" not in page and " style=" not in page
        assert "default-src" in reply.headers["content-security-policy"]


def _assert_answering(site: Site) -> dict[str, Reply]:
    replies = site.all_kinds()
    assert {kind: reply.status for kind, reply in replies.items()} == OK, {
        kind: (reply.status, reply.body[:200]) for kind, reply in replies.items()
    }
    return replies


def test_requests_during_a_database_outage_answer_503_and_recover_without_a_restart(site: Site) -> None:
    workers = site.booted_workers()
    _assert_answering(site)
    for outage in range(2):
        site.pg.stop("fast")
        seen: dict[str, int] = {}
        began, rounds = time.monotonic(), 0
        while rounds < OUTAGE_ROUNDS and (rounds < 3 or time.monotonic() - began < OUTAGE_SECONDS):
            for kind, reply in site.all_kinds().items():
                _assert_unavailable(kind, reply)
                seen[kind] = seen.get(kind, 0) + 1
            rounds += 1
        assert rounds >= 3 and set(seen) == set(OK), (outage, seen)

        ingest = site.mail_ingest()
        assert ingest.returncode == 75, (ingest.returncode, ingest.stderr[-500:])
        assert b"database is unavailable" in ingest.stderr

        site.pg.start()
        wait_until(lambda: all(r.status == OK[k] for k, r in site.all_kinds().items()),
                   RECOVERY_LIMIT, f"every kind of request to answer again after outage {outage + 1}")
        for _ in range(4):  # both workers, every kind
            _assert_answering(site)
    assert site.web.poll() is None and site.booted_workers() == workers  # the same workers throughout


def test_a_restart_with_no_request_during_it_is_not_seen_by_the_next_requests(site: Site) -> None:
    """Each worker's persistent connection is broken by the restart: the next request of each
    kind (writes too, which are never run twice) gets a new one and succeeds at once."""
    workers = site.booted_workers()
    for _ in range(2):
        for _ in range(4):
            _assert_answering(site)  # both workers hold a connection now
        site.pg.stop("fast")
        site.pg.start()
        for _ in range(4):
            _assert_answering(site)
    assert site.web.poll() is None and site.booted_workers() == workers
