"""The SQL behind every move, every look at a game and every turn email, written once per
process.

A move locks the game row and reads its seats (one query), inserts an event and updates the
game's read columns; a game GET reads the game and its seats (the same query, unlocked); a
turn email reads the people to act, the log since their last move, the chat and the moves it
lists, and inserts its notification once (``insert_once``).
Through the ORM, building each of these statements costs more than the database takes to run
it: about a millisecond each on a small machine, on the hottest paths of the service. Here each
statement is built once per process, values go through the same field conversions as in the ORM
(both ways), and rows become ordinary model instances:

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
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models.expressions import Col

from games.models import (
    ChatMessage,
    CrewGame,
    Event,
    Game,
    ListedMoves,
    Notification,
    Outbox,
    PlayerProfile,
    Seat,
    VerifiedAddress,
    Webhook,
)

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


def _game_from(row: Sequence[Any], game_columns: Columns, creator_columns: Columns) -> Game:
    game = game_columns.instance(Game, row[: len(game_columns)])
    Game.created_by.field.set_cached_value(game, creator_columns.instance(User, row[len(game_columns) :]))
    return game


def _attach(person: User, reverse: Any, columns: Columns, values: Sequence[Any]) -> None:
    """Give ``person`` its one-to-one row through ``reverse`` (``User.profile``), read by a
    LEFT JOIN into ``values``: None when the join found none (its first column is NULL). What
    ``select_related`` leaves: no query when it is asked for."""
    found = None
    if values[0] is not None:
        found = columns.instance(columns.model, values)
        reverse.related.field.set_cached_value(found, person)
    reverse.related.set_cached_value(person, found)


def _game_select(for_update: bool) -> tuple[Columns, Columns, str, str]:
    """The game's and its creator's columns (aliases ``g`` and ``u``), the FROM clause that
    joins them, and the row lock to end the statement with."""
    game, creator = Columns(Game, "g"), Columns(User, "u", ["id", "username"])
    joined = (
        f" FROM {_table(Game)} g"
        f" JOIN {_table(User)} u ON u.{_column(User, 'id')} = g.{_column(Game, 'created_by')}"
    )
    lock = " FOR UPDATE OF g" if for_update and connection.features.has_select_for_update_of else ""
    return game, creator, joined, lock


@cache
def _game_query(for_update: bool) -> tuple[str, Columns, Columns]:
    game, creator, joined, lock = _game_select(for_update)
    return f"SELECT {game.sql}, {creator.sql}{joined} WHERE g.{_column(Game, 'id')} = %s{lock}", game, creator


class SeatColumns:
    """A seat's columns in a SELECT (alias ``s``), its player's (``su``) and the player's profile
    (``p``), as the LEFT JOINs that follow ``FROM`` a seat (``joins``) name them."""

    def __init__(self) -> None:
        self.seat = Columns(Seat, "s")
        self.player = Columns(User, "su", ["id", "username"])
        self.profile = Columns(PlayerProfile, "p", ["id", "user", "away_until", "display_name", "notify"])
        self.sql = f"{self.seat.sql}, {self.player.sql}, {self.profile.sql}"
        seat_user = f"s.{_column(Seat, 'user')}"
        self.joins = (
            f" LEFT JOIN {_table(User)} su ON su.{_column(User, 'id')} = {seat_user}"
            f" LEFT JOIN {_table(PlayerProfile)} p ON p.{_column(PlayerProfile, 'user')} = {seat_user}"
        )
        self.at_player = len(self.seat)
        self.at_profile = self.at_player + len(self.player)

    def instance(self, row: Sequence[Any], game: Game) -> Seat:
        seat = self.seat.instance(Seat, row[: self.at_player])
        Seat.game.field.set_cached_value(seat, game)
        if seat.user_id is not None:
            user = self.player.instance(User, row[self.at_player : self.at_profile])
            _attach(user, User.profile, self.profile, row[self.at_profile :])
            Seat.user.field.set_cached_value(seat, user)
        return seat


@cache
def _seats_query() -> tuple[str, SeatColumns]:
    seat = SeatColumns()
    sql = (
        f"SELECT {seat.sql} FROM {_table(Seat)} s{seat.joins}"
        f" WHERE s.{_column(Seat, 'game')} = %s ORDER BY s.{_column(Seat, 'position')}"
    )
    return sql, seat


@cache
def _game_and_seats_query(for_update: bool) -> tuple[str, Columns, Columns, SeatColumns]:
    """The game row once per seat, each row with one seat (a game without seats: one row of
    NULL seat columns). Rows are small and a game has at most a handful of seats: one round
    trip where two would cost more than the repeated columns."""
    game, creator, joined, lock = _game_select(for_update)
    seat = SeatColumns()
    sql = (
        f"SELECT {game.sql}, {creator.sql}, {seat.sql}{joined}"
        f" LEFT JOIN {_table(Seat)} s ON s.{_column(Seat, 'game')} = g.{_column(Game, 'id')}{seat.joins}"
        f" WHERE g.{_column(Game, 'id')} = %s ORDER BY s.{_column(Seat, 'position')}{lock}"
    )
    return sql, game, creator, seat


def prepared_cursor() -> CursorWrapper:
    """Django's cursor, except on PostgreSQL: there a cursor that binds its parameters on the
    server, so that psycopg prepares a statement once it has run ``prepare_threshold`` times
    on a connection (settings.py) and PostgreSQL skips parsing and planning it from then on
    (planning the game-with-seats join took as long as running it). Only for the fixed
    statements of this module and the outbox (built once per process, a few dozen: psycopg
    keeps the 100 last used per connection); the ORM's cursors bind on the client, which
    never prepares, and their SQL may use parameters where the server could not type them."""
    cursor = connection.cursor()  # connects and checks the connection, as for any query
    if connection.vendor != "postgresql":
        return cursor
    import psycopg
    from django.db.backends.postgresql.base import ServerBindingCursor
    from django.db.backends.postgresql.psycopg_any import register_tzloader

    plain = cursor.cursor
    prepared: Any = ServerBindingCursor(plain.connection)  # type: ignore[call-arg]
    # Timestamps in Django's time zone, as Django's own cursors read them (its create_cursor).
    timestamptz = psycopg.adapters.types["timestamptz"].oid
    loader = plain.connection.adapters.get_loader(timestamptz, psycopg.pq.Format.TEXT)
    if connection.timezone != getattr(loader, "timezone", None):
        register_tzloader(connection.timezone, prepared)
    plain.close()
    if connection.queries_logged:
        return _LoggedPrepared(prepared, connection)
    return connection.make_cursor(prepared)


class _LoggedPrepared(CursorDebugWrapper):
    """Logs each statement as Django's own cursors do, with its parameters in it: psycopg keeps
    no text of a prepared statement's run for Django to read back."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(connection.ops.compose_sql(sql, params)):  # type: ignore[attr-defined]
            return CursorWrapper.execute(self, sql, params)


def _rows(sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _storable_game_id(game_id: int) -> bool:
    """Whether some game could have ``game_id`` (the ORM answers "none" for the others too)."""
    low, high = connection.ops.integer_field_range(Game._meta.pk.get_internal_type())
    return low <= game_id <= high


def game_row(game_id: int, *, for_update: bool = False) -> Game | None:
    """The game with its creator (id and username), or None; ``for_update`` locks the row
    until commit (the caller must be inside ``transaction.atomic``)."""
    if not _storable_game_id(game_id):
        return None
    sql, game_columns, creator_columns = _game_query(for_update)
    found = _rows(sql, [game_id])
    return _game_from(found[0], game_columns, creator_columns) if found else None


def seat_rows(game: Game) -> list[Seat]:
    """The game's seats in position order, each with its player (id and username) and the
    player's profile (``away_until``, ``display_name`` and ``notify`` only; None when they
    have none)."""
    sql, seat_columns = _seats_query()
    return [seat_columns.instance(row, game) for row in _rows(sql, [game.pk])]


def game_and_seats(game_id: int, *, for_update: bool = False) -> tuple[Game, list[Seat]] | None:
    """``game_row`` and ``seat_rows`` in one query (``for_update`` locks the game row only)."""
    if not _storable_game_id(game_id):
        return None
    sql, game_columns, creator_columns, seat_columns = _game_and_seats_query(for_update)
    found = _rows(sql, [game_id])
    if not found:
        return None
    game = _game_from(found[0][: len(game_columns) + len(creator_columns)], game_columns, creator_columns)
    at_seat = len(game_columns) + len(creator_columns)
    seats = [seat_columns.instance(row[at_seat:], game) for row in found if row[at_seat] is not None]
    return game, seats


def game_with_seats(game_id: int) -> Game | None:
    """The game and its seats (as ``seat_rows``), which ``game.seats.all()`` then returns
    without another query, as after ``prefetch_related("seats")``."""
    read = game_and_seats(game_id)
    if read is None:
        return None
    game, seats = read
    # What prefetch_related leaves behind: the related manager answers from this cache.
    queryset = game.seats.all()
    queryset._result_cache = seats
    queryset._prefetch_done = True  # type: ignore[attr-defined]
    game._prefetched_objects_cache = {"seats": queryset}  # type: ignore[attr-defined]
    return game


class PeopleColumns:
    """A seat's columns (alias ``s``), its person's (``pu``), the person's profile (``pp``) and
    verified address (``pv``), every column of each: what ``select_related`` of the profile and
    the address would load."""

    def __init__(self) -> None:
        self.seat = Columns(Seat, "s")
        self.person = Columns(User, "pu")
        self.profile = Columns(PlayerProfile, "pp")
        self.address = Columns(VerifiedAddress, "pv")
        self.sql = f"{self.seat.sql}, {self.person.sql}, {self.profile.sql}, {self.address.sql}"
        self.at_person = len(self.seat)
        self.at_profile = self.at_person + len(self.person)
        self.at_address = self.at_profile + len(self.profile)

    def instance(self, row: Sequence[Any], game: Game) -> Seat:
        seat = self.seat.instance(Seat, row[: self.at_person])
        Seat.game.field.set_cached_value(seat, game)
        person = self.person.instance(User, row[self.at_person : self.at_profile])
        _attach(person, User.profile, self.profile, row[self.at_profile : self.at_address])
        _attach(person, User.verified_address, self.address, row[self.at_address :])
        Seat.user.field.set_cached_value(seat, person)
        return seat


@cache
def _people_query(count: int) -> tuple[str, PeopleColumns]:
    columns = PeopleColumns()
    user = f"s.{_column(Seat, 'user')}"
    positions = ", ".join(["%s"] * count)
    sql = (
        f"SELECT {columns.sql} FROM {_table(Seat)} s"
        f" JOIN {_table(User)} pu ON pu.{_column(User, 'id')} = {user}"
        f" LEFT JOIN {_table(PlayerProfile)} pp ON pp.{_column(PlayerProfile, 'user')} = {user}"
        f" LEFT JOIN {_table(VerifiedAddress)} pv ON pv.{_column(VerifiedAddress, 'user')} = {user}"
        f" WHERE s.{_column(Seat, 'game')} = %s AND s.{_column(Seat, 'position')} IN ({positions})"
        f" AND s.{_column(Seat, 'replaced_by_bot')} = %s ORDER BY s.{_column(Seat, 'position')}"
    )
    return sql, columns


def people_at(game: Game, positions: Sequence[int]) -> list[Seat]:
    """The seats of ``game`` at ``positions`` that a person plays (not a bot, not handed to
    one), in position order, each with its person, the person's profile and verified address
    (None when missing), whole: as ``select_related("user__profile", "user__verified_address")``
    loads them, in one prepared statement."""
    wanted = sorted({int(position) for position in positions})
    if not wanted:
        return []
    sql, columns = _people_query(len(wanted))
    return [columns.instance(row, game) for row in _rows(sql, [game.pk, *wanted, False])]


@cache
def _events_query() -> tuple[str, Columns]:
    columns = Columns(Event, "e")
    game, seq = _column(Event, "game"), _column(Event, "seq")
    sql = (
        f"SELECT {columns.sql} FROM {_table(Event)} e WHERE e.{game} = %s AND e.{seq} > %s AND e.{seq} <= %s"
        f" ORDER BY e.{seq} DESC LIMIT %s"
    )
    return sql, columns


def latest_events(game_id: int, after: int, upto: int, limit: int) -> list[Event]:
    """The latest ``limit`` events of ``game_id`` with ``after`` < seq <= ``upto``, newest first:
    one prepared statement (the log summary of every turn email, and the events since a
    decision's seq in a simultaneous step: games/services/simultaneous.py)."""
    sql, columns = _events_query()
    return [columns.instance(Event, row) for row in _rows(sql, [game_id, after, upto, limit])]


@cache
def _listed_query() -> tuple[str, Columns]:
    columns = Columns(ListedMoves, "m", ["id", "moves"])
    where = " AND ".join(f"m.{_column(ListedMoves, name)} = %s" for name in ("game", "position", "seq"))
    return f"SELECT {columns.sql} FROM {_table(ListedMoves)} m WHERE {where}", columns


def listed_moves_row(game_id: int, position: int, seq: int) -> ListedMoves | None:
    """The moves an email listed for seat ``position`` of ``game_id`` after event ``seq`` (only
    ``id`` and ``moves`` loaded), or None."""
    sql, columns = _listed_query()
    found = _rows(sql, [game_id, position, seq])
    return columns.instance(ListedMoves, found[0]) if found else None


_MAX_SEQ = 2**31 - 1  # Event.seq is a PositiveIntegerField


@cache
def _last_move_query(kinds: int) -> str:
    event = Event
    return (
        f"SELECT MAX({_column(event, 'seq')}) FROM {_table(event)} WHERE {_column(event, 'game')} = %s"
        f" AND {_column(event, 'seat')} = %s AND {_column(event, 'seq')} <= %s"
        f" AND {_column(event, 'kind')} IN ({', '.join(['%s'] * kinds)})"
    )


def last_move_seq(game_id: int, position: int, kinds: Sequence[str], upto: int | None = None) -> int:
    """The seq of the latest event of ``game_id`` by seat ``position`` of one of ``kinds`` at or
    before ``upto`` (any, by default; 0 without one): a prepared statement, asked on every
    turn email."""
    limit = _MAX_SEQ if upto is None else upto
    (found,), = _rows(_last_move_query(len(kinds)), [game_id, position, limit, *map(str, kinds)])
    return int(found or 0)


@cache
def _sent_keys_query() -> str:
    note = Notification
    return (
        f"SELECT {_column(note, 'key')} FROM {_table(note)} WHERE {_column(note, 'user')} = %s"
        f" AND {_column(note, 'game')} = %s AND {_column(note, 'kind')} = %s"
        f" AND {_column(note, 'sent_at')} IS NOT NULL"
    )


def sent_keys(user_id: int, game_id: int, kind: str) -> list[str]:
    """The keys of the emails of ``kind`` about ``game_id`` that went out to ``user_id``."""
    return [key for (key,) in _rows(_sent_keys_query(), [user_id, game_id, str(kind)])]


class ChatColumns:
    """A chat line's columns (alias ``c``), its writer's (``cu``: id and username) and the
    writer's profile (``cp``: display name), as ``person_name`` reads them."""

    def __init__(self) -> None:
        self.line = Columns(ChatMessage, "c", ["id", "game", "user", "text", "created_at"])
        self.writer = Columns(User, "cu", ["id", "username"])
        self.profile = Columns(PlayerProfile, "cp", ["id", "user", "display_name"])
        self.sql = f"{self.line.sql}, {self.writer.sql}, {self.profile.sql}"
        self.at_writer = len(self.line)
        self.at_profile = self.at_writer + len(self.writer)

    def instance(self, row: Sequence[Any]) -> ChatMessage:
        line = self.line.instance(ChatMessage, row[: self.at_writer])
        writer = self.writer.instance(User, row[self.at_writer : self.at_profile])
        _attach(writer, User.profile, self.profile, row[self.at_profile :])
        ChatMessage.user.field.set_cached_value(line, writer)
        return line


@cache
def _chat_query(since: bool) -> tuple[str, ChatColumns]:
    columns = ChatColumns()
    line, event = ChatMessage, Event
    game, user, created = _column(line, "game"), _column(line, "user"), _column(line, "created_at")
    after = (
        f" AND NOT EXISTS (SELECT 1 FROM {_table(event)} e WHERE e.{_column(event, 'game')} = c.{game}"
        f" AND e.{_column(event, 'seq')} = %s AND e.{_column(event, 'created_at')} >= c.{created})"
        if since else ""
    )
    sql = (
        f"SELECT {columns.sql} FROM {_table(line)} c"
        f" JOIN {_table(User)} cu ON cu.{_column(User, 'id')} = c.{user}"
        f" LEFT JOIN {_table(PlayerProfile)} cp ON cp.{_column(PlayerProfile, 'user')} = c.{user}"
        f" WHERE c.{game} = %s{after} ORDER BY c.{_column(line, 'id')} DESC LIMIT %s"
    )
    return sql, columns


def chat_rows(game_id: int, limit: int, since_seq: int | None = None) -> list[ChatMessage]:
    """The game's latest ``limit`` chat lines, newest first, each with its writer (id and
    username) and the writer's profile (display name only; None without one); with
    ``since_seq``, only lines written after event ``since_seq`` (all of them when the game has
    no such event). One prepared statement: through the ORM, building the query cost more
    than running it, on every turn email."""
    sql, columns = _chat_query(since_seq is not None)
    params: list[Any] = [game_id] + ([since_seq] if since_seq is not None else []) + [limit]
    return [columns.instance(row) for row in _rows(sql, params)]


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
    with prepared_cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    assert row is not None
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    return instance


@cache
def _locked_query(model: type[models.Model]) -> tuple[str, Columns]:
    columns = Columns(model, "r")
    pk = model._meta.pk
    assert pk is not None
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    where = f"r.{_column(model, pk.name)} = %s"
    return f"SELECT {columns.sql} FROM {_table(model)} r WHERE {where}{lock}", columns


def locked_row(model: type[M], pk: int) -> M | None:
    """The row of ``model`` with primary key ``pk``, locked until the transaction ends (the
    caller must be inside ``transaction.atomic``), as ``select_for_update().filter(pk=pk)
    .first()`` reads it; None when there is none."""
    sql, columns = _locked_query(model)
    found = _rows(sql, [pk])
    return columns.instance(model, found[0]) if found else None


@cache
def _mark_sent_statement() -> str:
    note = Notification
    sent, claimed, pk = _column(note, "sent_at"), _column(note, "claimed_at"), _column(note, "id")
    return f"UPDATE {_table(note)} SET {sent} = %s, {claimed} = NULL WHERE {pk} = %s AND {sent} IS NULL"


def mark_sent(pk: int, at: Any) -> None:
    """Notification ``pk`` went out at ``at``: its ``sent_at``, its claim cleared; nothing when
    it is marked already."""
    value = connection.ops.adapt_datetimefield_value(at)
    with prepared_cursor() as cursor:
        cursor.execute(_mark_sent_statement(), [value, pk])


@cache
def _insert_once_statement(model: type[models.Model]) -> Statement:
    sql, fields = _insert_statement(model)
    head, returning = sql.split(" RETURNING ")
    return f"{head} ON CONFLICT DO NOTHING RETURNING {returning}", fields


def insert_once(instance: models.Model) -> bool:
    """Insert ``instance`` as ``insert`` does, unless a row with the same values of one of the
    model's unique constraints is there: then nothing is written and the answer is False. One
    statement, where ``get_or_create`` reads, then inserts in a transaction of its own. As
    ``get_or_create``, it waits for a transaction inserting the same values to end. (A
    constraint over a NULL value never conflicts.)"""
    sql, fields = _insert_once_statement(type(instance))
    values = _db_values(instance, fields, add=True)
    with prepared_cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    if row is None:
        return False
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    return True


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
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*_db_values(instance, fields, add=False), instance.pk])


def _must_act_statement(game_id: int, positions: Sequence[int]) -> tuple[str, list[int]]:
    """Seat.must_act = whether the seat's position is in ``positions``, for the seats of one
    game whose value changes: a seat left as it was keeps its row version (an UPDATE writes a
    new one even for the same value, and one whose indexed ``must_act`` changes cannot be a
    heap-only update). Plain SQL: the ORM's CASE WHEN costs about a millisecond more to
    compile than the database takes to run it."""
    ints = [int(p) for p in positions]
    to_act = f"{_column(Seat, 'position')} IN ({', '.join(['%s'] * len(ints))})" if ints else "FALSE"
    must_act, game = _column(Seat, "must_act"), _column(Seat, "game")
    sql = f"UPDATE {_table(Seat)} SET {must_act} = ({to_act}) WHERE {game} = %s AND {must_act} <> ({to_act})"
    return sql, [*ints, game_id, *ints]


def settle_position(game: Game, names: Sequence[str], webhook_kind: str) -> tuple[bool, int | None]:
    """The writes that end every append, and the read its side effects need: the game's read
    columns ``names`` (as ``update_fields``), each seat's ``must_act`` from ``game.to_act``, and
    ``webhook_since(game.pk, game.seq, webhook_kind)``. PostgreSQL runs the two UPDATEs as
    data-modifying WITH clauses of the webhook SELECT: one round trip instead of three (the
    SELECT reads neither updated table). SQLite has no such clauses: three statements there."""
    seats_sql, seats_params = _must_act_statement(game.pk, game.to_act)
    if connection.vendor != "postgresql":
        update_fields(game, names)
        with prepared_cursor() as cursor:
            cursor.execute(seats_sql, seats_params)
        return webhook_since(game.pk, game.seq, webhook_kind)
    update_sql, fields = _update_statement(Game, tuple(names))
    update_params = [*_db_values(game, fields, add=False), game.pk]
    hooks_params: list[Any] = [game.pk, game.pk, game.pk, webhook_kind, game.seq]
    sql = f"WITH game_update AS ({update_sql}), seat_update AS ({seats_sql}) {_webhook_query()}"
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*update_params, *seats_params, *hooks_params])
        (live, previous), = cursor.fetchall()
    return bool(live), previous
