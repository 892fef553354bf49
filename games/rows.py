"""The SQL behind every move and every look at a game, written once per process.

A move locks the game row, reads its seats, inserts an event and updates the game's read
columns; a game GET reads the game and its seats. Through the ORM, building each of these
statements costs more than the database takes to run it: about a millisecond each on a small
machine, on the hottest paths of the service. Here each statement is built once per process,
values go through the same field conversions as in the ORM (both ways), and rows become
ordinary model instances:

- ``Game`` with ``created_by`` loaded as a ``User`` with only ``id`` and ``username``;
- ``Seat`` with ``user`` loaded the same way and the user's ``profile`` holding only
  ``away_until``, ``display_name`` and ``notify`` (or known to be missing), and the game itself.

The related objects are deferred instances, exactly what ``.only()`` gives: any other field
loads on first access, and saving one writes only its loaded fields. ``insert`` and
``update_fields`` do what ``save()`` and ``save(update_fields=...)`` do for our models (no
signals are connected to them). The SQL is the same on PostgreSQL and SQLite, apart from the
row lock (``FOR UPDATE OF``), which SQLite does not need: it allows one writer at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import connection, models
from django.db.models.expressions import Col

from games.models import CrewGame, Game, Outbox, PlayerProfile, Seat, Webhook

M = TypeVar("M", bound=models.Model)


class Columns:
    """Some columns of one model in a SELECT (all concrete ones by default), and how to turn
    their values back into an instance, converted as the ORM converts them."""

    def __init__(self, model: type[models.Model], alias: str, names: Sequence[str] = ()) -> None:
        wanted = set(names)
        self.model = model
        self.fields = [f for f in model._meta.concrete_fields if not wanted or f.name in wanted]
        self.attnames = [f.attname for f in self.fields]
        self.sql = ", ".join(f"{alias}.{_column(model, f.name)}" for f in self.fields)
        # What the ORM would run on each value (SQLite returns datetimes as text, a JSON field
        # decodes its text). They depend on the database backend and settings only.
        self.converters: list[tuple[int, Col, list[Any]]] = []
        for i, field in enumerate(self.fields):
            expression = Col(model._meta.db_table, field)
            found = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
            if found:
                self.converters.append((i, expression, found))

    def __len__(self) -> int:
        return len(self.fields)

    def instance(self, model: type[M], values: Sequence[Any]) -> M:
        assert model is self.model
        converted = list(values)
        for i, expression, converters in self.converters:
            for converter in converters:
                converted[i] = converter(converted[i], expression, connection)
        return model.from_db(connection.alias, self.attnames, converted)


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(model: type[models.Model], name: str) -> str:
    column = model._meta.get_field(name).column  # type: ignore[union-attr]
    assert column is not None, f"{model.__name__}.{name} has no column"
    return connection.ops.quote_name(column)


@cache
def _game_query(for_update: bool) -> tuple[str, Columns, Columns]:
    game, creator = Columns(Game, "g"), Columns(User, "u", ["id", "username"])
    lock = " FOR UPDATE OF g" if for_update and connection.features.has_select_for_update_of else ""
    sql = (
        f"SELECT {game.sql}, {creator.sql}"
        f" FROM {_table(Game)} g"
        f" JOIN {_table(User)} u ON u.{_column(User, 'id')} = g.{_column(Game, 'created_by')}"
        f" WHERE g.{_column(Game, 'id')} = %s{lock}"
    )
    return sql, game, creator


@cache
def _seats_query() -> tuple[str, Columns, Columns, Columns]:
    seat = Columns(Seat, "s")
    player = Columns(User, "u", ["id", "username"])
    profile = Columns(PlayerProfile, "p", ["id", "user", "away_until", "display_name", "notify"])
    seat_user = f"s.{_column(Seat, 'user')}"
    sql = (
        f"SELECT {seat.sql}, {player.sql}, {profile.sql}"
        f" FROM {_table(Seat)} s"
        f" LEFT JOIN {_table(User)} u ON u.{_column(User, 'id')} = {seat_user}"
        f" LEFT JOIN {_table(PlayerProfile)} p ON p.{_column(PlayerProfile, 'user')} = {seat_user}"
        f" WHERE s.{_column(Seat, 'game')} = %s ORDER BY s.{_column(Seat, 'position')}"
    )
    return sql, seat, player, profile


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def game_row(game_id: int, *, for_update: bool = False) -> Game | None:
    """The game with its creator (id and username), or None; ``for_update`` locks the row
    until commit (the caller must be inside ``transaction.atomic``)."""
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    if not low <= game_id <= high:  # no such id can be stored (the ORM answers "none" the same way)
        return None
    sql, game_columns, creator_columns = _game_query(for_update)
    rows = _rows(sql, [game_id])
    if not rows:
        return None
    row = rows[0]
    game = game_columns.instance(Game, row[: len(game_columns)])
    Game.created_by.field.set_cached_value(game, creator_columns.instance(User, row[len(game_columns) :]))
    return game


def seat_rows(game: Game) -> list[Seat]:
    """The game's seats in position order, each with its player (id and username) and the
    player's profile (``away_until``, ``display_name`` and ``notify`` only; None when they
    have none)."""
    sql, seat_columns, player_columns, profile_columns = _seats_query()
    seats: list[Seat] = []
    at_player = len(seat_columns)
    at_profile = at_player + len(player_columns)
    for row in _rows(sql, [game.pk]):
        seat = seat_columns.instance(Seat, row[:at_player])
        Seat.game.field.set_cached_value(seat, game)
        if seat.user_id is not None:
            user = player_columns.instance(User, row[at_player:at_profile])
            profile = None
            if row[at_profile] is not None:
                profile = profile_columns.instance(PlayerProfile, row[at_profile:])
                PlayerProfile.user.field.set_cached_value(profile, user)
            User.profile.related.set_cached_value(user, profile)
            Seat.user.field.set_cached_value(seat, user)
        seats.append(seat)
    return seats


def game_with_seats(game_id: int) -> Game | None:
    """The game and its seats (as ``seat_rows``), which ``game.seats.all()`` then returns
    without another query, as after ``prefetch_related("seats")``."""
    game = game_row(game_id)
    if game is not None:
        # What prefetch_related leaves behind: the related manager answers from this cache.
        queryset = game.seats.all()
        queryset._result_cache = seat_rows(game)
        queryset._prefetch_done = True  # type: ignore[attr-defined]
        game._prefetched_objects_cache = {"seats": queryset}  # type: ignore[attr-defined]
    return game


@cache
def _webhook_query() -> str:
    hook, crew_game, row = Webhook, CrewGame, Outbox
    return (
        f"SELECT EXISTS (SELECT 1 FROM {_table(hook)} w WHERE w.{_column(hook, 'disabled_at')} IS NULL"
        f" AND (w.{_column(hook, 'game')} = %s OR w.{_column(hook, 'crew')} IN"
        f" (SELECT c.{_column(crew_game, 'crew')} FROM {_table(crew_game)} c"
        f" WHERE c.{_column(crew_game, 'game')} = %s))),"
        f" (SELECT MAX(o.{_column(row, 'key')}) FROM {_table(row)} o WHERE o.{_column(row, 'game')} = %s"
        f" AND o.{_column(row, 'kind')} = %s AND o.{_column(row, 'key')} < %s)"
    )


def webhook_since(game_id: int, seq: int, kind: str) -> tuple[bool, int | None]:
    """Whether game ``game_id`` has a live webhook (its own or one of its crew's, as
    ``Webhook.live_for``), and the key of its latest outbox row of ``kind`` before ``seq``:
    one query on every move, where two ORM queries cost a millisecond more to build."""
    (live, previous), = _rows(_webhook_query(), [game_id, game_id, game_id, kind, seq])
    return bool(live), previous


def _db_values(instance: models.Model, fields: Sequence[models.Field[Any, Any]], add: bool) -> list[Any]:
    """The fields' values as ``save()`` sends them (``auto_now`` fields are set first)."""
    return [field.get_db_prep_save(field.pre_save(instance, add), connection) for field in fields]


Statement = tuple[str, list["models.Field[Any, Any]"]]  # the SQL, and the fields its %s stand for


@cache
def _insert_statement(model: type[models.Model]) -> Statement:
    pk = model._meta.pk
    assert pk is not None
    fields = [f for f in model._meta.concrete_fields if f is not pk]
    sql = (
        f"INSERT INTO {_table(model)} ({', '.join(_column(model, f.name) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(fields))}) RETURNING {_column(model, pk.name)}"
    )
    return sql, fields


def insert(instance: M) -> M:
    """Insert ``instance``, a new row with an automatic id, as ``instance.save()`` would."""
    model = type(instance)
    if not connection.features.can_return_columns_from_insert:
        instance.save(force_insert=True)
        return instance
    sql, fields = _insert_statement(model)
    values = _db_values(instance, fields, add=True)
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    assert row is not None
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


@cache
def _update_statement(model: type[models.Model], names: tuple[str, ...]) -> Statement:
    fields = [f for f in model._meta.concrete_fields if f.name in names]
    assert len(fields) == len(set(names)), f"{model.__name__} lacks some of {names}"
    pk = model._meta.pk
    assert pk is not None
    sql = (
        f"UPDATE {_table(model)} SET {', '.join(f'{_column(model, f.name)} = %s' for f in fields)}"
        f" WHERE {_column(model, pk.name)} = %s"
    )
    return sql, fields


def update_fields(instance: models.Model, names: Sequence[str]) -> None:
    """Write the fields ``names`` of a stored row, as ``instance.save(update_fields=names)``
    would (an ``auto_now`` field among them gets the time now)."""
    sql, fields = _update_statement(type(instance), tuple(names))
    with connection.cursor() as cursor:
        cursor.execute(sql, [*_db_values(instance, fields, add=False), instance.pk])
