"""The service's database role cannot empty, change or unguard the event log; the owner cannot
TRUNCATE it either (games/db_roles.py, games/migrations/0010).

The test database is migrated by the tests' own role, the owner, which grants
DATABASE_SERVICE_ROLE the service's privileges (games/management/commands/migrate.py). Here
the tests log in as that role, as production's web and workers do.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from psycopg import errors

from games.db_roles import grant_service_role
from games.models import Event, Game
from tests import realservers
from tests.services.support import make_users, play_one, started_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def service() -> tuple[str, str]:
    problem = realservers.service_role_problem()
    if problem:
        pytest.skip(problem)
    role = realservers.service_role()
    assert role is not None
    return role


@contextmanager
def as_role(login: tuple[str, str]) -> Iterator[psycopg.Connection[Any]]:
    """A connection of its own to the test database, logged in as ``login``."""
    s = connection.settings_dict
    with psycopg.connect(
        host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, dbname=s["NAME"],
        user=login[0], password=login[1], connect_timeout=10, autocommit=True,
    ) as conn:
        yield conn


@contextmanager
def django_as(login: tuple[str, str]) -> Iterator[None]:
    """Django's own connection logs in as ``login`` for the duration (the service's code paths)."""
    saved = {key: connection.settings_dict[key] for key in ("USER", "PASSWORD")}
    connection.close()
    connection.settings_dict.update(USER=login[0], PASSWORD=login[1])
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def refused(conn: psycopg.Connection[Any], sql: str, params: list[Any] | None = None) -> errors.Error:
    with pytest.raises(errors.InsufficientPrivilege) as raised, conn.transaction():
        conn.execute(sql.encode(), params)
    return raised.value


@pytest.fixture
def game() -> Game:
    game = started_game(make_users(3))
    play_one(game, random.Random(3))
    game.refresh_from_db()
    return game


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE games_event SET actor = 'user:forged' WHERE game_id = %s",
        "DELETE FROM games_event WHERE game_id = %s",
        "TRUNCATE games_event",
        "TRUNCATE games_event CASCADE",
    ],
    ids=["update", "delete", "truncate", "truncate-cascade"],
)
def test_the_service_role_cannot_change_or_empty_the_event_log(
    service: tuple[str, str], game: Game, sql: str
) -> None:
    before = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "actor", "hash"))
    with as_role(service) as conn:
        error = refused(conn, sql, [game.pk] if "%s" in sql else None)
    assert "permission denied for table games_event" in str(error)
    assert list(Event.objects.filter(game=game).order_by("seq").values_list("seq", "actor", "hash")) == before


@pytest.mark.parametrize(
    ("sql", "table"),
    [
        ("DROP TRIGGER games_event_append_only ON games_event", "games_event"),
        ("DROP TRIGGER games_event_no_truncate ON games_event", "games_event"),
        ("ALTER TABLE games_event DISABLE TRIGGER games_event_append_only", "games_event"),
        ("ALTER TABLE games_event ADD COLUMN forged text", "games_event"),
        ("ALTER TABLE games_game ADD COLUMN forged text", "games_game"),
        ("ALTER TABLE auth_user DROP COLUMN email", "auth_user"),
        ("DROP TABLE games_seat", "games_seat"),
    ],
    ids=["drop-row-trigger", "drop-truncate-trigger", "disable-trigger", "alter-events", "alter-games",
         "alter-users", "drop-table"],
)
def test_the_service_role_owns_nothing_and_cannot_alter_any_table(
    service: tuple[str, str], game: Game, sql: str, table: str
) -> None:
    with as_role(service) as conn:
        error = refused(conn, sql)
    assert "must be owner of" in str(error) and table in str(error)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND pg_get_userbyid(c.relowner) = %s",
            [service[0]],
        )
        assert cursor.fetchone() == (0,)
        cursor.execute(
            "SELECT count(*) FROM pg_trigger "
            "WHERE tgrelid = 'games_event'::regclass AND NOT tgisinternal AND tgenabled = 'O'"
        )
        assert cursor.fetchone() == (2,)  # both guards still there and on


def test_the_service_role_cannot_create_a_table(service: tuple[str, str]) -> None:
    with as_role(service) as conn:
        error = refused(conn, "CREATE TABLE games_forged (id int)")
    assert "permission denied for schema" in str(error)


def test_the_service_role_reads_and_appends_events(service: tuple[str, str], game: Game) -> None:
    last = Event.objects.filter(game=game).order_by("-seq").values("seq", "kind", "payload", "hash").first()
    assert last is not None
    with as_role(service) as conn:
        count = conn.execute("SELECT count(*) FROM games_event WHERE game_id = %s", [game.pk]).fetchone()
        assert count == (game.seq,)
        with conn.transaction(force_rollback=True):
            row = conn.execute(
                "INSERT INTO games_event "
                "(game_id, seq, kind, seat, payload, actor, idempotency_key, created_at, hash) "
                "VALUES (%s, %s, 'note', NULL, '{}', 'system', '', now(), %s) RETURNING seq",
                [game.pk, last["seq"] + 1, "0" * 64],
            ).fetchone()
            assert row == (last["seq"] + 1,)


def test_a_game_is_created_started_and_played_as_the_service_role(service: tuple[str, str]) -> None:
    """The service's own code paths (create, join, start, moves, the outbox, eager side effects)
    need nothing the service role lacks."""
    with django_as(service):
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone() == (service[0],)
        users = make_users(3, prefix="deckhand")
        game = started_game(users)
        rng = random.Random(11)
        for _ in range(4):
            play_one(game, rng)
        game.refresh_from_db()
        assert game.seq >= 5
        assert Event.objects.filter(game=game).count() == game.seq


def test_the_owner_cannot_truncate_the_event_log(game: Game) -> None:
    with (
        pytest.raises(IntegrityError, match="games_event is append-only: TRUNCATE is not allowed"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("TRUNCATE games_event CASCADE")
    assert Event.objects.filter(game=game).count() == game.seq


def test_granting_refuses_the_owner_itself_and_a_missing_role() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        (owner,) = cursor.fetchone()
    with pytest.raises(CommandError, match="the role migrations run as"):
        grant_service_role(connection, owner)
    with pytest.raises(CommandError, match="'roles_nobody_here' does not exist"):
        grant_service_role(connection, "roles_nobody_here")
