"""A reply's own text is read (quotes and signature removed),
"3" plays move 3, and the sender, the signed address, duplicates, stale positions, wrong
numbers and automatic replies are all handled, each with the answer (or silence) it gets."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail

from games.emails.addresses import move_address
from games.emails.replies import numbered_moves
from games.models import Event, Game, Notification
from games.services import action_submit
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    deliver,
    from_fixture,
    latest_turn_email,
    numbered,
    people,
    reply_address,
    seat_to_act,
    start_game,
    turn_emails,
)

pytestmark = pytest.mark.django_db


def _started(on_commit: OnCommit) -> tuple[Game, User]:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    return game, seat.user


def test_a_reply_with_a_number_plays_that_move_through_the_same_service_as_the_web(
    on_commit: OnCommit,
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    moves = numbered(str(email.body))
    before = game.seq
    position = seat_to_act(game).position
    expected = numbered_moves(game, position, before).number(3)
    assert expected is not None and moves[3] == expected.label
    mail.outbox.clear()

    outcome = deliver(on_commit, client_reply(email, "3"))

    assert (outcome.status, outcome.answer) == ("played", "played")
    game.refresh_from_db()
    event = Event.objects.get(game=game, seq=before + 1)
    # The same event a web move makes: an action by the player's seat, as the player.
    assert (event.kind, event.seat, event.actor) == ("action", position, f"user:{player.pk}")
    assert event.action == expected.action
    assert event.idempotency_key.startswith("mail:")
    # The same emails to the others: the next player's turn email.
    nxt = seat_to_act(game)
    assert nxt.user is not None and nxt.user != player
    assert len(turn_emails(nxt.user)) == 1
    # A short confirmation to the player, threaded to their reply, never itself answered.
    (confirmation,) = answers_to(player)
    assert confirmation.subject == "Re: Your turn in Skull Bay"
    assert "Move 3 is played in Skull Bay." in str(confirmation.body)
    assert str(event.payload.get("text", "")).split(" ")[0] in str(confirmation.body)
    assert confirmation.extra_headers["In-Reply-To"].startswith("<")
    assert not confirmation.reply_to


@pytest.mark.parametrize("text", ["3", "3.", "move 3", "Move 3", "  3  ", "#3", "Hi captain,\n\n3\n\nAnne"])
def test_the_ways_of_writing_a_number(on_commit: OnCommit, text: str) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    expected = numbered_moves(game, seat_to_act(game).position, game.seq).number(3)
    assert expected is not None
    assert deliver(on_commit, client_reply(email, text)).status == "played"
    assert Event.objects.get(game=game, seq=game.seq + 1).action == expected.action


def test_the_same_message_delivered_twice_moves_once(on_commit: OnCommit) -> None:
    game, player = _started(on_commit)
    raw = client_reply(latest_turn_email(player), "2")
    before = game.seq
    first = deliver(on_commit, raw)
    events = Event.objects.filter(game=game).count()
    sent = len(mail.outbox)
    second = deliver(on_commit, raw)
    assert (first.status, second.status) == ("played", "duplicate")
    assert Event.objects.filter(game=game).count() == events
    assert Event.objects.filter(game=game, actor=f"user:{player.pk}", seq__gt=before).count() == 1
    assert len(mail.outbox) == sent  # no second confirmation, no second turn email
    assert Notification.objects.filter(user=player, kind=Notification.Kind.ANSWER).count() == 1


def test_a_forged_sender_changes_nothing_and_is_not_answered(
    on_commit: OnCommit,
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    other = User.objects.exclude(pk=player.pk).first()
    assert other is not None
    mail.outbox.clear()
    for sender in (other.email, "stranger@example.test", player.email.replace("@", "@mail.")):
        outcome = deliver(on_commit, client_reply(email, "1", sender=sender))
        assert (outcome.status, outcome.answer) == ("not_the_player", "")
    assert Event.objects.filter(game=game).count() == game.seq
    assert mail.outbox == []


def test_the_senders_address_is_compared_without_regard_to_case(
    on_commit: OnCommit,
) -> None:
    _game, player = _started(on_commit)
    raw = client_reply(latest_turn_email(player), "1", sender=f"Anne <{player.email.upper()}>")
    assert deliver(on_commit, raw).status == "played"


def test_an_altered_reply_address_changes_nothing_and_is_not_answered(
    on_commit: OnCommit,
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    address = reply_address(email)
    local, domain = address.split("@")
    kind, game_part, seat_part, seq_part, signature = local.split("-")
    other_seat = str((int(seat_part, 36) + 1) % 3)
    last = "a" if signature[-1] != "a" else "b"
    altered = [
        f"{kind}-{game_part}-{other_seat}-{seq_part}-{signature}@{domain}",  # another seat
        f"{kind}-{game_part}-{seat_part}-{int(seq_part, 36) + 1:x}-{signature}@{domain}",  # another seq
        f"{kind}-{game_part}-{seat_part}-{seq_part}-{signature[:-1]}{last}@{domain}",  # another signature
        f"{kind}-{game_part}-{seat_part}-{seq_part}@{domain}",  # no signature
        f"captain@{domain}",
    ]
    mail.outbox.clear()
    for target in altered:
        raw = client_reply(email, "1").replace(address.encode(), target.encode())
        assert target.encode() in raw
        outcome = deliver(on_commit, raw)
        assert (outcome.status, outcome.answer) == ("unknown_address", "")
    assert Event.objects.filter(game=game).count() == game.seq
    assert mail.outbox == []
    # A mail server that changes the address's case changes nothing.
    upper = client_reply(email, "1").replace(address.encode(), address.upper().encode())
    assert deliver(on_commit, upper).status == "played"


def test_a_reply_for_an_older_position_is_not_played_and_says_the_game_moved_on(
    on_commit: OnCommit,
) -> None:
    game, first = _started(on_commit)
    old_email = latest_turn_email(first)
    # The first player moves on the web; later it is their turn again.
    for _ in range(3):
        seat = seat_to_act(game)
        assert seat.user is not None
        move = numbered_moves(game, seat.position, game.seq).number(1)
        assert move is not None
        with on_commit(execute=True):
            action_submit(game_id=game.pk, user=seat.user, action=move.action, expected_seq=game.seq)
        game.refresh_from_db()
    assert seat_to_act(game).user == first
    seq = game.seq
    mail.outbox.clear()

    outcome = deliver(on_commit, client_reply(old_email, "1"))

    assert (outcome.status, outcome.answer) == ("stale", "stale")
    game.refresh_from_db()
    assert game.seq == seq
    (answer,) = answers_to(first)
    text = str(answer.body)
    assert "Your reply was not played: it answered an earlier position of Skull Bay" in text
    assert "What happened since:" in text and "It is your turn now." in text
    # The current moves, with a reply address for the current position.
    current = numbered_moves(game, seat_to_act(game).position, seq)
    assert numbered(text) == {move.number: move.label for move in current.moves}
    assert reply_address(answer) == move_address(game.pk, seat_to_act(game).position, seq)
    # ... which works.
    assert deliver(on_commit, client_reply(answer, "1")).status == "played"


def test_a_stale_reply_when_it_is_not_the_players_turn_says_so(
    on_commit: OnCommit,
) -> None:
    _game, first = _started(on_commit)
    email = latest_turn_email(first)
    assert deliver(on_commit, client_reply(email, "1")).status == "played"
    mail.outbox.clear()
    # Another message (a second thought) to the same email: the game has moved on.
    outcome = deliver(on_commit, client_reply(email, "2"))
    assert outcome.status == "stale"
    (answer,) = answers_to(first)
    assert "It is not your turn now: we will email you when it is." in str(answer.body)
    assert numbered(str(answer.body)) == {} and not answer.reply_to


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("999", "There is no move 999: your moves are numbered 1 to"),
        ("0", "There is no move 0: your moves are numbered 1 to"),
        ("", "Your reply had no text of its own outside the quoted email"),
        ("I am not sure yet", "We could not read a move in your reply (“I am not sure yet”)."),
        ("pass", "You cannot pass now: choose one of your moves."),
    ],
)
def test_a_reply_that_is_not_a_move_says_what_went_wrong_and_lists_the_moves_again(
    on_commit: OnCommit, text: str, said: str
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    mail.outbox.clear()
    outcome = deliver(on_commit, client_reply(email, text))
    assert (outcome.status, outcome.answer) == ("problem", "problem")
    assert Event.objects.filter(game=game).count() == game.seq
    (answer,) = answers_to(player)
    body = str(answer.body)
    assert "Your reply to Skull Bay was not played." in body and said in body
    assert numbered(body) == numbered(str(email.body))
    assert reply_address(answer) == reply_address(email)  # the position is the same


@pytest.mark.parametrize("client", ["gmail", "outlook", "apple_mail", "thunderbird"])
def test_replies_from_common_mail_clients_play_the_number_above_their_quote(
    on_commit: OnCommit, client: str
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    expected = numbered_moves(game, seat_to_act(game).position, game.seq).number(4)
    assert expected is not None
    raw = from_fixture(client, sender=player.email, to=reply_address(email), reply="4", answering=email)
    assert deliver(on_commit, raw).status == "played"
    assert Event.objects.get(game=game, seq=game.seq + 1).action == expected.action


@pytest.mark.parametrize("client", ["gmail", "outlook", "apple_mail", "thunderbird", "html_only"])
def test_a_client_reply_with_nothing_typed_plays_nothing_from_its_quote(
    on_commit: OnCommit, client: str
) -> None:
    """Each sample quotes an older reply whose text was "7": only the quote-stripping keeps
    that number from being read as this reply's move."""
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    raw = from_fixture(client, sender=player.email, to=reply_address(email), reply="", answering=email)
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("problem", "problem")
    assert Event.objects.filter(game=game).count() == game.seq
    (answer,) = answers_to(player)
    assert "There is no move 7" not in str(answer.body)


def test_an_html_only_reply_is_read(on_commit: OnCommit) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    expected = numbered_moves(game, seat_to_act(game).position, game.seq).number(5)
    assert expected is not None
    raw = from_fixture("html_only", sender=player.email, to=reply_address(email), reply="5", answering=email)
    assert b"text/plain" not in raw
    assert deliver(on_commit, raw).status == "played"
    assert Event.objects.get(game=game, seq=game.seq + 1).action == expected.action


@pytest.mark.parametrize("fixture", ["out_of_office", "bounce"])
def test_automatic_mail_is_ignored_and_never_answered(
    on_commit: OnCommit, fixture: str
) -> None:
    game, player = _started(on_commit)
    email = latest_turn_email(player)
    raw = from_fixture(fixture, sender=player.email, to=reply_address(email), reply="1", answering=email)
    mail.outbox.clear()
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("automatic", "")
    assert Event.objects.filter(game=game).count() == game.seq
    assert mail.outbox == []


@pytest.mark.parametrize(
    "header",
    [
        b"Auto-Submitted: auto-replied",
        b"Auto-Submitted: auto-generated; owner-email=anne@example.test",
        b"X-Autoreply: yes",
        b"X-Autorespond: vacation",
        b"Precedence: auto_reply",
        b"Precedence: bulk",
    ],
)
def test_each_automatic_reply_header_alone_stops_a_reply(
    on_commit: OnCommit, header: bytes
) -> None:
    game, player = _started(on_commit)
    raw = header + b"\r\n" + client_reply(latest_turn_email(player), "1")
    mail.outbox.clear()
    assert deliver(on_commit, raw).status == "automatic"
    assert mail.outbox == [] and Event.objects.filter(game=game).count() == game.seq


def test_a_bounce_by_its_empty_envelope_sender_is_ignored(
    on_commit: OnCommit,
) -> None:
    game, player = _started(on_commit)
    raw = client_reply(latest_turn_email(player), "1")
    assert deliver(on_commit, raw, envelope_sender="").status == "automatic"
    assert Event.objects.filter(game=game).count() == game.seq


def test_auto_submitted_no_is_a_person(on_commit: OnCommit) -> None:
    _game, player = _started(on_commit)
    raw = b"Auto-Submitted: no\r\n" + client_reply(latest_turn_email(player), "1")
    assert deliver(on_commit, raw).status == "played"


def test_answers_say_they_are_automatic_so_they_are_not_answered(
    on_commit: OnCommit,
) -> None:
    """No loop between two robots: our answer is marked RFC 3834 "auto-replied" (and tells
    Exchange not to send an out-of-office), and an answer of ours coming back is ignored."""
    _game, player = _started(on_commit)
    email = latest_turn_email(player)
    deliver(on_commit, client_reply(email, "nonsense"))
    (answer,) = answers_to(player)
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    assert answer.extra_headers["X-Auto-Response-Suppress"] == "All"
    mail.outbox.clear()
    bounced_back = answer.message().as_bytes()
    outcome = deliver(on_commit, bounced_back, recipients=[reply_address(email)])
    assert outcome.status == "automatic"
    assert mail.outbox == []
