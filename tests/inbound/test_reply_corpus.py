"""Replies as people really write them, each delivered the way the MTA pipe delivers it
(``manage.py mail_ingest`` reading the raw message on standard input): top-posted,
bottom-posted below the whole quoted turn email (its "-- " footer included), interleaved,
HTML only, with and without signatures, from Thunderbird, mutt, Apple Mail, the iPhone, Gmail
(web and app), Outlook (desktop and web) and K-9 Mail. The corpus quotes the real turn email of
the game it replies to (tests/inbound/corpus/)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command

from games.emails.replies import numbered_moves
from games.inbound.parse import Command, parse, read_reply
from games.models import Event
from tests.inbound.corpus.cases import CASES, EMPTY, UNDECODABLE, Case
from tests.inbound.corpus.clients import Original
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    latest_turn_email,
    numbered,
    people,
    reply_address,
    seat_to_act,
    start_game,
)

pytestmark = pytest.mark.django_db

# The corpus as written by tests/inbound/corpus/write.py from one real turn email.
WRITTEN = Path(__file__).parent / "corpus" / "eml"


def mail_ingest(
    monkeypatch: pytest.MonkeyPatch, on_commit: OnCommit, raw: bytes, *, recipient: str, sender: str
) -> str:
    """What ``mail_ingest`` says of ``raw``, read from standard input as Postfix's pipe gives it."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    out = io.StringIO()
    with on_commit(execute=True):
        call_command("mail_ingest", "--recipient", recipient, "--sender", sender, stdout=out)
    return out.getvalue().strip()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_reply_from_the_corpus_plays_its_move_or_gets_the_right_answer(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch, case: Case
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    player = seat.user
    email = latest_turn_email(player)
    raw = case.raw(Original(parse(email.message().as_bytes())))
    before = game.seq
    mail.outbox.clear()

    said = mail_ingest(monkeypatch, on_commit, raw, recipient=reply_address(email), sender=player.email)

    (answer,) = answers_to(player)
    if case.move is not None:
        expected = numbered_moves(game, seat.position, before).number(case.move)
        assert expected is not None, f"the turn email offers no move {case.move}"
        assert said == "played (answer: played)"
        event = Event.objects.get(game=game, seq=before + 1)
        assert (event.seat, event.action) == (seat.position, expected.action)
        assert f"Move {case.move} is played" in str(answer.body)
    else:
        assert said == "problem (answer: problem)"
        assert Event.objects.filter(game=game).count() == before
        body = str(answer.body)
        assert case.problem in body
        assert numbered(body) == numbered(str(email.body))  # the moves, listed again


def test_the_corpus_covers_every_client_and_layout() -> None:
    """Each client appears top-posted or bottom-posted as it can, with and without a
    signature, HTML only, and with a reply that plays nothing."""
    clients = {case.client for case in CASES}
    assert clients == {"thunderbird", "mutt", "apple_mail", "gmail", "outlook", "outlook_web", "k9"}
    layouts = {(case.client, case.layout) for case in CASES}
    for client in ("thunderbird", "mutt", "gmail", "k9"):
        assert (client, "bottom") in layouts and (client, "interleaved") in layouts
    assert {case.client for case in CASES if case.html_only} >= {
        "thunderbird",
        "apple_mail",
        "gmail",
        "outlook",
    }
    assert {case.signature for case in CASES if case.move is not None} == {True, False}
    assert sum(case.move is None for case in CASES) >= 8


def _command_kind(case: Case) -> str:
    if case.move is not None:
        return "move"
    return {EMPTY: "empty", UNDECODABLE: "undecodable"}.get(case.problem, "unreadable")


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_written_corpus_reads_as_each_case_says(case: Case) -> None:
    """The .eml files (one real turn email, each client's reply to it) read as their case says:
    the parser is checked on a fixed corpus as well as on the one each game's email makes."""
    command = read_reply(parse((WRITTEN / f"{case.name}.eml").read_bytes()))
    assert command.kind == _command_kind(case)
    if case.move is not None:
        assert command == Command("move", case.move, command.said)


def test_the_written_corpus_has_a_file_for_every_case_and_no_other() -> None:
    """Run ``python -m tests.inbound.corpus.write`` after changing the cases."""
    written = {path.stem for path in WRITTEN.glob("*.eml")} - {"turn_email"}
    assert written == {case.name for case in CASES}
