"""The hash chain over each game's events (engine/chain.py) and the game's chain head.

Existing games are chained here, event by event in seq order, with the same function the
service uses on append, so old games verify like new ones. On PostgreSQL the append-only
trigger is switched off for the length of this one transaction (the table's owner runs
migrations) and on again before it commits: this is the only UPDATE the event table ever takes.
"""

from typing import Any

from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

from engine.chain import GENESIS, hash_of

TRIGGER = "games_event_append_only"  # from 0002_event_append_only_trigger


def link_existing(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    Game = apps.get_model("games", "Game")
    Event = apps.get_model("games", "Event")
    connection = schema_editor.connection
    quote = connection.ops.quote_name
    table = quote(Event._meta.db_table)
    postgres = connection.vendor == "postgresql"
    fields = ("id", "seq", "kind", "seat", "payload", "actor")
    with connection.cursor() as cursor:
        if postgres:
            # ALTER TABLE refuses to run while deferred foreign-key checks are pending.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {quote(TRIGGER)}")
        game_ids = Event.objects.order_by().values_list("game_id", flat=True).distinct()
        for game_id in sorted(game_ids):
            prev = GENESIS
            hashes: list[tuple[str, Any]] = []
            for row in Event.objects.filter(game_id=game_id).order_by("seq").values(*fields).iterator():
                prev = hash_of(prev, row)
                hashes.append((prev, row["id"]))
            cursor.executemany(f"UPDATE {table} SET {quote('hash')} = %s WHERE {quote('id')} = %s", hashes)
            Game.objects.filter(pk=game_id).update(head=prev)
        if postgres:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {quote(TRIGGER)}")


class Migration(migrations.Migration):
    dependencies = [("games", "0002_event_append_only_trigger")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="hash",
            field=models.CharField(default="", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="game",
            name="head",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        # Nothing to undo on the way back: removing the columns removes the hashes.
        migrations.RunPython(link_existing, migrations.RunPython.noop),
    ]
