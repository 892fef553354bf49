"""Turn emails: "your turn" after every committed event, exactly once per seat and seq,
with the game's name, what happened since the player's last move, a log-in link into the game
and one-click unsubscribe headers; preferences honoured; retries never send twice."""

from __future__ import annotations

import html
import smtplib
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from django.core.mail import EmailMessage
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games import tasks
from games.models import Event, Notification, PlayerProfile
from tests.notifications.helpers import (
    SITE,
    OnCommit,
    clear_outbox,
    html_of,
    links,
    make_user,
    move,
    person_to_act,
    sent,
    start_game,
)

pytestmark = pytest.mark.django_db


def test_start_emails_the_first_player_exactly_once(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    first = person_to_act(game)
    assert first.user is not None
    messages = sent()
    assert len(messages) == 1
    message = messages[0]
    assert message.to == [first.user.email]
    assert message.subject == "Your turn in Skull Bay"
    assert "The game started with 3 players." in message.body
    assert "Skull Bay" in html_of(message)
    notes = Notification.objects.filter(kind=Notification.Kind.TURN)
    assert [(n.user_id, n.game_id, n.key, n.sent_at is not None) for n in notes] == [
        (first.user.pk, game.pk, str(game.seq), True)
    ]


def test_turn_email_has_login_link_summary_and_unsubscribe(
    django_capture_on_commit_callbacks: OnCommit, client: Client
) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    clear_outbox()
    mover = move(django_capture_on_commit_callbacks, game)
    played = Event.objects.get(game=game, seq=game.seq)
    nxt = person_to_act(game)
    assert nxt.user is not None and nxt.position != mover.position
    messages = sent()
    assert [m.to for m in messages] == [[nxt.user.email]]
    message = messages[0]
    assert message.subject == "Your turn in Skull Bay"
    # What happened since this player's last move: the mover's sentence is in the summary.
    assert played.payload["text"] in message.body
    assert html.escape(played.payload["text"]) in html_of(message)

    login = next(url for url in links(message) if url.startswith(f"{SITE}/l/"))
    assert login in html_of(message)
    response = client.get(login.removeprefix(SITE))
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.pk}/"
    assert client.session["_auth_user_id"] == str(nxt.user.pk)

    unsubscribe = next(url for url in links(message) if url.startswith(f"{SITE}/unsubscribe/"))
    assert message.extra_headers["List-Unsubscribe"] == f"<{unsubscribe}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in html_of(message)


def test_notify_turn_twice_sends_once_and_stale_seq_sends_nothing(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    assert len(sent()) == 1
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    move(django_capture_on_commit_callbacks, game)
    assert len(sent()) == 2
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    assert tasks.notify_turn.delay(game.pk, game.seq - 1).get() == 0  # the game moved past it
    assert len(sent()) == 2
    assert Notification.objects.filter(kind=Notification.Kind.TURN).count() == 2


def test_a_lost_row_is_not_a_second_email_even_when_rows_exist_unsent(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    """A row created by a task that died before sending is picked up, and sent once."""
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    Notification.objects.all().update(sent_at=None)
    clear_outbox()
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 1
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    assert len(sent()) == 1
    assert Notification.objects.get().attempts == 2


def test_digest_and_none_players_get_no_turn_emails(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [
        make_user("anne", PlayerProfile.Notify.DAILY_DIGEST),
        make_user("bart", PlayerProfile.Notify.NONE),
        make_user("cleo", PlayerProfile.Notify.DAILY_DIGEST),
    ]
    game = start_game(django_capture_on_commit_callbacks, people)
    for _ in range(4):
        move(django_capture_on_commit_callbacks, game)
    assert sent() == []
    assert not Notification.objects.exists()


@pytest.fixture
def eager_retries() -> Iterator[None]:
    """Eager tasks that propagate errors raise Retry instead of running again: let them retry."""
    from pirates_site.celery import app

    previous = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = previous


class FlakyBackend(LocmemBackend):
    """Refuses the first ``failures`` sends like a mail server that is down, then delivers."""

    failures = 0

    def send_messages(self, messages: Sequence[EmailMessage]) -> int:
        if FlakyBackend.failures > 0:
            FlakyBackend.failures -= 1
            raise smtplib.SMTPServerDisconnected("connection unexpectedly closed")
        return super().send_messages(messages)


@pytest.mark.usefixtures("eager_retries")
def test_mail_server_down_is_retried_and_sends_once(
    django_capture_on_commit_callbacks: OnCommit, settings: SettingsWrapper, caplog: Any
) -> None:
    settings.EMAIL_BACKEND = "tests.notifications.test_turn_emails.FlakyBackend"
    FlakyBackend.failures = 2
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    assert len(sent()) == 1
    note = Notification.objects.get(game=game, kind=Notification.Kind.TURN)
    assert note.sent_at is not None and note.attempts == 3
    assert "retry 1" in caplog.text and "retry 2" in caplog.text
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    assert len(sent()) == 1


def test_retry_backoff_grows_exponentially(settings: SettingsWrapper) -> None:
    settings.EMAIL_RETRY_BASE_SECONDS = 30
    settings.EMAIL_RETRY_MAX_SECONDS = 3600
    assert [tasks.retry_countdown(n) for n in range(9)] == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]


@pytest.mark.usefixtures("eager_retries")
def test_mail_server_down_for_good_gives_up_after_max_retries(
    django_capture_on_commit_callbacks: OnCommit, settings: SettingsWrapper
) -> None:
    settings.EMAIL_BACKEND = "tests.notifications.test_turn_emails.FlakyBackend"
    settings.EMAIL_MAX_RETRIES = 3
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    FlakyBackend.failures = 0
    game = start_game(django_capture_on_commit_callbacks, people)
    Notification.objects.all().delete()
    clear_outbox()
    FlakyBackend.failures = 100
    with pytest.raises(smtplib.SMTPServerDisconnected):
        tasks.notify_turn.delay(game.pk, game.seq).get()
    note = Notification.objects.get()
    assert note.sent_at is None and note.attempts == 4
    FlakyBackend.failures = 0
    assert sent() == []


def test_a_turn_email_reads_its_persons_profile_and_address_with_their_seat(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.emails import turns

    people = [make_user("anne", notify=PlayerProfile.Notify.EACH_TURN), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    Notification.objects.all().delete()  # the first turn's email is owed again
    clear_outbox()
    with CaptureQueriesContext(connection) as queries:
        assert turns.send_turn_emails(game_id=game.pk, seq=game.seq) == 1
    # The preference, the address and the time zone (and the name the email signs with) come
    # with the seat's row: no query of their own, however often the email needs them.
    own = [
        q["sql"] for q in queries.captured_queries
        if q["sql"].startswith("SELECT") and q["sql"].split(" FROM ")[1].split()[0]
        in ('"games_playerprofile"', '"games_verifiedaddress"')
    ]
    assert not own, own
    (message,) = sent()
    assert message.to == [person_to_act(game).user.email]  # type: ignore[union-attr]


def test_a_turn_email_task_reads_the_turn_again_only_for_someone_it_held_back(
    django_capture_on_commit_callbacks: OnCommit, monkeypatch: pytest.MonkeyPatch, settings: SettingsWrapper
) -> None:
    """After its send, the task asks when the turn's row is due again (``turn_emails_wait``)
    only if the send held someone back: with everyone to act emailed, nobody can still be
    owed, and the row is done without reading the turn again."""
    from django.utils import timezone

    from games import presence
    from games.models import Outbox, Seat

    settings.PRESENCE_SECONDS = 60
    people = [make_user(name, notify=PlayerProfile.Notify.WHEN_AWAY) for name in ("anne", "bart", "cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    looked: list[int] = []
    real_wait = presence.turn_emails_wait

    def wait(game_id: int, seq: int, now: Any = None) -> Any:
        looked.append(seq)
        return real_wait(game_id, seq, now)

    monkeypatch.setattr(presence, "turn_emails_wait", wait)
    Notification.objects.all().delete()  # the first turn's email is owed again
    clear_outbox()
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 1
    assert looked == []
    # At the table, with "only when away": held back, so the task looks, and the turn's row
    # waits for when they will have been away PRESENCE_SECONDS.
    Notification.objects.all().delete()
    clear_outbox()
    seen_at = timezone.now()
    Seat.objects.filter(pk=person_to_act(game).pk).update(last_seen_at=seen_at)
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0
    assert looked == [game.seq]
    row = Outbox.objects.get(game=game, kind=Outbox.Kind.TURN, key=game.seq)
    assert row.status == Outbox.Status.PENDING and row.due_at >= seen_at + timedelta(seconds=60)
    assert sent() == []
