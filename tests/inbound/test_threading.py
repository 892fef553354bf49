"""Mail that threads and says it is automatic: every email of one game to one player refers to
one root Message-ID of that game and player (``References`` and ``In-Reply-To``), answers to
replies refer to the reply they answer as well, every notification is RFC 3834
"auto-generated" and asks Exchange for no automatic responses, and answers stay "auto-replied".
Headers are read from each email as it is serialised for the mail server."""

from __future__ import annotations

import re
from datetime import date, timedelta
from email.message import EmailMessage

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from games import emails, tasks
from games.emails import send_digest, send_reminders, thread_root_id
from games.inbound.parse import parse
from games.models import Game, PlayerProfile
from games.seats_filled import send_seats_filled
from games.services import game_create, game_start, seat_join
from tests.inbound.helpers import (
    OnCommit,
    client_reply,
    deliver,
    latest_turn_email,
    people,
    seat_to_act,
    start_game,
)
from tests.notifications.helpers import move

pytestmark = pytest.mark.django_db

MAX_MOVES = 600
MESSAGE_ID = re.compile(r"<[^<>\s]+@[^<>\s]+>")


def received() -> list[EmailMessage]:
    """Every email sent so far, as the mail server gets it."""
    return [parse(message.message().as_bytes()) for message in mail.outbox]


def kind_of(message: EmailMessage) -> str:
    subject = str(message["Subject"])
    for prefix, kind in (("Your turn in", "turn"), ("Reminder:", "reminder"), ("Timeout in", "timeout"),
                         ("A bot takes over", "seat_to_bot"), ("Game over", "game_over"),
                         ("Every seat of", "seats_filled"), ("Re: ", "answer")):
        if subject.startswith(prefix):
            return kind
    return "other"


def assert_notification_of_thread(message: EmailMessage, game: Game, user: User) -> None:
    root = thread_root_id(game.pk, user.pk)
    assert str(message["References"]) == root and str(message["In-Reply-To"]) == root, message["Subject"]
    assert str(message["Auto-Submitted"]) == "auto-generated"
    assert str(message["X-Auto-Response-Suppress"]) == "All"
    assert str(message["Message-ID"]) != root  # its own id, fixed by its Notification row


def test_every_email_of_a_game_threads_under_one_root_per_player_and_says_it_is_automatic(
    on_commit: OnCommit, settings: SettingsWrapper
) -> None:
    settings.TIMEOUTS_BEFORE_BOT = 1
    anne, bart, cleo = people("anne", "bart", "cleo")
    by_address = {person.email: person for person in (anne, bart, cleo)}
    # The lobby: every seat taken, the creator told to start (sent once, on the last seat's commit).
    with on_commit(execute=True):
        game = game_create(creator=anne, rules_id="pirates", players=3, bot_seats=0, title="Skull Bay")
        seat_join(game_id=game.pk, user=bart)
        seat_join(game_id=game.pk, user=cleo)
    assert [kind_of(m) for m in received()] == ["seats_filled"]
    assert not send_seats_filled(game_id=game.pk)
    with on_commit(execute=True):
        game_start(game_id=game.pk, by=anne)
    game.refresh_from_db()
    # A reminder, a reply answered, a timeout that hands the seat to a bot, then to the end.
    first = seat_to_act(game)
    assert first.user is not None
    assert send_reminders(game_id=game.pk, seq=game.seq) == 1
    reply = client_reply(latest_turn_email(first.user), "not sure yet")
    assert deliver(on_commit, reply).status == "problem"
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    with on_commit(execute=True):
        tasks.sweep.delay().get()
    game.refresh_from_db()
    for _ in range(MAX_MOVES):
        if game.status != Game.Status.ACTIVE:
            break
        move(on_commit, game)
    assert game.status == Game.Status.FINISHED

    messages = received()
    kinds = {kind_of(message) for message in messages}
    assert kinds >= {"turn", "reminder", "timeout", "seat_to_bot", "game_over", "seats_filled", "answer"}
    reply_id = str(parse(reply)["Message-ID"])
    for message in messages:
        user = by_address[str(message["To"])]
        if kind_of(message) == "answer":
            # Answers say what they answer, and stay in the game's thread.
            assert str(message["In-Reply-To"]) == reply_id
            assert str(message["References"]).split() == [thread_root_id(game.pk, user.pk), reply_id]
            assert str(message["Auto-Submitted"]) == "auto-replied"
            assert str(message["X-Auto-Response-Suppress"]) == "All"
        else:
            assert_notification_of_thread(message, game, user)
    # One root per game and player: never the same for two players, never an email's own id.
    roots = {thread_root_id(game.pk, person.pk) for person in (anne, bart, cleo)}
    assert len(roots) == 3 and all(MESSAGE_ID.fullmatch(root) for root in roots)
    assert roots.isdisjoint(str(message["Message-ID"]) for message in messages)
    # The root is fixed by the game and the player alone: the same whenever it is asked for.
    assert thread_root_id(game.pk, anne.pk) == emails.message_id("game", f"{game.pk}.{anne.pk}")


def test_two_games_thread_apart(on_commit: OnCommit) -> None:
    players = people("anne", "bart", "cleo")
    by_address = {person.email: person for person in players}
    games = {game.display_name: game for game in (start_game(on_commit, players, title="Skull Bay"),
                                                  start_game(on_commit, players, title="Tortuga"))}
    turn = [message for message in received() if kind_of(message) == "turn"]
    assert {str(m["Subject"]).removeprefix("Your turn in ") for m in turn} == {"Skull Bay", "Tortuga"}
    for message in turn:
        game = games[str(message["Subject"]).removeprefix("Your turn in ")]
        assert_notification_of_thread(message, game, by_address[str(message["To"])])
    anne = players[0]
    assert thread_root_id(games["Skull Bay"].pk, anne.pk) != thread_root_id(games["Tortuga"].pk, anne.pk)


def test_the_digest_says_it_is_automatic_and_belongs_to_no_game_thread(on_commit: OnCommit) -> None:
    anne, bart, cleo = people("anne", "bart", "cleo")
    for person in (anne, bart, cleo):
        chosen = {"notify": PlayerProfile.Notify.DAILY_DIGEST}
        PlayerProfile.objects.update_or_create(user=person, defaults=chosen)
    game = start_game(on_commit, [anne, bart, cleo])
    seat = seat_to_act(game)
    assert seat.user is not None
    mail.outbox.clear()
    assert send_digest(user_id=seat.user.pk, day=date(2025, 3, 5))
    (digest,) = received()
    assert str(digest["Auto-Submitted"]) == "auto-generated"
    assert str(digest["X-Auto-Response-Suppress"]) == "All"
    assert digest["References"] is None and digest["In-Reply-To"] is None
