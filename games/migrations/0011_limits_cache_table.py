"""The table of the "limits" cache (settings.LIMITS_CACHE): throttle counts every process
shares on the embedded defaults. Created as ``manage.py createcachetable`` would, so every
place that migrates (scripts/dev, the image's migrate step, the test database) has it; the
name is fixed here, as a migration must not depend on settings."""

from __future__ import annotations

from typing import Any

from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations

TABLE = "pbm_cache"


def create_table(apps: Any, schema_editor: Any) -> None:
    command = CreateCacheTable()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, TABLE, dry_run=False)


def drop_table(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("games", "0010_event_no_truncate")]

    operations = [migrations.RunPython(create_table, drop_table, elidable=False)]
