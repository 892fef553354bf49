"""Reading a reply (its command, HTML as text) within bounds, and the limits that
keep a flood of mail from hurting the service (size, rate per sender)."""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from django.core import mail
from pytest_django.fixtures import Settings as SettingsWrapper

from games.emails.addresses import (
    SIGNATURE_CHARS,
    InvitationAddress,
    MoveAddress,
    invitation_address,
    move_address,
    read_address,
)
from games.inbound.parse import (
    MAX_LINE_CHARS,
    Command,
    html_to_text,
    own_lines,
    parse,
    read_command,
    read_reply,
    reply_text,
)
from games.models import Event
from tests.inbound.helpers import (
    OnCommit,
    client_reply,
    deliver,
    latest_turn_email,
    people,
    seat_to_act,
    start_game,
)
from tests.throttle_support import set_rates


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("3", Command("move", 3, "3")),
        ("3.", Command("move", 3, "3.")),
        ("move 3", Command("move", 3, "move 3")),
        ("MOVE  12!", Command("move", 12, "MOVE 12!")),
        ("Hello,\n\n 5 \n", Command("move", 5, "5")),
        ("pass", Command("pass", None, "pass")),
        ("Pass.", Command("pass", None, "Pass.")),
        ("join", Command("join", None, "join")),
        ("", Command("empty")),
        ("> 3\n> quoted only", Command("empty")),
        ("three", Command("unreadable", None, "three")),
        ("I play 3 and 4", Command("unreadable", None, "I play 3 and 4")),
    ],
)
def test_commands(text: str, command: Command) -> None:
    assert read_command(text) == command


def test_html_is_read_as_a_client_shows_it_with_blockquotes_as_quotes() -> None:
    html = (
        "<html><head><style>p{color:red}</style></head><body><div>4</div><div><br></div>"
        "<div>On Wed, X wrote:</div><blockquote><p>Ahoy</p><blockquote>older</blockquote></blockquote>"
        "</body></html>"
    )
    assert html_to_text(html) == "4\n\nOn Wed, X wrote:\n\n> Ahoy\n> > older"


def test_reading_the_worst_text_stays_bounded() -> None:
    """The reply parser's header patterns are quadratic in a line's length: lines are cut and
    the text is capped, so no message costs more than a moment (its speed is not timed here:
    what bounds it is that no line it reads is longer than MAX_LINE_CHARS)."""
    message = EmailMessage()
    message.set_content(("On " + "a " * 30_000 + "\n") * 8)
    text = reply_text(message)
    assert all(len(line) <= MAX_LINE_CHARS for line in text.splitlines())


def test_reply_addresses_are_lowercase_signed_and_round_trip(settings: SettingsWrapper) -> None:
    address = move_address(123456, 4, 987)
    local, domain = address.split("@")
    assert domain == settings.REPLY_DOMAIN
    assert local == local.lower() and set(local) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert len(local.rsplit("-", 1)[1]) * 5 >= 80 and len(local.rsplit("-", 1)[1]) == SIGNATURE_CHARS
    assert read_address(address) == MoveAddress(123456, 4, 987)
    assert read_address(address.upper()) == MoveAddress(123456, 4, 987)
    assert read_address(invitation_address(42)) == InvitationAddress(42)
    # A signature made under another secret does not verify.
    settings.SECRET_KEY = "another-secret-key-for-this-test"
    assert read_address(address) is None


@pytest.mark.django_db
def test_a_message_over_the_size_limit_is_ignored_unread(
    on_commit: OnCommit, settings: SettingsWrapper
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    player = seat_to_act(game).user
    assert player is not None
    raw = client_reply(latest_turn_email(player), "1")
    settings.INBOUND_MAX_BYTES = len(raw) - 1
    mail.outbox.clear()
    assert deliver(on_commit, raw).status == "too_large"
    assert Event.objects.filter(game=game).count() == game.seq and mail.outbox == []
    settings.INBOUND_MAX_BYTES = len(raw)
    assert deliver(on_commit, raw).status == "played"


@pytest.mark.django_db
def test_a_flood_from_one_sender_is_cut_off_at_its_rate(
    on_commit: OnCommit, settings: SettingsWrapper
) -> None:
    set_rates(settings, inbound_mail="3/hour")
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    player = seat_to_act(game).user
    assert player is not None
    email = latest_turn_email(player)
    mail.outbox.clear()
    statuses = [deliver(on_commit, client_reply(email, "nonsense")).status
                for _ in range(5)]
    assert statuses == ["problem", "problem", "problem", "rate_limited", "rate_limited"]
    assert len(mail.outbox) == 3  # nothing answered past the rate
    # Another sender is counted apart (and, being no player, ignored as ever).
    other = client_reply(email, "1", sender="someone@example.test")
    assert deliver(on_commit, other).status == "not_the_player"


@pytest.mark.parametrize(
    ("text", "own"),
    [
        # Below the quote, the quoted footer's "> -- " included: it is a quoted line like any other.
        ("On Wed, X wrote:\n> Ahoy\n> 1. Sail\n> -- \n> Pirates by Mail\n\n3\n\n-- \nAnne", ["3"]),
        ("On Wed, X wrote:\n> Ahoy\n> --\n> Unsubscribe: https://x\n\n3", ["3"]),
        # Interleaved: every unquoted line between the quotes.
        ("On Wed, X wrote:\n> 1. Sail\n> 2. Fight\n\n2\n\n> Reply with a number.\n\nCheers", ["2", "Cheers"]),
        # Above the quote, the signature and the quote go.
        ("3\n\n-- \nAnne\nCaptain 7\n\nOn Wed, X wrote:\n> 7", ["3"]),
        # An attribution wrapped over two lines (Gmail), in German, in French.
        ("4\n\nOn Wed, 5 Mar 2025 at 10:02, Pirates by Mail <\ncaptain@x.org> wrote:\n\n> 7", ["4"]),
        ("Am Mi., 5. März 2025 um 10:02 Uhr schrieb X <\nc@x.org>:\n> 7\n\n5", ["5"]),
        ("Le 05/03/2025 à 10:02, Pirates by Mail a écrit :\n> 7\n\n1", ["1"]),
        # An attribution followed by the original unquoted: nothing of theirs follows it.
        ("2\n\nOn Wed, X wrote:\n\nAhoy anne,\n  7. Sail", ["2"]),
        # Outlook's header block and the unquoted original below it, in English and German.
        ("3\n\nAnne\n\nFrom: Pirates <c@x.org>\nSent: Wed\nTo: Anne\nSubject: Your turn\n\n7", ["3", "Anne"]),
        ("3\n\nVon: Pirates <c@x.org>\nGesendet: Mittwoch\nAn: Anne\nBetreff: Ihr Zug\n\n7", ["3"]),
        ("1\n________________________________\nFrom: Pirates\nSent: now\n\n7", ["1"]),
        ("1\n\n-------- Original Message --------\nFrom: Pirates\n\n7", ["1"]),
        # Mobile footers and Gmail's hidden quote go; a "From:" line alone is their own text.
        ("5\n\nSent from my iPhone\n\n> On 5 Mar 2025, at 10:02, X wrote:\n> 7", ["5"]),
        ("[Quoted text hidden]\n2", ["2"]),
        ("From: me, the captain\n4", ["From: me, the captain", "4"]),
        ("", []),
    ],
)
def test_own_lines_are_what_the_person_wrote_wherever_it_stands(text: str, own: list[str]) -> None:
    assert own_lines(text) == own


def test_text_that_cannot_be_decoded_is_not_guessed_at() -> None:
    unknown = parse(b"From: a@b.test\r\nContent-Type: text/plain; charset=x-unknown\r\n\r\n3\r\n")
    assert read_reply(unknown) == Command("undecodable", said="x-unknown")
    invalid = parse(b"From: a@b.test\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Content-Transfer-Encoding: 8bit\r\n\r\nGr\xfc\xdfe\r\n3\r\n")
    assert read_reply(invalid) == Command("undecodable", said="utf-8")
    fine = parse(b"From: a@b.test\r\nContent-Type: text/plain; charset=latin-1\r\n"
                 b"Content-Transfer-Encoding: 8bit\r\n\r\nGr\xfc\xdfe\r\n3\r\n")
    assert read_reply(fine) == Command("move", 3, "3")
