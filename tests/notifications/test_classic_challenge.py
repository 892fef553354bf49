"""The challenge window of Pirates (classic) in the service (C-MUT-2): every player asked gets
one turn email, the captain gets theirs once all have answered, and at the deadline an
unanswered question counts as declined (Rules.timeout_action) whatever the timeout policy
would otherwise play."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import Event, Game, Seat
from games.services import load_state, rules_for
from tests.notifications.helpers import OnCommit, clear_outbox, make_user, sent
from tests.web.classic_support import OPENING, classic_game, seat_user

pytestmark = pytest.mark.django_db

DECLINE = {"type": "decline"}


def _started(on_commit: OnCommit, policy: str = Game.TimeoutPolicy.BOT) -> Game:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    with on_commit(execute=True):
        game = classic_game(people, title="Tortuga", timeout_policy=policy)
    return game


def _act(on_commit: OnCommit, game: Game, seat: int, action: dict[str, Any]) -> None:
    game.refresh_from_db()
    with on_commit(execute=True):
        services.action_submit(
            game_id=game.pk, user=seat_user(game, seat), action=action, expected_seq=game.seq
        )
    game.refresh_from_db()


def _to_window(on_commit: OnCommit, game: Game) -> None:
    """Plays the opening: Blue and Green end up asked about Red's stack at once."""
    for seat, action in OPENING:
        _act(on_commit, game, seat, action)
    assert game.to_act == [1, 2]


def _turn_mail() -> list[str]:
    return sorted(m.to[0] for m in sent() if m.subject == "Your turn in Tortuga")


def test_c_mut_2_each_player_asked_gets_one_turn_email_and_the_captain_one_after_all_answered(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    game = _started(django_capture_on_commit_callbacks)
    # The last scripted move is Blue's; Green controls nothing and skips (the service does it),
    # and the questions go out: the email goes to Green too, although the skip was Green's.
    for seat, action in OPENING[:-1]:
        _act(django_capture_on_commit_callbacks, game, seat, action)
    clear_outbox()
    _act(django_capture_on_commit_callbacks, game, *OPENING[-1])
    skip = Event.objects.get(game=game, seq=game.seq)
    assert (skip.kind, skip.seat, game.to_act) == (Event.Kind.AUTO_PASS, 2, [1, 2])
    assert _turn_mail() == ["bart@example.test", "cleo@example.test"]

    clear_outbox()
    _act(django_capture_on_commit_callbacks, game, 2, {"type": "challenge", "party": "0.2"})
    assert game.to_act == [1]
    assert _turn_mail() == [], "Blue was asked already and has not answered: no second email"
    assert tasks.notify_turn.delay(game.pk, game.seq).get() == 0, "running the task again sends nothing"

    _act(django_capture_on_commit_callbacks, game, 1, DECLINE)
    assert game.to_act == [0]
    assert _turn_mail() == ["anne@example.test"]
    # Answers are public: the captain's email tells who challenged and who declined.
    body = next(str(m.body) for m in sent() if m.to == ["anne@example.test"])
    assert "Green challenges Red to board" in body and "Blue does not challenge Red" in body


@pytest.mark.parametrize("policy", [Game.TimeoutPolicy.BOT, Game.TimeoutPolicy.PASS])
def test_c_mut_2_an_unanswered_question_counts_as_declined_at_the_deadline(
    django_capture_on_commit_callbacks: OnCommit, policy: str
) -> None:
    game = _started(django_capture_on_commit_callbacks, policy)
    _to_window(django_capture_on_commit_callbacks, game)
    _act(django_capture_on_commit_callbacks, game, 2, {"type": "challenge", "party": "0.2"})
    before = game.seq
    state = load_state(game)
    assert rules_for(game).timeout_action(state, 1) == DECLINE
    assert rules_for(game).timeout_action(state, 0) is None, "the captain has no question"
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    clear_outbox()

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.sweep.delay().get() == {"timeouts": 1, "reminders": 0}

    game.refresh_from_db()
    timeout = Event.objects.get(game=game, seq=before + 1)
    assert (timeout.kind, timeout.seat, timeout.action) == (Event.Kind.TIMEOUT, 1, DECLINE)
    assert timeout.payload["text"].startswith("Blue does not challenge Red")
    assert Seat.objects.get(game=game, position=1).consecutive_timeouts == 1
    # The game goes on: Green's challenge stands, so Red must board with the stack.
    assert game.to_act == [0] and game.seq == before + 1
    legal = rules_for(game).legal_actions(load_state(game), 0)
    assert legal and {(a["type"], a["party"]) for a in legal} == {("board", "0.2")}
    assert _turn_mail() == ["anne@example.test"]


def test_c_mut_2_both_questions_lapse_at_the_deadline(django_capture_on_commit_callbacks: OnCommit) -> None:
    game = _started(django_capture_on_commit_callbacks)
    _to_window(django_capture_on_commit_callbacks, game)
    before = game.seq
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep.delay().get()

    game.refresh_from_db()
    late = list(Event.objects.filter(game=game, seq__gt=before).order_by("seq"))
    assert [(e.kind, e.seat, e.action) for e in late] == [
        (Event.Kind.TIMEOUT, 1, DECLINE),
        (Event.Kind.TIMEOUT, 2, DECLINE),
    ]
    assert game.to_act == [0]
    assert {a["type"] for a in rules_for(game).legal_actions(load_state(game), 0)} == {"move", "board"}
