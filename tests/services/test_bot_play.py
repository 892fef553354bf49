"""Bot seats in the service: the worker's bots think with no lock held and record their moves
only if the game is still where they saw it; a seat handed to a bot gets the strong bot, and
old rows that never recorded a level go on playing the greedy bot they played."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, connection, transaction

import engine
from engine.bots import choose_action
from games import outbox, services
from games.models import Event, Game, Outbox, Seat
from games.services import play
from tests.platform.toy import toy_registered
from tests.services.support import make_users, seat_user, started_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _relay_held_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outbox rows are written but no relay runs (as for a busy worker): the tests run each
    bot move themselves, so no eager bot move plays in between."""
    monkeypatch.setattr(outbox, "_nudge_after_commit", lambda now, delays: None)


@pytest.fixture
def thinking(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Callable[[], None]]]:
    """Whatever a test appends runs inside each bot's ``choose_action``, while it thinks."""
    hooks: list[Callable[[], None]] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        for hook in hooks:
            hook()
        return choose_action(*args, **kwargs)

    monkeypatch.setattr(play, "choose_action", spy)
    yield hooks


def libertalia_with_two_strong_bots(anne: User) -> Game:
    """Anne and two strong bots (the default level) at Libertalia's first secret picks, where
    every seat chooses at once (L-SUN-1)."""
    game = services.game_create(creator=anne, rules_id="libertalia", players=3, bot_seats=2)
    services.game_start(game_id=game.pk, by=anne)
    game.refresh_from_db()
    assert sorted(game.to_act) == [0, 1, 2]
    return game


def test_new_bots_are_strong_and_both_bots_pick_on_the_position_they_saw(thinking: list[Any]) -> None:
    (anne,) = make_users(1)
    game = libertalia_with_two_strong_bots(anne)
    assert sorted(Seat.objects.filter(game=game, user=None).values_list("bot", flat=True)) == ["strong"] * 2
    seen: list[int] = []
    thinking.append(lambda: seen.append(Game.objects.get(pk=game.pk).seq))
    before = game.seq

    events = services.bot_play(game_id=game.pk, expected_seq=before)

    assert seen == [before, before]  # the second bot did not see the first one's pick
    assert [e.actor for e in events] == ["bot:strong", "bot:strong"]
    assert [e.seq for e in events] == [before + 1, before + 2]
    # Safe to run twice: the second run finds the game moved on.
    assert services.bot_play(game_id=game.pk, expected_seq=before) == []
    assert Event.objects.filter(game=game, kind=Event.Kind.BOT).count() == 2


def test_the_bots_think_with_no_transaction_open(thinking: list[Any]) -> None:
    (anne,) = make_users(1)
    game = libertalia_with_two_strong_bots(anne)
    in_transaction: list[bool] = []
    thinking.append(lambda: in_transaction.append(connection.in_atomic_block))

    services.bot_play(game_id=game.pk, expected_seq=game.seq)

    assert in_transaction == [False, False]


@pytest.mark.postgres
def test_the_game_row_is_not_locked_while_the_bots_think(thinking: list[Any]) -> None:
    """Another connection locks the game row with NOWAIT while each bot thinks: it would fail
    at once ("could not obtain lock") if the worker held the row."""
    (anne,) = make_users(1)
    game = libertalia_with_two_strong_bots(anne)
    failures: list[BaseException] = []

    def lock_from_another_connection() -> None:
        def run() -> None:
            try:
                with transaction.atomic():
                    Game.objects.select_for_update(nowait=True).get(pk=game.pk)
            except DatabaseError as exc:
                failures.append(exc)
            finally:
                connection.close()

        other = threading.Thread(target=run)
        other.start()
        other.join(timeout=30)
        assert not other.is_alive()

    thinking.append(lock_from_another_connection)

    events = services.bot_play(game_id=game.pk, expected_seq=game.seq)

    assert failures == []
    assert len(events) == 2


def test_a_game_that_moved_on_while_the_bots_thought_records_nothing(thinking: list[Any]) -> None:
    (anne,) = make_users(1)
    game = libertalia_with_two_strong_bots(anne)
    before = game.seq
    mine = Seat.objects.get(game=game, user=anne).position
    pick = services.rules_for(game).legal_actions(services.load_state(game), mine)[0]
    moved: list[int] = []

    def anne_picks_meanwhile() -> None:
        if not moved:  # while the first bot thinks
            done = services.action_submit(game_id=game.pk, user=anne, action=pick, expected_seq=before)
            moved.append(done.event.seq)

    thinking.append(anne_picks_meanwhile)

    assert services.bot_play(game_id=game.pk, expected_seq=before) == []

    game.refresh_from_db()
    assert moved == [before + 1] and game.seq == before + 1
    assert not Event.objects.filter(game=game, kind=Event.Kind.BOT).exists()
    # The new position queued its own bot move, which decides on what the bots see now.
    assert Outbox.objects.filter(game=game, kind=Outbox.Kind.BOT_MOVE, key=before + 1).exists()
    assert len(services.bot_play(game_id=game.pk, expected_seq=before + 1)) == 2


def test_a_resigned_seat_is_played_by_the_strong_bot() -> None:
    people = make_users(3)
    game = started_game(people)
    leaver = seat_user(game, game.to_act[0])

    services.seat_resign(game_id=game.pk, user=leaver)

    seat = Seat.objects.get(game=game, user=leaver)
    assert seat.replaced_by_bot and seat.bot == Seat.BotKind.STRONG
    game.refresh_from_db()
    (event,) = services.bot_play(game_id=game.pk, expected_seq=game.seq)
    assert event.actor == "bot:strong" and event.seat == seat.position


def test_a_seat_handed_to_a_bot_after_timeouts_gets_the_strong_bot(settings: Any) -> None:
    settings.TIMEOUTS_BEFORE_BOT = 1
    game = started_game(make_users(3))
    late = game.to_act[0]
    assert game.deadline is not None

    services.timeout_apply(game_id=game.pk, expected_seq=game.seq, now=game.deadline + timedelta(minutes=1))

    seat = Seat.objects.get(game=game, position=late)
    assert seat.replaced_by_bot and seat.bot == Seat.BotKind.STRONG
    # Its one move for the late turn was the cheap greedy bot's, played as the timeout.
    assert Event.objects.filter(game=game, kind=Event.Kind.TIMEOUT, seat=late).exists()


def test_a_seat_handed_to_a_bot_before_levels_were_recorded_plays_greedy() -> None:
    people = make_users(3)
    game = started_game(people)
    position = game.to_act[0]
    # An old row: handed to a bot when every such seat played the greedy bot, level not kept.
    Seat.objects.filter(game=game, position=position).update(replaced_by_bot=True, bot="")

    (event,) = services.bot_play(game_id=game.pk, expected_seq=game.seq)

    assert event.actor == "bot:greedy" and event.seat == position


def test_a_rule_set_that_cannot_determinize_gets_the_greedy_bot_and_refuses_the_strong_one() -> None:
    """The strong bot plans on ``Rules.determinize``: a rule set without it (the toy) seats
    the strongest bot it has, the greedy one, and asking for the strong one is a clear error."""
    anne, bob = make_users(2)
    with toy_registered() as toy:
        assert play.bot_levels(toy) == ("greedy", "random")
        with pytest.raises(services.InvalidInput, match="Toy picks has no strong bot"):
            services.game_create(creator=anne, rules_id=toy.id, players=3, bot_seats=1, bot_kind="strong")
        assert not Game.objects.exists()
        game = services.game_create(creator=anne, rules_id=toy.id, players=3, bot_seats=1)
        assert list(Seat.objects.filter(game=game, user=None).values_list("bot", flat=True)) == ["greedy"]
        services.seat_join(game_id=game.pk, user=bob)
        services.game_start(game_id=game.pk, by=anne)
        game.refresh_from_db()
        services.seat_resign(game_id=game.pk, user=bob)
        assert Seat.objects.get(game=game, user=bob).bot == "greedy"
    for rules_id in ("pirates", "pirates-classic", "libertalia", "captain-lucky"):
        assert play.bot_levels(engine.get_rules(rules_id))[0] == "strong", rules_id
