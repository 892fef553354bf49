"""Who really sent a reply: the From mailbox parsed strictly, the receiving server's
Authentication-Results (from the trusted authserv-id only), bounces however the mail server
names their null sender, an inbound rate every process shares, and duplicates told apart by
sender as well as Message-ID."""

from __future__ import annotations

import os
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path
from types import SimpleNamespace

import pytest
from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent
from django.contrib.auth.models import User
from django.core import mail
from pytest_django.fixtures import Settings as SettingsWrapper

from games.inbound import authentication
from games.inbound.parse import is_null_sender, parse, sender_of
from games.inbound.webhooks import on_inbound
from games.models import Event, Game
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    deliver,
    latest_turn_email,
    people,
    seat_to_act,
    start_game,
)
from tests.realservers import ROOT
from tests.throttle_support import set_rates

pytestmark = pytest.mark.django_db

MX = "mx.pirates.test"


def with_headers(raw: bytes, *headers: tuple[str, str]) -> bytes:
    """``raw`` with each named header replaced by the given raw value (written as is, so a
    header can be malformed on purpose), or added when it was not there."""
    head, separator, body = raw.partition(b"\r\n\r\n")
    if not separator:
        head, separator, body = raw.partition(b"\n\n")
    newline = b"\r\n" if separator == b"\r\n\r\n" else b"\n"
    names = {name.lower().encode() for name, _value in headers}
    kept: list[bytes] = []
    dropping = False
    for line in head.split(newline):
        if line[:1] in (b" ", b"\t"):
            if not dropping:
                kept.append(line)
            continue
        dropping = line.split(b":", 1)[0].strip().lower() in names
        if not dropping:
            kept.append(line)
    added = [f"{name}: {value}".encode() for name, value in headers]
    return newline.join(added + kept) + separator + body


def _started(on_commit: OnCommit) -> tuple[Game, User]:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    return game, seat.user


def _reply(player: User, text: str = "1", *headers: tuple[str, str]) -> bytes:
    """A reply to the player's latest turn email (read it before clearing the outbox)."""
    return with_headers(client_reply(latest_turn_email(player), text), *headers)


def _moves(game: Game) -> int:
    return Event.objects.filter(game=game).count() - game.seq


def _domain(user: User) -> str:
    return user.email.rpartition("@")[2]


# --- the From mailbox, parsed strictly ---------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("anne@example.test", "anne@example.test"),
        ("Anne Bonny <ANNE@Example.TEST>", "anne@example.test"),
        ("Anne B. Bonny <anne@example.test>", "anne@example.test"),  # an obsolete period only
        ("Anne <anne@example.test> (at sea)", "anne@example.test"),
        ('"anne@example.test" <eve@x.test>', "eve@x.test"),  # a display name is never the sender
        ("=?utf-8?q?anne=40example=2Etest?= <eve@x.test>", "eve@x.test"),
        ("eve@x.test (anne@example.test)", "eve@x.test"),  # nor is a comment
        ("anne@example.test (comment) <eve@x.test>", ""),  # the parser would have to guess
        ("anne@example.test <eve@x.test>", ""),
        ("<anne@example.test", ""),
        ("anne@example.test, eve@x.test", ""),
        ("Crew: anne@example.test;", ""),
        ("anne", ""),
        ("", ""),
    ],
)
def test_the_sender_is_the_one_from_mailbox_parsed_strictly(value: str, expected: str) -> None:
    raw = f"From: {value}\r\nTo: x@reply.pirates.test\r\nSubject: Re\r\n\r\n1\r\n".encode()
    assert sender_of(parse(raw)) == expected
    # The same with the compat32 policy some callers parse with.
    assert sender_of(message_from_bytes(raw, policy=policy.compat32)) == expected


def test_two_from_headers_give_no_sender() -> None:
    raw = b"From: anne@example.test\r\nFrom: eve@x.test\r\nSubject: Re\r\n\r\n1\r\n"
    assert sender_of(parse(raw)) == ""


def test_a_forged_from_with_a_comment_plays_nothing(on_commit: OnCommit) -> None:
    game, player = _started(on_commit)
    raw = _reply(player, "1", ("From", f"{player.email} (comment) <eve@x.test>"))
    mail.outbox.clear()
    for _ in range(2):
        outcome = deliver(on_commit, raw)
        assert (outcome.status, outcome.answer) == ("no_sender", "")
    assert _moves(game) == 0 and mail.outbox == []


@pytest.mark.parametrize("display", ["{email}", '"{email}"', "=?utf-8?q?{encoded}?="])
def test_a_display_name_that_looks_like_the_players_address_plays_nothing(
    on_commit: OnCommit, display: str
) -> None:
    game, player = _started(on_commit)
    name = display.format(email=player.email, encoded=player.email.replace("@", "=40").replace(".", "=2E"))
    raw = _reply(player, "1", ("From", f"{name} <eve@x.test>"))
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert outcome.status in ("no_sender", "not_the_player") and outcome.answer == ""
    assert _moves(game) == 0 and mail.outbox == []


# --- Authentication-Results -------------------------------------------------------------------


@pytest.fixture
def trusted(settings: SettingsWrapper) -> str:
    settings.INBOUND_TRUSTED_AUTHSERV_ID = MX
    return MX


def test_a_reply_the_trusted_server_passed_dmarc_for_plays(on_commit: OnCommit, trusted: str) -> None:
    game, player = _started(on_commit)
    results = f"{trusted}; dmarc=pass (p=reject) header.from={_domain(player)}"
    outcome = deliver(on_commit, _reply(player, "1", ("Authentication-Results", results)))
    assert outcome.status == "played" and _moves(game) == 1


def test_results_from_an_untrusted_authserv_id_are_ignored(on_commit: OnCommit, trusted: str) -> None:
    """Anyone can write an Authentication-Results header naming any server into their message."""
    game, player = _started(on_commit)
    domain = _domain(player)
    raw = _reply(
        player, "1",
        ("Authentication-Results",
         f"evil.test; dmarc=pass header.from={domain}; dkim=pass header.d={domain}"),
        ("ARC-Authentication-Results", f"i=1; {trusted}; dmarc=pass header.from={domain}"),
    )
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("unauthenticated", "unauthenticated")
    assert _moves(game) == 0


def test_dmarc_fail_plays_nothing_and_tells_the_accounts_own_address(
    on_commit: OnCommit, trusted: str
) -> None:
    game, player = _started(on_commit)
    domain = _domain(player)
    raw = _reply(
        player, "1",
        ("From", f"Anne <{player.email.upper()}>"),
        ("Reply-To", "eve@x.test"),
        ("Authentication-Results",
         f"{trusted}; dmarc=fail (p=none) header.from={domain}; dkim=pass header.d={domain}"),
    )
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("unauthenticated", "unauthenticated")
    assert _moves(game) == 0
    (answer,) = answers_to(player)
    assert answer.to == [player.email]  # the account's address: not the From, not the Reply-To
    assert all("eve@x.test" not in message.to for message in mail.outbox)
    body = str(answer.body)
    assert "was not played" in body and "could not confirm" in body and "DMARC" in body
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    assert not answer.reply_to  # nothing to reply to: no reply address of a position
    # The same message again is answered once.
    assert deliver(on_commit, raw).status == "unauthenticated"
    assert len(answers_to(player)) == 1


def test_answers_about_unauthenticated_replies_are_rate_limited_apart_from_the_players_own_mail(
    on_commit: OnCommit, trusted: str, settings: SettingsWrapper
) -> None:
    """A forger writing as the player decides how often we would write to the player: only a
    few answers an hour, and the forged mail does not use up the player's own inbound rate."""
    game, player = _started(on_commit)
    set_rates(settings, inbound_mail="5/hour", inbound_unauthenticated="2/hour")
    forged = [_reply(player, "1") for _ in range(6)]  # each its own Message-ID
    results = f"{trusted}; dmarc=pass header.from={_domain(player)}"
    own = _reply(player, "1", ("Authentication-Results", results))
    mail.outbox.clear()
    outcomes = [deliver(on_commit, raw).status for raw in forged]
    assert outcomes == ["unauthenticated"] * 5 + ["rate_limited"]
    assert len(answers_to(player)) == 2
    assert deliver(on_commit, own).status == "played"
    assert _moves(game) == 1


@pytest.mark.parametrize(
    "results",
    [
        "{mx}; dkim=pass header.d={domain} header.s=s1; spf=fail smtp.mailfrom=bounce@other.test",
        "{mx}; dmarc=none header.from={domain}; dkim=pass header.d=mail.{domain}",
        "{mx}; spf=pass smtp.mailfrom=bounces@{domain}",
    ],
)
def test_an_aligned_dkim_or_spf_pass_without_a_dmarc_policy_plays(
    on_commit: OnCommit, trusted: str, results: str
) -> None:
    game, player = _started(on_commit)
    header = results.format(mx=trusted, domain=_domain(player))
    assert deliver(on_commit, _reply(player, "1", ("Authentication-Results", header))).status == "played"
    assert _moves(game) == 1


@pytest.mark.parametrize(
    "results",
    [
        "{mx}; dkim=pass header.d=other.test; spf=pass smtp.mailfrom=x@other.test",  # not aligned
        "{mx}; dkim=fail header.d={domain}; spf=softfail smtp.mailfrom=x@{domain}",
        "{mx}; dmarc=temperror header.from={domain}; dkim=pass header.d={domain}",
        "{mx}; dkim=pass header.d=test",  # a top-level name aligns with nothing
        "{mx}; none",
        "{mx}; dmarc=pass; ;; garbage",  # unparseable says nothing
    ],
)
def test_results_that_do_not_vouch_for_the_from_domain_play_nothing(
    on_commit: OnCommit, trusted: str, results: str
) -> None:
    game, player = _started(on_commit)
    header = results.format(mx=trusted, domain=_domain(player))
    outcome = deliver(on_commit, _reply(player, "1", ("Authentication-Results", header)))
    assert outcome.status == "unauthenticated" and _moves(game) == 0


def test_a_forged_pass_beside_the_servers_own_fail_does_not_count(trusted: str) -> None:
    raw = (
        f"Authentication-Results: {trusted}; dmarc=fail header.from=example.test\r\n"
        f"Authentication-Results: {trusted}; dmarc=pass header.from=example.test\r\n"
        "From: anne@example.test\r\nSubject: Re\r\n\r\n1\r\n"
    ).encode()
    verdict = authentication.check(parse(raw), "anne@example.test", trusted)
    assert not verdict.passed and "fail" in verdict.reason


def test_without_a_trusted_authserv_id_the_from_is_trusted(on_commit: OnCommit) -> None:
    game, player = _started(on_commit)
    assert deliver(on_commit, _reply(player, "1")).status == "played" and _moves(game) == 1


def test_an_unauthenticated_reply_from_a_stranger_is_not_answered(on_commit: OnCommit, trusted: str) -> None:
    game, player = _started(on_commit)
    raw = _reply(player, "1", ("From", "stranger@x.test"))
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("not_the_player", "")
    assert _moves(game) == 0 and mail.outbox == []


# --- bounces -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "envelope", ["MAILER-DAEMON", "mailer-daemon", "MAILER-DAEMON@mx.pirates.test", "<>", "", " <> "]
)
def test_a_bounce_carrying_a_number_plays_nothing_and_is_not_answered(
    on_commit: OnCommit, envelope: str
) -> None:
    game, player = _started(on_commit)
    raw = _reply(player, "1")
    mail.outbox.clear()
    outcome = deliver(on_commit, raw, envelope_sender=envelope)
    assert (outcome.status, outcome.answer) == ("automatic", "")
    assert _moves(game) == 0 and mail.outbox == []


def test_only_the_null_sender_is_a_bounce() -> None:
    assert all(is_null_sender(s) for s in ("", "<>", "MAILER-DAEMON", "Mailer-Daemon@host.test"))
    assert not any(is_null_sender(s) for s in ("anne@example.test", "daemon@example.test", "mailer@x.test"))


# --- duplicates: Message-ID and sender ---------------------------------------------------------


def test_the_same_message_id_from_two_players_is_handled_for_each(on_commit: OnCommit) -> None:
    game, first = _started(on_commit)
    before = game.seq
    message_id = "<same-id-from-a-careless-client@example.test>"
    one = deliver(on_commit, _reply(first, "1", ("Message-ID", message_id)))
    assert one.status == "played"
    second = seat_to_act(game).user
    assert second is not None and second != first
    two = deliver(on_commit, _reply(second, "1", ("Message-ID", message_id)))
    assert (two.status, two.answer) == ("played", "played")
    actors = list(Event.objects.filter(game=game, seq__gt=before).values_list("actor", flat=True))
    assert actors[:2] == [f"user:{first.pk}", f"user:{second.pk}"]
    assert len(answers_to(first)) == 1 and len(answers_to(second)) == 1
    # Each sender's own message again is still a duplicate.
    assert deliver(on_commit, _reply(second, "1", ("Message-ID", message_id))).status == "duplicate"


# --- one inbound rate for every process ---------------------------------------------------------


def _manage(env: dict[str, str], *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, input=stdin, capture_output=True,
        timeout=300,
    )


def test_the_inbound_rate_binds_across_separate_mail_ingest_processes(tmp_path: Path) -> None:
    """On the embedded defaults (SQLite, no Redis): each mail_ingest is a process of its own,
    and the second one still sees the first one's count."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "pirates_site.settings",
        "VAR_DIR": str(tmp_path),
        "THROTTLE_RATES": "inbound_mail=2/hour",
        "LOG_LEVEL": "ERROR",
    }
    migrated = _manage(env, "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr.decode()[-2000:]
    message = (
        "From: Robot <robot@loop.test>\r\nTo: nobody@reply.pirates.test\r\nSubject: Re: your turn\r\n"
        "Message-ID: <{n}@loop.test>\r\n\r\n1\r\n"
    )
    statuses = []
    for n in range(4):
        done = _manage(env, "mail_ingest", "--recipient", "nobody@reply.pirates.test",
                       "--sender", "robot@loop.test", stdin=message.format(n=n).encode())
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        statuses.append(done.stdout.decode().strip())
    assert statuses == ["unknown_address", "unknown_address", "rate_limited", "rate_limited"]
    assert (tmp_path / "db.sqlite3").exists()



# --- hosted providers' own verdicts --------------------------------------------------------------


def _provider_event(raw: bytes, esp_event: object) -> AnymailInboundEvent:
    message = AnymailInboundMessage.parse_raw_mime_bytes(raw)
    message.envelope_sender = "bounces@example.test"
    return AnymailInboundEvent(event_type="inbound", message=message, esp_event=esp_event)


@pytest.mark.parametrize(
    ("status", "played"), [("PASS", True), ("FAIL", False), ("PROCESSING_FAILED", False)]
)
def test_amazon_ses_verdicts_decide_and_the_senders_own_results_are_dropped(
    on_commit: OnCommit, trusted: str, status: str, played: bool
) -> None:
    game, player = _started(on_commit)
    forged = f"{trusted}; dmarc=pass header.from={_domain(player)}"  # written by the sender
    raw = _reply(player, "1", ("Authentication-Results", forged))
    receipt = {"dmarcVerdict": {"status": status}, "spfVerdict": {"status": "GRAY"}}
    with on_commit(execute=True):
        on_inbound(None, _provider_event(raw, {"receipt": receipt}), "Amazon SES")
    assert _moves(game) == (1 if played else 0)


@pytest.mark.parametrize(
    ("dkim", "played"), [("{@example.test : pass}", True), ("{@other.test : pass}", False)]
)
def test_sendgrid_dkim_verdicts_decide_by_alignment(
    on_commit: OnCommit, trusted: str, dkim: str, played: bool
) -> None:
    game, player = _started(on_commit)
    assert _domain(player) == "example.test"
    raw = _reply(player, "1")
    post = SimpleNamespace(POST={"SPF": "softfail", "dkim": dkim})
    with on_commit(execute=True):
        on_inbound(None, _provider_event(raw, post), "SendGrid")
    assert _moves(game) == (1 if played else 0)


def test_a_provider_without_verdicts_leaves_the_message_unauthenticated(
    on_commit: OnCommit, trusted: str
) -> None:
    game, player = _started(on_commit)
    with on_commit(execute=True):
        on_inbound(None, _provider_event(_reply(player, "1"), {}), "Postmark")
    assert _moves(game) == 0
