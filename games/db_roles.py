"""The service's database role (PostgreSQL): what `manage.py migrate` grants it.

Migrations run as the owner of the tables (MIGRATE_DATABASE_URL); the service (web, workers,
beat, mailer, mail_ingest) connects as a role that owns nothing (DATABASE_URL). After
migrating, the owner grants that role the ordinary SELECT, INSERT, UPDATE and DELETE on every
table and USAGE on every sequence, and on the event log only SELECT and INSERT: so the service
can neither change, delete nor TRUNCATE an event, nor drop the triggers that guard the log
(only an owner may), nor ALTER or DROP any table. Default privileges give the same to tables
the owner creates later. Each statement is idempotent; the whole runs after every migrate.
"""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import transaction
from django.db.backends.base.base import BaseDatabaseWrapper

# The append-only event log (games.models.Event); see games/migrations/0002 and 0010.
EVENT_TABLE = "games_event"


def grant_service_role(connection: BaseDatabaseWrapper, role: str) -> list[str]:
    """Grants ``role`` the service's privileges in the current schema, as the connected owner.
    Refuses (CommandError, nothing changed) a role that is missing, is a superuser, is the
    owner itself, or owns a table. Returns the statements run."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_schema()")
        current_user, schema = cursor.fetchone()
        if role == current_user:
            raise CommandError(
                f"DATABASE_SERVICE_ROLE is {role!r}, the role migrations run as: the service needs a role "
                "of its own that owns no table (set MIGRATE_DATABASE_URL to the owner's URL)"
            )
        cursor.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %s", [role])
        found = cursor.fetchone()
        if found is None:
            raise CommandError(
                f"DATABASE_SERVICE_ROLE {role!r} does not exist: create it first "
                f"(CREATE ROLE {role} LOGIN PASSWORD '...')"
            )
        if found[0]:
            raise CommandError(
                f"DATABASE_SERVICE_ROLE {role!r} is a superuser (or bypasses row security): no grant binds it"
            )
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND pg_get_userbyid(c.relowner) = %s AND c.relkind IN ('r', 'p', 'v', 'S') "
            "ORDER BY c.relname",
            [schema, role],
        )
        owned = [name for (name,) in cursor.fetchall()]
        if owned:
            raise CommandError(
                f"DATABASE_SERVICE_ROLE {role!r} owns {', '.join(owned)}: the service role must own no table "
                f"(as a superuser: REASSIGN OWNED BY {role} TO {current_user})"
            )
        s, r = quote(schema), quote(role)
        statements = [
            f"GRANT USAGE ON SCHEMA {s} TO {r}",
            f"REVOKE CREATE ON SCHEMA {s} FROM {r}",
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {s} TO {r}",
            f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {s} TO {r}",
            f"REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON {quote(EVENT_TABLE)} FROM {r}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {r}",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT USAGE, SELECT ON SEQUENCES TO {r}",
        ]
        # One transaction: the service never holds, even for a moment, UPDATE on the events.
        with transaction.atomic(using=connection.alias):
            for statement in statements:
                cursor.execute(statement)
    return statements
