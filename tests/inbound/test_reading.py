"""Issue 16: reading a reply (its command, HTML as text) within bounds, and the limits that
keep a flood of mail from hurting the service (size, rate per sender)."""

from __future__ import annotations

import time
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
from games.inbound.parse import Command, html_to_text, read_command, reply_text
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
    the text is capped, so no message costs more than a moment."""
    message = EmailMessage()
    message.set_content(("On " + "a " * 30_000 + "\n") * 8)
    started = time.monotonic()
    reply_text(message)
    assert time.monotonic() - started < 5


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
