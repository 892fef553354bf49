"""`manage.py migrate` as the tables' owner, then the service role's grants (games/db_roles.py).

With MIGRATE_DATABASE_URL set, the default database is migrated through the owner's
credentials from it (same database as DATABASE_URL), whatever role the process otherwise
uses; with DATABASE_SERVICE_ROLE set (or implied), that role is then granted the service's
privileges. Without either (SQLite, or one role for everything) this is Django's migrate.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections

from games.db_roles import grant_service_role

CREDENTIALS = ("USER", "PASSWORD", "HOST", "PORT")


class Command(migrate.Command):
    help = migrate.Command.help + " As MIGRATE_DATABASE_URL's role if set; then grants DATABASE_SERVICE_ROLE."

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        connection = connections[alias]
        owner = settings.MIGRATE_DATABASE if alias == DEFAULT_DB_ALIAS else None
        saved = {key: connection.settings_dict.get(key) for key in CREDENTIALS}
        if owner:
            connection.close()
            connection.settings_dict.update({key: owner.get(key) for key in CREDENTIALS})
        try:
            super().handle(*args, **options)
            changes_nothing = options.get("plan") or options.get("check_unapplied") or options.get("prune")
            role = settings.DATABASE_SERVICE_ROLE
            if role and connection.vendor == "postgresql" and not changes_nothing:
                grant_service_role(connection, role)
                if options["verbosity"] >= 1:
                    self.stdout.write(
                        f"Granted the service role {role} its privileges (events: SELECT, INSERT)."
                    )
        finally:
            if owner:
                connection.close()
                connection.settings_dict.update(saved)
