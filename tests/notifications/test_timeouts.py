"""Deadlines: the sweep's reminders, each timeout policy as an ordinary event, three
timeouts in a row hand the seat to a bot, the sweep run twice changes nothing more, and time
away stretches deadlines."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

import engine
from games import tasks
from games.models import Event, Game, Notification, PlayerProfile, Seat
from games.services import InvalidInput, load_state, profile_set_away, rules_for
from games.services.play import PASS
from games.services.timeouts import due_deadlines, due_reminders, timeout_action
from tests.notifications.helpers import (
    OnCommit,
    clear_outbox,
    make_user,
    move,
    person_to_act,
    sent,
    start_game,
)

pytestmark = pytest.mark.django_db


def expire(game: Game, *, reminder: bool = False) -> None:
    past = timezone.now() - timedelta(minutes=1)
    field = "reminder_at" if reminder else "deadline"
    Game.objects.filter(pk=game.pk).update(**{field: past})
    game.refresh_from_db()


def sweep(on_commit: OnCommit) -> dict[str, int]:
    with on_commit(execute=True):
        result: dict[str, int] = tasks.sweep.delay().get()
    return result


def snapshot_of(game: Game) -> tuple[Any, ...]:
    game.refresh_from_db()
    seats = tuple(
        Seat.objects.filter(game=game).values_list("position", "consecutive_timeouts", "replaced_by_bot")
    )
    return game.seq, game.deadline, game.reminder_at, tuple(game.to_act), seats, Event.objects.count()


def test_deadline_passed_bot_policy_moves_for_the_late_player_and_tells_everyone(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    people = [make_user("anne"), make_user("bart", PlayerProfile.Notify.DAILY_DIGEST),
              make_user("cleo", PlayerProfile.Notify.NONE)]
    game = start_game(django_capture_on_commit_callbacks, people)
    late = person_to_act(game)
    before = game.seq
    clear_outbox()
    expire(game)

    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 1, "reminders": 0}

    game.refresh_from_db()
    event = Event.objects.get(game=game, seq=before + 1)
    assert (event.kind, event.seat, event.actor) == (Event.Kind.TIMEOUT, late.position, "system:timeout")
    assert event.action in rules_for(game).legal_actions(load_state(game, before), late.position)
    late.refresh_from_db()
    assert late.consecutive_timeouts == 1 and not late.replaced_by_bot
    assert game.deadline is not None and game.deadline > timezone.now() + timedelta(hours=47)
    assert late.position not in game.to_act

    # The timeout goes to everyone except "none"; the next player's turn email to each_turn only.
    timeouts = [m for m in sent() if m.subject.startswith("Timeout in Skull Bay")]
    assert sorted(m.to[0] for m in timeouts) == ["anne@example.test", "bart@example.test"]
    assert all(event.payload["text"] in m.body for m in timeouts)
    turn = [m for m in sent() if m.subject == "Your turn in Skull Bay"]
    nxt = person_to_act(game)
    assert nxt.user is not None
    assert [m.to for m in turn] == ([[nxt.user.email]] if nxt.user.username == "anne" else [])
    assert len(sent()) == len(timeouts) + len(turn)

    # The sweep again: the deadline moved on, nothing changes and nothing is sent.
    state = snapshot_of(game)
    count = len(sent())
    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 0, "reminders": 0}
    assert tasks.notify_timeout.delay(game.pk, event.seq).get() == 0
    assert snapshot_of(game) == state
    assert len(sent()) == count


def test_pass_policy_passes_when_passing_is_legal(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people, policy=Game.TimeoutPolicy.PASS)
    rules = rules_for(game)
    state = load_state(game)
    seat = game.to_act[0]

    class PassingAllowed:
        def legal_actions(self, state: Any, seat: int) -> list[dict[str, str]]:
            return [{"type": "other"}, dict(PASS)]

        def timeout_action(self, state: Any, seat: int) -> None:
            return None  # the rules leave a late seat to the game's policy

    assert timeout_action(game, PassingAllowed(), state, seat) == PASS
    # Pirates allows passing only when nothing else is legal: then a bot's move is played.
    fallback = timeout_action(game, rules, state, seat)
    assert fallback != PASS and fallback in rules.legal_actions(state, seat)


def test_pass_policy_without_a_legal_pass_plays_a_legal_move(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people, policy=Game.TimeoutPolicy.PASS)
    late = person_to_act(game)
    before = game.seq
    expire(game)
    sweep(django_capture_on_commit_callbacks)
    event = Event.objects.get(game=game, seq=before + 1)
    assert event.kind == Event.Kind.TIMEOUT and event.seat == late.position
    try:
        rules_for(game).apply(load_state(game, before), late.position, event.action or {})
    except engine.IllegalAction:  # pragma: no cover - the assertion below names the failure
        pytest.fail("the timeout move is not legal")


def test_none_policy_only_reminds_and_never_plays(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people, policy=Game.TimeoutPolicy.NONE)
    waiting = person_to_act(game)
    clear_outbox()
    seq = game.seq
    expire(game)
    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 0, "reminders": 0}
    game.refresh_from_db()
    assert game.seq == seq and game.deadline is None and game.to_act == [waiting.position]
    assert not Event.objects.filter(kind=Event.Kind.TIMEOUT).exists()
    assert sent() == []
    # Off the sweep's index range for good: the next sweep does not see it.
    assert list(due_deadlines(timezone.now())) == []


def test_reminder_once_before_the_deadline(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    waiting = person_to_act(game)
    assert waiting.user is not None
    assert game.reminder_at is not None and game.deadline is not None
    assert game.deadline - game.reminder_at == game.reminder_before
    clear_outbox()
    expire(game, reminder=True)

    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 0, "reminders": 1}
    messages = sent()
    expected = [([waiting.user.email], "Reminder: your move in Skull Bay")]
    assert [(m.to, m.subject) for m in messages] == expected
    assert "/l/" in messages[0].body and "List-Unsubscribe" in messages[0].extra_headers
    game.refresh_from_db()
    assert game.reminder_at is None

    state = snapshot_of(game)
    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 0, "reminders": 0}
    assert tasks.notify_reminder.delay(game.pk, game.seq).get() == 0
    assert snapshot_of(game) == state and len(sent()) == 1
    assert Notification.objects.filter(kind=Notification.Kind.REMINDER).count() == 1


def test_three_timeouts_in_a_row_hand_the_seat_to_a_bot(
    django_capture_on_commit_callbacks: OnCommit, settings: SettingsWrapper
) -> None:
    settings.TIMEOUTS_BEFORE_BOT = 3
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    sleeper = person_to_act(game)
    assert sleeper.user is not None
    timeouts = 0
    while timeouts < 3:
        if person_to_act(game).position == sleeper.position:
            expire(game)
            sweep(django_capture_on_commit_callbacks)
            timeouts += 1
            sleeper.refresh_from_db()
            assert sleeper.consecutive_timeouts == timeouts
            assert sleeper.replaced_by_bot == (timeouts == 3)
        else:
            move(django_capture_on_commit_callbacks, game)

    handed = Event.objects.get(game=game, kind=Event.Kind.SEAT_TO_BOT)
    assert handed.seat == sleeper.position and handed.payload["seat"] == sleeper.position
    assert handed.actor == "system:timeout" and handed.action is None
    assert handed.payload["text"].startswith(f"{sleeper.user.username} ran out of time 3 times in a row")
    previous = Event.objects.get(game=game, seq=handed.seq - 1)
    assert (previous.kind, previous.seat) == (Event.Kind.TIMEOUT, sleeper.position)

    to_bot = [m for m in sent() if m.subject.startswith("A bot takes over")]
    assert sorted(m.to[0] for m in to_bot) == sorted(p.email for p in people)
    own = next(m for m in to_bot if m.to == [sleeper.user.email])
    assert own.subject == "A bot takes over your seat in Skull Bay"
    assert Notification.objects.filter(kind=Notification.Kind.SEAT_TO_BOT, key=str(handed.seq)).count() == 3

    # From now on the bot plays that seat: its next move is a bot event, and no turn emails.
    mark = len(sent())
    while not Event.objects.filter(game=game, seat=sleeper.position, seq__gt=handed.seq).exists():
        move(django_capture_on_commit_callbacks, game)
    later = Event.objects.filter(game=game, seat=sleeper.position, seq__gt=handed.seq).first()
    assert later is not None and later.kind == Event.Kind.BOT
    assert not any(m.to == [sleeper.user.email] and m.subject.startswith("Your turn") for m in sent()[mark:])


def test_a_move_in_time_resets_the_timeout_count(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    late = person_to_act(game)
    expire(game)
    sweep(django_capture_on_commit_callbacks)
    late.refresh_from_db()
    assert late.consecutive_timeouts == 1
    while person_to_act(game).position != late.position:
        move(django_capture_on_commit_callbacks, game)
    move(django_capture_on_commit_callbacks, game)
    late.refresh_from_db()
    assert late.consecutive_timeouts == 0


def test_sweep_queries_running_games_only_in_batches(
    django_capture_on_commit_callbacks: OnCommit, settings: SettingsWrapper
) -> None:
    settings.SWEEP_BATCH_SIZE = 2
    owner = make_user("anne")
    now = timezone.now()
    common = {"rules_id": "pirates", "rules_version": 1, "players": 3, "created_by": owner}
    due = [
        Game.objects.create(status="active", deadline=now - timedelta(minutes=m), **common) for m in (1, 3, 2)
    ]
    Game.objects.create(status="finished", deadline=now - timedelta(hours=1), **common)
    Game.objects.create(status="active", deadline=now + timedelta(hours=1), **common)
    Game.objects.create(status="active", reminder_at=now - timedelta(minutes=5), **common)
    assert [g.pk for g in due_deadlines(now)] == [due[1].pk, due[2].pk]
    assert len(due_reminders(now)) == 1


def test_time_away_stretches_the_deadline(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    # Whoever plays after the first mover goes away for 5 days.
    first = person_to_act(game)
    order = [p for p in list(Seat.objects.filter(game=game).order_by("position")) if p.user is not None]
    assert len(order) == 3
    away_until = timezone.now() + timedelta(days=5)
    for seat in order:
        if seat.position != first.position:
            assert seat.user is not None
            profile_set_away(user=seat.user, until=away_until)
    move(django_capture_on_commit_callbacks, game)
    assert game.deadline is not None
    assert game.deadline == away_until + game.move_time
    assert game.deadline > timezone.now() + timedelta(days=6)


def test_time_away_is_at_most_fourteen_days() -> None:
    user = make_user("anne")
    now = timezone.now()
    profile = profile_set_away(user=user, until=now + timedelta(days=14), now=now)
    assert profile.away_until == now + timedelta(days=14)
    with pytest.raises(InvalidInput, match="at most 14 days"):
        profile_set_away(user=user, until=now + timedelta(days=14, seconds=1), now=now)
    with pytest.raises(InvalidInput, match="future"):
        profile_set_away(user=user, until=now - timedelta(hours=1), now=now)
    assert profile_set_away(user=user, until=None).away_until is None
