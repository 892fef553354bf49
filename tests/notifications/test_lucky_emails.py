"""Emails for Captain Lucky: turn emails say what happened since the player's last
move, every roll's dice included; reminders and timeouts work for a rule set whose turn has
several actions (a timeout's bot plays the late seat's whole turn through ``engine.bots`` and
``rules.evaluate``, and counts one timeout); and no email ever names cards another seat drew
(K-END-4: the engine's private sentences reach only the seat that drew)."""

from __future__ import annotations

import html
import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone

from engine.bots import choose_action
from games import tasks
from games.models import Event, Game, Seat
from games.services import action_submit, game_create, game_start, load_state, rules_for, seat_join
from games.services.timeouts import TIMEOUT_ACTOR
from tests.notifications.helpers import OnCommit, clear_outbox, html_of, make_user, person_to_act, sent

pytestmark = pytest.mark.django_db

TITLE = "Lucky Reef"
MAX_ACTIONS = 600


def start_lucky(on_commit: OnCommit, people: list[User], *, bots: int = 0,
                policy: str = Game.TimeoutPolicy.BOT) -> Game:
    with on_commit(execute=True):
        game = game_create(creator=people[0], rules_id="captain-lucky", players=len(people) + bots,
                           bot_seats=bots, title=TITLE, timeout_policy=policy)
        for person in people[1:]:
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=people[0])
    game.refresh_from_db()
    return game


def play(on_commit: OnCommit, game: Game) -> None:
    """The person to act plays: the bigger places and re-rolls make many draws and rolls."""
    seat = person_to_act(game)
    assert seat.user is not None
    actions = rules_for(game).legal_actions(load_state(game), seat.position)
    places = [a for a in actions if a["type"] == "place"]
    rerolls = [a for a in actions if a["type"] in ("reroll", "captain_bonus")]
    if places:
        action = max(places, key=lambda a: a["count"])
    elif rerolls:
        action = rerolls[0]
    else:
        action = choose_action(rules_for(game), load_state(game), seat.position, "greedy",
                               random.Random(game.seq))
    with on_commit(execute=True):
        action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
    game.refresh_from_db()


def seat_of(game: Game, message: EmailMultiAlternatives) -> int:
    return Seat.objects.get(game=game, user__email=message.to[0]).position


def others_private(game: Game, seat: int) -> list[str]:
    """Every sentence meant for another seat only: the kinds of cards it drew."""
    found = []
    for event in Event.objects.filter(game=game):
        for owner, text in (event.payload.get("private") or {}).items():
            if int(owner) != seat:
                found.append(text)
    return found


def assert_names_no_other_draw(game: Game, message: EmailMultiAlternatives) -> None:
    seat = seat_of(game, message)
    body, page = str(message.body), html_of(message)
    for text in others_private(game, seat):
        assert text not in body and html.escape(text) not in page, (message.subject, seat, text)


def test_turn_emails_tell_every_roll_since_the_last_move_and_only_the_readers_own_draws(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    """The turn email's summary is the log since the player's last move as that player reads
    it: the other seats' places, steals and dice ("rolls: ☠ blank"), their draws by number,
    and never the kinds another seat drew (K-END-4)."""
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_lucky(django_capture_on_commit_callbacks, people)
    clear_outbox()
    checked = rolls = draws = 0
    for _ in range(MAX_ACTIONS):
        if game.status != Game.Status.ACTIVE or (checked >= 12 and rolls and draws):
            break
        before = len(sent())
        play(django_capture_on_commit_callbacks, game)
        for message in sent()[before:]:
            assert message.subject == f"Your turn in {TITLE}"
            seat = seat_of(game, message)
            assert seat == game.to_act[0]
            assert_names_no_other_draw(game, message)
            # Everything since the reader's last move: the other seats' sentences as everyone
            # reads them, draws by number only ("… and draws 2 cards.").
            last = Event.objects.filter(game=game, seat=seat).order_by("-seq").first()
            since = Event.objects.filter(game=game, seq__gt=last.seq if last else 1).order_by("seq")
            assert since.exists()
            for event in since:
                assert event.seat != seat
                assert event.payload["text"] in str(message.body)
                assert html.escape(event.payload["text"]) in html_of(message)
                rolls += "rolls: " in event.payload["text"]
                draws += bool(event.payload.get("private"))
            checked += 1
    assert checked >= 12 and rolls and draws


def test_game_over_emails_name_no_other_seats_draws(django_capture_on_commit_callbacks: OnCommit) -> None:
    """K-END-4 after the end: the game-over email's summary still hides other seats' draws."""
    people = [make_user("anne"), make_user("bart")]
    game = start_lucky(django_capture_on_commit_callbacks, people, bots=1)
    for _ in range(MAX_ACTIONS):
        if game.status != Game.Status.ACTIVE:
            break
        play(django_capture_on_commit_callbacks, game)
    assert game.status == Game.Status.FINISHED
    over = [m for m in sent() if m.subject == f"Game over: {TITLE}"]
    assert sorted(m.to[0] for m in over) == ["anne@example.test", "bart@example.test"]
    for message in sent():
        assert_names_no_other_draw(game, message)
        assert game.seed not in str(message.body)


def expire(game: Game, field: str = "deadline") -> None:
    Game.objects.filter(pk=game.pk).update(**{field: timezone.now() - timedelta(minutes=1)})
    game.refresh_from_db()


def sweep(on_commit: OnCommit) -> dict[str, int]:
    with on_commit(execute=True):
        result: dict[str, int] = tasks.sweep.delay().get()
    return result


@pytest.mark.parametrize("policy", [Game.TimeoutPolicy.BOT, Game.TimeoutPolicy.PASS])
def test_a_timeout_plays_the_late_seats_whole_turn_as_one_timeout(
    django_capture_on_commit_callbacks: OnCommit, policy: str,
) -> None:
    """Captain Lucky has no pass: under either policy the greedy bot (engine.bots, scoring with
    rules.evaluate) plays the late seat's turn to its end — place, steal, re-rolls or stop —
    as one timeout; everyone gets one timeout email naming every move; the next player's
    turn email follows."""
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_lucky(django_capture_on_commit_callbacks, people, policy=policy)
    late = person_to_act(game)
    before = game.seq
    clear_outbox()
    expire(game)
    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 1, "reminders": 0}
    game.refresh_from_db()
    run = list(Event.objects.filter(game=game, seq__gt=before).order_by("seq"))
    actions = [e.action or {} for e in run]
    assert run[0].kind == Event.Kind.TIMEOUT and actions[0]["type"] == "place"
    assert all(e.kind == Event.Kind.BOT and e.actor == TIMEOUT_ACTOR for e in run[1:])
    assert {e.seat for e in run} == {late.position}
    assert any(a["type"] == "steal" for a in actions), "the turn went on to its steal"
    # Each move was legal where it was made, and the turn is over.
    rules = rules_for(game)
    for event in run:
        assert event.action in rules.legal_actions(load_state(game, event.seq - 1), late.position)
    assert game.to_act and game.to_act != [late.position]
    late.refresh_from_db()
    assert late.consecutive_timeouts == 1 and not late.replaced_by_bot

    timeouts = [m for m in sent() if m.subject.startswith(f"Timeout in {TITLE}")]
    assert sorted(m.to[0] for m in timeouts) == sorted(p.email for p in people)
    for message in timeouts:
        reader = seat_of(game, message)
        for event in run:
            private = (event.payload.get("private") or {}).get(str(reader))
            assert (private or event.payload["text"]) in str(message.body)
        assert_names_no_other_draw(game, message)
    turn = [m for m in sent() if m.subject == f"Your turn in {TITLE}"]
    nxt = person_to_act(game)
    assert nxt.user is not None and [m.to for m in turn] == [[nxt.user.email]]
    assert len(sent()) == len(timeouts) + len(turn)


def test_a_timeout_in_the_middle_of_a_turn_finishes_it(django_capture_on_commit_callbacks: OnCommit) -> None:
    """A player who placed and then left: the timeout's bot steals (and decides the roll) for them."""
    people = [make_user("anne"), make_user("bart")]
    game = start_lucky(django_capture_on_commit_callbacks, people)
    mover = person_to_act(game)
    emails = len(sent())
    play(django_capture_on_commit_callbacks, game)  # a place: the same seat must steal now
    assert game.to_act == [mover.position]
    assert len(sent()) == emails, "no new turn email in the middle of a turn"
    before = game.seq
    expire(game)
    sweep(django_capture_on_commit_callbacks)
    game.refresh_from_db()
    run = list(Event.objects.filter(game=game, seq__gt=before).order_by("seq"))
    assert run[0].kind == Event.Kind.TIMEOUT and (run[0].action or {}).get("type") == "steal"
    assert {e.seat for e in run} == {mover.position} and game.to_act != [mover.position]


def test_three_missed_turns_hand_the_seat_to_a_bot_not_three_actions(
    django_capture_on_commit_callbacks: OnCommit, settings: Any,
) -> None:
    """TIMEOUTS_BEFORE_BOT counts turns: a Captain Lucky turn of several actions is one."""
    settings.TIMEOUTS_BEFORE_BOT = 2
    people = [make_user("anne"), make_user("bart")]
    game = start_lucky(django_capture_on_commit_callbacks, people)
    late = person_to_act(game)
    expire(game)
    sweep(django_capture_on_commit_callbacks)  # the late seat's first missed turn
    late.refresh_from_db()
    assert late.consecutive_timeouts == 1 and not late.replaced_by_bot
    for _ in range(20):
        game.refresh_from_db()
        if late.position in game.to_act:
            break
        play(django_capture_on_commit_callbacks, game)
    expire(game)
    sweep(django_capture_on_commit_callbacks)  # the second
    late.refresh_from_db()
    assert late.consecutive_timeouts == 2 and late.replaced_by_bot
    assert Event.objects.filter(game=game, kind=Event.Kind.SEAT_TO_BOT, seat=late.position).count() == 1


def test_reminder_goes_to_the_player_in_the_middle_of_a_turn(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    """Reminders are per turn position: a player who placed and must still steal is reminded."""
    people = [make_user("anne"), make_user("bart")]
    game = start_lucky(django_capture_on_commit_callbacks, people)
    mover = person_to_act(game)
    play(django_capture_on_commit_callbacks, game)
    clear_outbox()
    expire(game, "reminder_at")
    assert sweep(django_capture_on_commit_callbacks) == {"timeouts": 0, "reminders": 1}
    assert mover.user is not None
    reminders = sent()
    assert [m.to for m in reminders] == [[mover.user.email]]
    assert reminders[0].subject == f"Reminder: your move in {TITLE}"
    assert_names_no_other_draw(game, reminders[0])
