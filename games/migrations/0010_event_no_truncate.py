"""On PostgreSQL the event table refuses TRUNCATE too, also from its owner.

0002's row trigger stops UPDATE and DELETE; TRUNCATE fires no row triggers, so it gets a
statement-level one. The service's own role cannot TRUNCATE anyway (it is granted SELECT and
INSERT on this table only, see games/db_roles.py); this trigger stops the owner emptying the
log by accident. An owner that means to can still switch it off (ALTER TABLE ... DISABLE
TRIGGER), as the test suite does to empty its own database between tests (tests/conftest.py).
SQLite has no TRUNCATE.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

CREATE = """
CREATE OR REPLACE FUNCTION games_event_no_truncate() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_event is append-only: TRUNCATE is not allowed'
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_event_no_truncate
    BEFORE TRUNCATE ON games_event
    FOR EACH STATEMENT EXECUTE FUNCTION games_event_no_truncate();
"""

DROP = """
DROP TRIGGER IF EXISTS games_event_no_truncate ON games_event;
DROP FUNCTION IF EXISTS games_event_no_truncate();
"""


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE, params=None)


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("games", "0009_notification_claimed_at")]
    operations = [migrations.RunPython(create, drop)]
