"""Replies through a real Postfix, configured with exactly the lines docker/README.md documents.

The test starts a Postfix instance of its own (its own configuration, queue and data folders
under a temporary folder, ``postfix -c``; smtpd on a free port of 127.0.0.1 only; its log in a
file), whose reply domain goes to the pipe transport of ``docker/postfix/master.cf.fragment``
and ``main.cf.fragment`` (the files the README quotes) run by a pipe user that is not root, with
the service's settings in an env file only that user may read. A real Celery worker sends the
turn emails to an SMTP server of the test; each reply goes in over SMTP to Postfix and is
played in the PostgreSQL test database. Also shown: the README's former line, without the
wrapper, drops a valid reply (nothing played, exit 0); an env file the pipe user cannot read
defers the reply (exit 75, the reason in the mail log) and a flush after the fix plays it; a
bounce (null envelope sender) and a forged From carrying a move number play nothing.
"""

from __future__ import annotations

import os
import pwd
import re
import secrets
import shutil
import smtplib
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from games.emails.addresses import MoveAddress, read_address
from games.inbound.compose import reply_to
from games.models import Event, Game, Seat
from games.services import game_create, game_start, seat_join
from tests import realservers
from tests.conftest import CeleryWorker
from tests.inbound.helpers import MOVE_LINE
from tests.notifications.smtp_sink import Sink, smtp_server, text_of, wait_until

ROOT = realservers.ROOT
FRAGMENTS = ROOT / "docker" / "postfix"
README = ROOT / "docker" / "README.md"
PIPE_USER = "pirates-pipe"
REPLY_DOMAIN = "reply.pirates.test"
SITE = "http://pirates.test"
WAIT = 60
# The values the documented fragments use, replaced by this test's own.
DOC_USER = "user=pirates "
DOC_CHECKOUT = "/srv/pirates"
DOC_DOMAIN = "reply.pirates.example.com"
# The line docker/README.md documented before the wrapper (a checkout, the settings "in the
# environment of the pirates user", which pipe(8) never passes on).
OLD_LINE = (
    "pirates   unix  -       n       n       -       4       pipe\n"
    "  flags=Rq user=pirates argv=/srv/pirates/.venv/bin/python\n"
    "  /srv/pirates/manage.py mail_ingest --recipient ${recipient} --sender ${sender}\n"
)
# Everything but the pipe transport: the services Postfix needs, none chrooted (the test's
# queue folder has no copy of /etc), smtpd on 127.0.0.1 only.
MASTER_BASE = """\
127.0.0.1:{port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""
MAIN_BASE = """\
compatibility_level = 3.6
queue_directory = {root}/spool
data_directory = {root}/data
mail_owner = postfix
setgid_group = postdrop
inet_interfaces = loopback-only
inet_protocols = ipv4
myhostname = mx.pirates.test
mydestination =
relay_domains =
local_transport = error:no local delivery here
default_transport = error:no outbound mail here
relay_transport = error:no relaying here
maillog_file = {root}/maillog
maillog_file_prefixes = /var, /dev/stdout, {root}
syslog_name = pirates-test
# Mail from 127.0.0.1 would count as local and get its headers rewritten; players' mail
# comes from other servers and arrives as written.
local_header_rewrite_clients =
# The test's env file instead of /etc/pirates/env (the wrapper reads MAIL_INGEST_ENV_FILE).
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C MAIL_INGEST_ENV_FILE={env_file}
export_environment = TZ MAIL_CONFIG LANG MAIL_INGEST_ENV_FILE
"""


def documented(name: str, checkout: Path) -> str:
    """A fragment of docker/postfix with this machine's user, checkout and reply domain."""
    text = (FRAGMENTS / name).read_text()
    for old, new in ((DOC_USER, f"user={PIPE_USER} "), (DOC_CHECKOUT, str(checkout)),
                     (DOC_DOMAIN, REPLY_DOMAIN)):
        text = text.replace(old, new)
    return text


@dataclass
class Postfix:
    root: Path
    port: int
    env_file: Path

    @property
    def config(self) -> Path:
        return self.root / "etc"

    def log(self) -> str:
        path = self.root / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""

    def write_config(self, pipe: str) -> None:
        main = MAIN_BASE.format(root=self.root, env_file=self.env_file)
        (self.config / "main.cf").write_text(main + documented("main.cf.fragment", ROOT))
        (self.config / "master.cf").write_text(MASTER_BASE.format(port=self.port) + pipe)

    def postfix(self, *args: str) -> None:
        done = subprocess.run(["postfix", "-c", str(self.config), *args], capture_output=True,
                              text=True, timeout=60)
        said = f"{done.stdout}{done.stderr}\n{self.log()[-2000:]}"
        assert done.returncode == 0, f"postfix {' '.join(args)}: {said}"

    def reload(self) -> None:
        reloads = self.log().count("reload -- version")
        self.postfix("reload")
        wait_until(lambda: self.log().count("reload -- version") > reloads, WAIT, "Postfix to reload")

    def flush(self) -> None:
        subprocess.run(["postqueue", "-c", str(self.config), "-f"], check=True, timeout=30)

    def send(self, sender: str, recipient: str, raw: bytes) -> str:
        """Delivers ``raw`` over SMTP; the queue id Postfix gave it."""
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as client:
            client.ehlo("mail.example.org")
            client.mail(sender)
            code, said = client.rcpt(recipient)
            assert code == 250, said
            code, said = client.data(raw)
        assert code == 250, said
        found = re.search(rb"queued as ([0-9A-Za-z]+)", said)
        assert found, said
        return found.group(1).decode()

    def outcome(self, queue_id: str, what: str) -> str:
        """Waits for the pipe's delivery of ``queue_id`` ("sent" or "deferred"); its log line."""
        pattern = re.compile(rf"^.* {queue_id}: to=<[^>]*>, relay=pirates.*status={what}\b.*$", re.M)
        found = wait_until(lambda: pattern.search(self.log()), WAIT, f"{queue_id} {what} in the mail log")
        return str(found.group(0))


def _traversable(path: Path, changed: dict[Path, int]) -> None:
    """Lets other users pass through every folder above ``path`` (x only, no listing), as a
    deployer must for the pipe user; remembers the old modes."""
    for folder in [*reversed(path.parents), *([path] if path.is_dir() else [])]:
        mode = folder.stat().st_mode
        if not mode & stat.S_IXOTH:
            changed.setdefault(folder, stat.S_IMODE(mode))
            folder.chmod(stat.S_IMODE(mode) | stat.S_IXOTH)


def _pipe_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(PIPE_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", PIPE_USER], check=True, timeout=30)
        return pwd.getpwnam(PIPE_USER)


@pytest.fixture
def smtp_port() -> int:
    return realservers.free_port()


@pytest.fixture
def secret_key() -> str:
    return secrets.token_urlsafe(50)


@pytest.fixture
def celery_worker_env(smtp_port: int, secret_key: str) -> dict[str, str]:
    """The worker signs reply addresses with the service's key and sends to this test's SMTP server."""
    return {
        "SECRET_KEY": secret_key, "REPLY_DOMAIN": REPLY_DOMAIN, "SITE_URL": SITE,
        "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(smtp_port), "EMAIL_TIMEOUT": "5",
        "EMAIL_RETRY_BASE_SECONDS": "1", "EMAIL_RETRY_MAX_SECONDS": "2", "BOT_MOVE_DELAY_SECONDS": "0",
    }


@pytest.fixture
def sink(smtp_port: int) -> Iterator[Sink]:
    with smtp_server(smtp_port) as server:
        yield server


@pytest.fixture
def postfix(secret_key: str, settings: SettingsWrapper) -> Iterator[Postfix]:
    settings.SECRET_KEY = secret_key
    user = _pipe_user()
    changed: dict[Path, int] = {}
    root = Path(tempfile.mkdtemp(prefix="pirates-postfix-"))
    master_started = False
    try:
        root.chmod(0o711)
        # The interpreter, the virtualenv and the checkout must be reachable by the pipe user.
        for path in (Path(sys.executable).resolve(), Path(sys.prefix), ROOT):
            _traversable(path, changed)
        for sub in ("etc", "spool"):
            (root / sub).mkdir()
        (root / "data").mkdir()
        os.chown(root / "data", pwd.getpwnam("postfix").pw_uid, -1)
        private = root / "pipe"
        private.mkdir(mode=0o700)
        var = private / "var"
        var.mkdir()
        env_file = private / "env"
        lines = {
            "DJANGO_DEBUG": "0", "SECRET_KEY": secret_key, "ALLOWED_HOSTS": "pirates.test",
            "SITE_URL": SITE, "REPLY_DOMAIN": REPLY_DOMAIN,
            "DATABASE_URL": realservers.shared_test_database_url(), "VAR_DIR": str(var), "VENV": sys.prefix,
            # As for the worker: turn emails at once, not after the take-back grace.
            "TURN_EMAIL_GRACE_SECONDS": "0",
        }
        # The worker's broker and queues (its relay is nudged after each reply's commit).
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_QUEUE", "CELERY_MAIL_QUEUE"):
            if os.environ.get(name):
                lines[name] = os.environ[name]
        env_file.write_text("# the service's settings\n" + "".join(f"{k}={v}\n" for k, v in lines.items()))
        env_file.chmod(0o600)
        for path in (private, var, env_file):
            os.chown(path, user.pw_uid, user.pw_gid)
        checked = subprocess.run(
            ["runuser", "-u", PIPE_USER, "--", f"{sys.prefix}/bin/python", "-c", "import django"],
            capture_output=True, text=True, timeout=60,
        )
        assert checked.returncode == 0, f"the pipe user cannot run the virtualenv's python: {checked.stderr}"
        server = Postfix(root, realservers.free_port(), env_file)
        server.write_config(documented("master.cf.fragment", ROOT))
        server.postfix("start")
        master_started = True
        wait_until(lambda: "daemon started" in server.log(), WAIT, "Postfix to start")
        yield server
    finally:
        if master_started:
            pid_file = root / "spool" / "pid" / "master.pid"
            pid = int(pid_file.read_text().split()[0]) if pid_file.exists() else 0
            subprocess.run(["postfix", "-c", str(root / "etc"), "stop"], capture_output=True, timeout=60)
            if pid:
                wait_until(lambda: not realservers.process_alive(pid), WAIT, "Postfix to stop")
        for folder, mode in changed.items():
            folder.chmod(mode)
        shutil.rmtree(root, ignore_errors=True)


def _people(*names: str) -> list[User]:
    return [User.objects.create_user(name, f"{name}@example.org") for name in names]


def _asking(sink: Sink, game: Game) -> tuple[Seat, EmailMessage]:
    """The seat to act and the turn email it has for the game's position now."""
    game.refresh_from_db()
    seat = Seat.objects.select_related("user").get(game=game, position=game.to_act[0])
    assert seat.user is not None
    email, seq = seat.user.email, game.seq

    def current() -> EmailMessage | None:
        for message in reversed(sink.matching(lambda m: m["To"] == email and m["Reply-To"] is not None)):
            if read_address(str(message["Reply-To"])) == MoveAddress(game.pk, seat.position, seq):
                return message
        return None

    return seat, wait_until(current, WAIT, f"{email}'s turn email at seq {seq}")


def _numbers(message: EmailMessage) -> list[int]:
    return [int(number) for number, _label in MOVE_LINE.findall(text_of(message))]


def _seq(game: Game) -> int:
    game.refresh_from_db()
    return game.seq


def _played(game: Game, before: int) -> Callable[[], bool]:
    return lambda: _seq(game) > before


@pytest.mark.postfix
@pytest.mark.postgres
@pytest.mark.celery_worker
@pytest.mark.smtp
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_replies_through_postfix_with_the_documented_pipe_play_the_game(
    celery_worker: CeleryWorker, sink: Sink, postfix: Postfix
) -> None:
    anne, bob, cleo = _people("anne", "bob", "cleo")
    game = game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")
    for person in (bob, cleo):
        seat_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, by=anne)

    # The README's former line: no wrapper, so none of the service's settings. Postfix calls
    # the reply delivered, and nothing is played (finding: every reply silently dropped).
    seat, asking = _asking(sink, game)
    assert seat.user is not None
    recipient = str(asking["Reply-To"])
    first = reply_to(asking, str(_numbers(asking)[0]))
    seq = _seq(game)
    postfix.write_config(OLD_LINE.replace("user=pirates ", f"user={PIPE_USER} ")
                         .replace("/srv/pirates/.venv", sys.prefix).replace(DOC_CHECKOUT, str(ROOT)))
    postfix.reload()
    postfix.outcome(postfix.send(seat.user.email, recipient, first), "sent")
    assert _seq(game) == seq
    assert not Event.objects.filter(game=game, idempotency_key__startswith="mail:").exists()

    # The documented line, with an env file the pipe user cannot read: deferred (75), the
    # wrapper's reason in the mail log, nothing played; readable again, a flush plays it.
    postfix.write_config(documented("master.cf.fragment", ROOT))
    postfix.reload()
    os.chown(postfix.env_file, 0, 0)
    queue_id = postfix.send(seat.user.email, recipient, first)
    line = postfix.outcome(queue_id, "deferred")
    assert f"settings file {postfix.env_file} is not a readable file for user {PIPE_USER}" in line
    assert _seq(game) == seq
    pipe_user = pwd.getpwnam(PIPE_USER)
    os.chown(postfix.env_file, pipe_user.pw_uid, pipe_user.pw_gid)
    postfix.flush()
    wait_until(_played(game, seq), WAIT, "the deferred reply to be played after the flush")
    postfix.outcome(queue_id, "sent")

    # A few more moves, each a reply over SMTP with a number from the turn email; among them a
    # bounce and a forged From, both carrying a valid move number, which play nothing.
    moves = 1
    tried_bounce = tried_forgery = False
    while moves < 6 or not (tried_bounce and tried_forgery):
        assert moves < 12, "the game did not give bob a turn to forge"
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        seat, asking = _asking(sink, game)
        assert seat.user is not None
        recipient, numbers, seq = str(asking["Reply-To"]), _numbers(asking), game.seq
        assert numbers == list(range(1, len(numbers) + 1)), text_of(asking)
        if not tried_bounce:
            # A bounce: null envelope sender, From the player, the move number in the text.
            bounce = reply_to(asking, str(numbers[-1]))
            postfix.outcome(postfix.send("", recipient, bounce), "sent")
            tried_bounce = True
            assert _seq(game) == seq, "a bounce played a move"
        if seat.user == bob and not tried_forgery:
            genuine = reply_to(asking, str(numbers[-1]))
            forged = re.sub(rb"^From: .*$", b"From: bob@example.org (comment) <eve@x.org>",
                            genuine, count=1, flags=re.M)
            assert re.search(rb"^From: bob@example.org \(comment\) <eve@x.org>$", forged, re.M), forged[:300]
            postfix.outcome(postfix.send("eve@x.org", recipient, forged), "sent")
            tried_forgery = True
            assert _seq(game) == seq, "a forged From played bob's move"
        number = numbers[moves % len(numbers)]
        postfix.outcome(postfix.send(seat.user.email, recipient, reply_to(asking, str(number))), "sent")
        wait_until(_played(game, seq), WAIT, f"move {number} of {seat.user.email} to be played")
        event = Event.objects.get(game=game, seq=seq + 1)
        assert event.kind == Event.Kind.ACTION and event.idempotency_key.startswith("mail:")
        assert event.seat == seat.position and event.actor == f"user:{seat.user.pk}"
        moves += 1
    assert tried_bounce and tried_forgery
    played = Event.objects.filter(game=game, idempotency_key__startswith="mail:")
    assert played.count() == moves
    # Each move was confirmed over SMTP to its player (the worker sent the answers).
    wait_until(lambda: len(sink.matching(lambda m: m["Auto-Submitted"] == "auto-replied")) >= moves,
               WAIT, "the answers to the replies")


def test_readme_quotes_the_fragments_the_postfix_test_runs() -> None:
    """The Postfix lines in docker/README.md are the files the test above runs, verbatim."""
    readme = README.read_text()
    for name in ("main.cf.fragment", "master.cf.fragment", "master.cf.compose.fragment"):
        text = (FRAGMENTS / name).read_text()
        assert text in readme, f"docker/README.md does not quote docker/postfix/{name}"
    # The values the Postfix test replaces are there to replace, and the flags that matter.
    master = (FRAGMENTS / "master.cf.fragment").read_text()
    for value in (DOC_USER, DOC_CHECKOUT, "flags=Rq ", "null_sender= ", "/docker/commands/mail-ingest "):
        assert value in master, value
    assert DOC_DOMAIN in (FRAGMENTS / "main.cf.fragment").read_text()
