"""The event log is append-only: the model, the queryset and (on PostgreSQL) the database refuse
to change or remove an event."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from games.models import AppendOnlyError, Event
from tests.services.support import make_users, started_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def event() -> Event:
    game = started_game(make_users(3))
    return Event.objects.get(game=game, seq=1)


def test_saving_an_existing_event_raises(event: Event) -> None:
    event.actor = "user:forged"
    with pytest.raises(AppendOnlyError):
        event.save()
    assert Event.objects.get(pk=event.pk).actor != "user:forged"


def test_deleting_an_event_raises(event: Event) -> None:
    with pytest.raises(AppendOnlyError):
        event.delete()
    assert Event.objects.filter(pk=event.pk).exists()


def test_queryset_update_raises(event: Event) -> None:
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(pk=event.pk).update(actor="user:forged")


def test_queryset_delete_raises(event: Event) -> None:
    with pytest.raises(AppendOnlyError):
        Event.objects.filter(pk=event.pk).delete()
    assert Event.objects.filter(pk=event.pk).exists()


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    ["UPDATE games_event SET actor = 'user:forged' WHERE id = %s", "DELETE FROM games_event WHERE id = %s"],
    ids=["update", "delete"],
)
def test_raw_sql_is_refused_by_the_trigger(event: Event, sql: str) -> None:
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql, [event.pk])
    assert Event.objects.get(pk=event.pk).actor == event.actor
