"""Turn emails for their turn: the email for (game, seq) goes only to a seat that is
to act at that seq, and only while the game is still there (checked under the game's lock in the
short transaction that claims the email, before sending). An email whose turn passed is
dropped, and does not hold back the player's email for the turn they are actually at."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives

from engine.bots import choose_action
from games import emails, outbox
from games.models import Game, Notification, Outbox, Seat
from games.services import action_submit, game_create, game_start, load_state, rules_for, seat_join
from tests.conftest import CeleryWorker
from tests.notifications.helpers import OnCommit, make_user, person_to_act, sent, start_game

Kind = Notification.Kind


def play(game: Game) -> Seat:
    """The person to act plays the greedy move. No side effects run here (the relay lags)."""
    seat = person_to_act(game)
    assert seat.user is not None
    rng = random.Random(game.seq)
    action = choose_action(rules_for(game), load_state(game), seat.position, "greedy", rng)
    action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return seat


def turn_emails_sent(game: Game) -> list[tuple[int, int]]:
    """(user id, seq) of every turn email that went out for ``game``."""
    notes = Notification.objects.filter(game=game, kind=Kind.TURN, sent_at__isnull=False)
    return sorted((note.user_id, int(note.key)) for note in notes)


def assert_each_went_to_a_seat_to_act_at_its_seq(game: Game) -> None:
    rules = rules_for(game)
    seat_of = {s.user_id: s.position for s in Seat.objects.filter(game=game, user__isnull=False)}
    for user_id, seq in turn_emails_sent(game):
        to_act = rules.to_act(load_state(game, seq))
        assert seat_of[user_id] in to_act, f"user {user_id} emailed for seq {seq}, when {to_act} were to act"


def assert_the_person_to_act_was_emailed_for_this_turn(game: Game) -> None:
    waiting = person_to_act(game)
    since = emails.last_own_move(game, waiting.position)
    mine = [seq for user_id, seq in turn_emails_sent(game) if user_id == waiting.user_id]
    assert any(since < seq <= game.seq for seq in mine), (waiting.user_id, since, game.seq, mine)


def unfinished_rows(game: Game) -> Any:
    """Rows of play not done yet (the lobby's seats-filled email is due minutes later)."""
    rows = Outbox.objects.filter(game=game).exclude(status=Outbox.Status.DONE)
    return rows.exclude(kind=Outbox.Kind.SEATS_FILLED)


@pytest.mark.django_db
def test_a_lagging_relay_emails_only_the_turn_the_game_is_at() -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = game_create(creator=people[0], rules_id="pirates", players=3, title="Skull Bay")
    for person in people[1:]:
        seat_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, by=people[0])
    game.refresh_from_db()
    for _ in range(12):
        play(game)
    assert Outbox.objects.filter(game=game, kind=Outbox.Kind.TURN).count() == 13

    # The seats-filled email is not due yet; the twelve passed turns are settled without a task.
    assert outbox.relay() == 1
    # Twelve turns passed before their emails could go: only the current one is sent.
    assert turn_emails_sent(game) == [(person_to_act(game).user_id, game.seq)]
    assert [m.to for m in sent()] == [[person_to_act(game).user.email]]  # type: ignore[union-attr]
    assert not unfinished_rows(game).exists()
    # Nothing is left behind for the turns that passed: no Notification rows never tried.
    assert Notification.objects.filter(game=game).count() == 1


@pytest.mark.django_db
def test_a_player_who_moves_while_their_email_is_built_is_not_sent_it_and_gets_the_next_one(
    django_capture_on_commit_callbacks: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    play(game)  # the first player moves; the second is to act at this seq
    fast = person_to_act(game)
    assert fast.user is not None
    their_seq = game.seq
    real_render = emails.render

    def render_slowly(template: str, **kwargs: Any) -> EmailMultiAlternatives:
        # While the email is being built, its recipient has already moved (they were on the
        # page): by the time it would go out, it is no longer their turn.
        if template == "turn" and kwargs["to"] == fast.user.email and game.seq == their_seq:  # type: ignore[union-attr]
            play(game)
        return real_render(template, **kwargs)

    monkeypatch.setattr(emails.turns, "render", render_slowly)
    outbox.relay()
    assert game.seq == their_seq + 1
    assert (fast.user_id, their_seq) not in turn_emails_sent(game)
    assert not Notification.objects.filter(user=fast.user, key=str(their_seq)).exists()
    monkeypatch.undo()

    # Round the table until the fast player is to act again: that turn's email reaches them,
    # although they were never emailed for the turn they played unannounced.
    for _ in range(10):
        outbox.relay()
        if person_to_act(game).position == fast.position:
            break
        play(game)
    assert person_to_act(game).position == fast.position
    assert (fast.user_id, game.seq) in turn_emails_sent(game)
    assert_each_went_to_a_seat_to_act_at_its_seq(game)


@pytest.fixture
def celery_worker_env() -> dict[str, str]:
    return {"BOT_MOVE_DELAY_SECONDS": "0", "EMAIL_BACKEND": "tests.notifications.helpers.SlowDummyBackend"}


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fast_play_against_a_real_worker_emails_each_turn_to_a_seat_to_act(
    celery_worker: CeleryWorker,
) -> None:
    """The fault-injection finding: under fast play a third of the turn emails were for a turn
    the recipient was not to act at, and real turns were then held back by them."""
    people: list[User] = [
        User.objects.create_user(name, f"{name}@example.test", "a-long-password-1")
        for name in ("ann", "ben", "cal")
    ]
    game = game_create(creator=people[0], rules_id="pirates", players=3, title="Skull Bay")
    for person in people[1:]:
        seat_join(game_id=game.pk, user=person)
    game_start(game_id=game.pk, by=people[0])
    game.refresh_from_db()
    pace = random.Random(11)
    for _ in range(40):
        if game.status != Game.Status.ACTIVE:
            break
        play(game)  # each commit nudges the worker's relay; emails race the next moves
        time.sleep(pace.uniform(0, 0.3))  # sometimes before the email goes, sometimes after

    deadline = time.monotonic() + 60
    unfinished = unfinished_rows(game)
    while unfinished.exists():
        assert time.monotonic() < deadline, list(unfinished.values("kind", "key", "status"))
        time.sleep(0.2)
    # Each was checked under the game's lock, in the claiming transaction, while the game was
    # at its seq; the send itself holds no lock, so a move may commit while an email is on its
    # way (a slow mail server must not hold up moves): sent_at may follow the next event.
    assert_each_went_to_a_seat_to_act_at_its_seq(game)
    if game.status == Game.Status.ACTIVE:
        assert_the_person_to_act_was_emailed_for_this_turn(game)
    # Never two emails for one turn of one player.
    assert len(set(turn_emails_sent(game))) == len(turn_emails_sent(game))
