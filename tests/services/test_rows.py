"""The plain SQL of every move and game GET (games/rows.py) does what the ORM does.

The reads of a game and its seats must agree with the ORM field for field (including the
converted types: SQLite returns datetimes and durations in its own forms), load the related
players without further queries, and lock the row when asked (PostgreSQL); the event insert
and the read-column update must store what ``save()`` stores, constraints included."""

from __future__ import annotations

import random
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Max, Model
from django.utils import timezone
from pytest_django import DjangoAssertNumQueries

from games import rows, services
from games.models import (
    ChatMessage,
    Event,
    Game,
    ListedMoves,
    Notification,
    PlayerProfile,
    Seat,
    VerifiedAddress,
    person_name,
)
from games.presence import OWN_MOVE_KINDS
from tests.services.support import make_users, play_one, started_game

pytestmark = pytest.mark.django_db


def fields_of(instance: Model) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


@pytest.fixture
def game() -> Game:
    anne, mary, tom = make_users(3)
    away = timezone.now() + timedelta(days=3)
    PlayerProfile.objects.create(user=mary, away_until=away)
    PlayerProfile.objects.create(user=tom)  # a profile without time away
    started = started_game([anne, mary, tom], bots=1)
    started.result = {"note": "a JSON value to round-trip"}
    started.save(update_fields=["result"])
    return started


def test_game_row_equals_the_orm_and_brings_its_creator(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    expected = Game.objects.get(pk=game.pk)
    with django_assert_num_queries(1):
        found = rows.game_row(game.pk)
        assert found is not None
        assert found.created_by.username == "player0"
    assert fields_of(found) == fields_of(expected)
    assert isinstance(found.move_time, timedelta) and found.started_at is not None
    assert found.started_at.tzinfo is not None
    assert found.result == {"note": "a JSON value to round-trip"}


def test_unknown_and_impossible_ids_find_no_game(game: Game) -> None:
    assert rows.game_row(game.pk + 1000) is None
    assert rows.game_row(2**80) is None  # larger than any id a database can hold
    assert rows.game_row(-(2**80)) is None
    assert rows.game_with_seats(game.pk + 1000) is None


def test_seat_rows_equal_the_orm_with_players_and_time_away(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    expected = list(Seat.objects.filter(game=game).select_related("user__profile").order_by("position"))
    with django_assert_num_queries(1):
        seats = rows.seat_rows(game)
        seen = [
            (
                seat.user.username if seat.user else None,
                getattr(seat.user, "profile", None) and seat.user.profile.away_until,  # type: ignore[union-attr]
                seat.game is game,
            )
            for seat in seats
        ]
    assert [fields_of(seat) for seat in seats] == [fields_of(seat) for seat in expected]
    assert seen == [
        (
            seat.user.username if seat.user else None,
            getattr(seat.user, "profile", None) and seat.user.profile.away_until,  # type: ignore[union-attr]
            True,
        )
        for seat in expected
    ]
    away = [value for _name, value, _same in seen if value]
    assert len(away) == 1 and away[0].tzinfo is not None  # converted, not SQLite's text
    assert [name for name, _away, _same in seen].count(None) == 1  # the bot's seat


def test_partly_loaded_players_load_the_rest_on_demand_and_save_only_what_they_hold(game: Game) -> None:
    seat = next(seat for seat in rows.seat_rows(game) if seat.user is not None)
    user = seat.user
    assert user is not None
    assert user.email == f"{user.username}@example.com"  # a deferred field, loaded on access
    User.objects.filter(pk=user.pk).update(first_name="Anne")
    user.username = user.username + "-renamed"
    user.save()  # writes only the loaded fields: the first name set meanwhile survives
    stored = User.objects.get(pk=user.pk)
    assert stored.first_name == "Anne" and stored.username.endswith("-renamed")


def test_game_with_seats_answers_game_seats_all_without_a_query(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    with django_assert_num_queries(1):
        found = rows.game_with_seats(game.pk)
        assert found is not None
        positions = [seat.position for seat in found.seats.all()]
        names = [seat.user.username for seat in found.seats.all() if seat.user]
    assert positions == [0, 1, 2, 3]
    assert sorted(names) == ["player0", "player1", "player2"]


def test_a_look_at_a_game_is_one_query_for_the_game_row_and_the_seats(
    game: Game,
    django_assert_num_queries: DjangoAssertNumQueries,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The API's game GET uses these reads (its state comes from the cache here)."""
    from games import selectors

    user = User.objects.get(username="player1")
    with django_capture_on_commit_callbacks(execute=True):
        services.load_state(game)  # cached once the (test's) transaction commits
    with django_assert_num_queries(1):
        detail = selectors.game_detail(selectors.visible_game(game.pk, user), user)
    assert detail["created_by"] == "player0" and len(detail["seats"]) == 4


def test_game_and_seats_equal_game_row_and_seat_rows_in_one_query(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    with django_assert_num_queries(1):
        read = rows.game_and_seats(game.pk, for_update=True)
        assert read is not None
        found, seats = read
        people = [(seat.user.username, getattr(seat.user, "profile", None)) for seat in seats if seat.user]
        assert all(seat.game is found for seat in seats)
    assert fields_of(found) == fields_of(rows.game_row(game.pk))  # type: ignore[arg-type]
    assert [fields_of(seat) for seat in seats] == [fields_of(seat) for seat in rows.seat_rows(game)]
    assert sorted(people, key=lambda person: person[0])[1][1].away_until is not None  # type: ignore[union-attr]
    assert [name for name, profile in people if profile is None] == ["player0"]  # Anne has no profile row
    assert rows.game_and_seats(game.pk + 1000) is None and rows.game_and_seats(2**80) is None


def test_a_game_without_seats_is_found_with_none(game: Game) -> None:
    Seat.objects.filter(game=game).delete()
    read = rows.game_and_seats(game.pk)
    assert read is not None and read[0].pk == game.pk and read[1] == []


@pytest.mark.postgres
def test_postgresql_plans_the_game_with_seats_once_per_connection(game: Game) -> None:
    """After ``prepare_threshold`` runs on a connection the statement is prepared: later runs
    use its plan (PostgreSQL counts them), the ORM's statements are never prepared."""
    sql = rows._game_and_seats_query(False)[0].replace("%s", "$1")  # as the server numbers it
    for _ in range(8):
        assert rows.game_and_seats(game.pk) is not None
        Game.objects.filter(pk=game.pk).first()
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        prepared = dict(cursor.fetchall())
    assert prepared.get(sql, 0) >= 3, prepared
    assert not [statement for statement in prepared if "games_game\".\"title\"" in statement]


def lock_attempts(model: type[Model], pk: int, read: Any) -> list[str]:
    """Whether another connection can lock row ``pk`` of ``model`` while ``read()`` has run in a
    transaction, then after that transaction: ["refused", "locked"] when ``read`` locked it."""
    attempts: list[str] = []

    def try_to_lock() -> None:
        try:
            with transaction.atomic():
                model._default_manager.select_for_update(nowait=True).get(pk=pk)
            attempts.append("locked")
        except DatabaseError:
            attempts.append("refused")
        finally:
            connection.close()

    with transaction.atomic():
        read()
        other = threading.Thread(target=try_to_lock)
        other.start()
        other.join(timeout=30)
    after = threading.Thread(target=try_to_lock)
    after.start()
    after.join(timeout=30)
    return attempts


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("read", ["game_row", "game_and_seats"])
def test_game_row_for_update_holds_the_row_lock_until_commit(game: Game, read: str) -> None:
    def locking_read() -> None:
        assert getattr(rows, read)(game.pk, for_update=True) is not None

    assert lock_attempts(Game, game.pk, locking_read) == ["refused", "locked"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_locked_row_equals_the_orm_and_holds_the_row_lock_until_commit(game: Game) -> None:
    # A key no turn email of the fixture's game uses (its first turn's email may go out).
    note = Notification.objects.create(user=game.created_by, game=game, kind=Notification.Kind.TURN, key="99")

    def locking_read() -> None:
        found = rows.locked_row(Notification, note.pk)
        assert found is not None and fields_of(found) == fields_of(Notification.objects.get(pk=note.pk))

    assert lock_attempts(Notification, note.pk, locking_read) == ["refused", "locked"]
    with transaction.atomic():
        assert rows.locked_row(Notification, note.pk + 1000) is None


def test_mark_sent_marks_an_unsent_notification_once(game: Game) -> None:
    note = Notification.objects.create(
        user=game.created_by, game=game, kind=Notification.Kind.TURN, key="998", claimed_at=timezone.now()
    )
    first = timezone.now()
    rows.mark_sent(note.pk, first)
    note.refresh_from_db()
    assert (note.sent_at, note.claimed_at) == (first, None)
    rows.mark_sent(note.pk, first + timedelta(minutes=5))  # sent already: left as it is
    note.refresh_from_db()
    assert note.sent_at == first


def test_insert_stores_what_save_would_and_returns_the_id(game: Game) -> None:
    payload = {"action": {"type": "pass"}, "text": "Anne passes — «ünïcode»."}
    event = rows.insert(
        Event(game=game, seq=game.seq + 1, kind=Event.Kind.ACTION, seat=0, payload=payload, actor="user:1")
    )
    assert event.pk is not None and not event._state.adding and event.created_at is not None
    stored = Event.objects.get(pk=event.pk)
    assert fields_of(stored) == fields_of(event)
    assert stored.payload == payload and stored.idempotency_key == "" and stored.created_at.tzinfo is not None


def test_insert_keeps_the_database_constraints(game: Game) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.insert(Event(game=game, seq=game.seq, kind=Event.Kind.ACTION, seat=0, payload={}, actor="x"))


def test_insert_once_inserts_a_new_row_and_leaves_an_existing_one_as_it_is(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    user = game.created_by
    with django_assert_num_queries(1):
        first = Notification(user=user, game=game, kind=Notification.Kind.TURN, key="7")
        assert rows.insert_once(first) is True
    stored = Notification.objects.get(pk=first.pk)
    assert fields_of(stored) == fields_of(first) and stored.created_at is not None
    Notification.objects.filter(pk=first.pk).update(attempts=2)
    # The same unique key (notification_once): nothing written, no error, no id.
    again = Notification(user=user, game=game, kind=Notification.Kind.TURN, key="7")
    assert rows.insert_once(again) is False
    assert again.pk is None and again._state.adding
    stored_now = Notification.objects.filter(user=user, game=game).values_list("pk", "attempts")
    assert list(stored_now) == [(first.pk, 2)]
    # Another key is another row.
    assert rows.insert_once(Notification(user=user, game=game, kind=Notification.Kind.TURN, key="8")) is True
    assert Notification.objects.filter(user=user, game=game).count() == 2


def test_chat_rows_are_the_latest_lines_with_their_writers_and_the_lines_since_an_event(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    anne, mary, tom = (User.objects.get(username=f"player{i}") for i in range(3))  # as the fixture made them
    PlayerProfile.objects.filter(user=mary).update(display_name="Mary Read")
    PlayerProfile.objects.filter(user=anne).delete()  # a writer without a profile row
    event = Event.objects.get(game=game, seq=1)
    lines = [ChatMessage.objects.create(game=game, user=user, text=f"line {i}")
             for i, user in enumerate([anne, mary, tom, mary])]
    # The first two were written before event 1, the others after it.
    for line, seconds in zip(lines, (-20, -10, 10, 20), strict=True):
        moved = event.created_at + timedelta(seconds=seconds)
        ChatMessage.objects.filter(pk=line.pk).update(created_at=moved)
    expected = list(ChatMessage.objects.filter(game=game).order_by("-id"))
    with django_assert_num_queries(1):
        found = rows.chat_rows(game.pk, 3)
        names = [person_name(line.user) for line in found]
    assert [fields_of(line) for line in found] == [fields_of(line) for line in expected[:3]]
    assert names == ["Mary Read", tom.username, "Mary Read"]
    assert [line.pk for line in rows.chat_rows(game.pk, 10, since_seq=1)] == [lines[3].pk, lines[2].pk]
    # Without such an event (a seat that never moved: its last move is 0), every line.
    assert len(rows.chat_rows(game.pk, 10, since_seq=0)) == 4
    assert [person_name(line.user) for line in rows.chat_rows(game.pk, 10)][-1] == anne.username
    assert rows.chat_rows(game.pk + 1000, 10) == []


def test_people_at_equal_the_orm_with_whole_players_profiles_and_addresses(
    game: Game, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    VerifiedAddress.objects.filter(user__username="player0").delete()  # one person without an address
    people = Seat.objects.filter(game=game, user__isnull=False).select_related(
        "user__profile", "user__verified_address"
    )
    positions = sorted(people.values_list("position", flat=True))
    Seat.objects.filter(game=game, position=positions[0]).update(replaced_by_bot=True)  # not a person now
    expected = list(people.filter(replaced_by_bot=False).order_by("position"))
    bot = Seat.objects.get(game=game, user__isnull=True).position
    with django_assert_num_queries(1):
        found = rows.people_at(game, [*reversed(positions), bot, positions[1]])
    assert [fields_of(seat) for seat in found] == [fields_of(seat) for seat in expected]
    with django_assert_num_queries(0):
        for seat, orm in zip(found, expected, strict=True):
            assert seat.game is game and seat.user is not None and orm.user is not None
            assert fields_of(seat.user) == fields_of(orm.user)
            for related in ("profile", "verified_address"):
                theirs = getattr(orm.user, related, None)
                ours = getattr(seat.user, related, None)
                assert (fields_of(ours) if ours else None) == (fields_of(theirs) if theirs else None)
    addresses = [getattr(seat.user, "verified_address", None) for seat in found]
    assert len(found) == 2 and any(addresses)
    assert rows.people_at(game, []) == []


def test_last_move_seq_and_sent_keys_equal_the_orm() -> None:
    game = started_game(make_users(3, prefix="mover"))  # no bot: every move is a person's
    rng = random.Random(7)
    for _ in range(12):
        game.refresh_from_db()
        play_one(game, rng)
    game.refresh_from_db()
    for position in range(game.players):
        for upto in (None, 1, game.seq // 2, game.seq):
            moves = Event.objects.filter(game=game, seat=position, kind__in=OWN_MOVE_KINDS)
            if upto is not None:
                moves = moves.filter(seq__lte=upto)
            expected = moves.aggregate(last=Max("seq"))["last"] or 0
            assert rows.last_move_seq(game.pk, position, OWN_MOVE_KINDS, upto) == expected
    assert rows.last_move_seq(game.pk, 0, ["no such kind"]) == 0
    user = game.created_by
    for key, sent in (("3", True), ("5", False), ("8", True)):
        Notification.objects.create(user=user, game=game, kind=Notification.Kind.TURN, key=key,
                                    sent_at=timezone.now() if sent else None)
    Notification.objects.create(user=user, game=game, kind=Notification.Kind.REMINDER, key="4",
                                sent_at=timezone.now())
    assert sorted(rows.sent_keys(user.pk, game.pk, Notification.Kind.TURN)) == ["3", "8"]
    assert rows.sent_keys(user.pk, game.pk + 1000, Notification.Kind.TURN) == []


def test_latest_events_and_listed_moves_equal_the_orm() -> None:
    game = started_game(make_users(3, prefix="logged"))
    rng = random.Random(11)
    for _ in range(8):
        play_one(game, rng)
    game.refresh_from_db()
    last = game.seq
    for after, upto, limit in ((0, last, 25), (0, last, 1), (2, last - 1, 25), (last, last, 5)):
        expected = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto).order_by("-seq")[:limit]
        found = rows.latest_events(game.pk, after, upto, limit)
        assert [fields_of(event) for event in found] == [fields_of(event) for event in expected]
    assert len(rows.latest_events(game.pk, 0, last, 25)) == last
    assert rows.listed_moves_row(game.pk, 0, last) is None
    pass_move = {"number": 1, "label": "Pass", "action": {"type": "pass"}}
    moves = [{"label": "Pass", "hint": "", "moves": [pass_move]}]
    ListedMoves.objects.create(game=game, position=0, seq=last, moves=moves)
    row = rows.listed_moves_row(game.pk, 0, last)
    assert row is not None and row.moves == moves
    assert rows.listed_moves_row(game.pk, 1, last) is None


def test_update_fields_writes_only_the_named_fields(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(title="Renamed meanwhile")
    before = game.updated_at
    game.seq = game.seq + 5
    game.to_act = [2, 1]
    game.result = {"scores": [1, 2, 3, 4], "winners": [3]}
    game.deadline = None
    game.title = "not written"
    rows.update_fields(game, ["seq", "to_act", "result", "deadline", "updated_at"])
    stored = Game.objects.get(pk=game.pk)
    assert (stored.seq, stored.to_act, stored.result, stored.deadline) == (
        game.seq,
        [2, 1],
        {"scores": [1, 2, 3, 4], "winners": [3]},
        None,
    )
    assert stored.title == "Renamed meanwhile"
    assert stored.updated_at == game.updated_at and stored.updated_at > before
