"""``manage.py outbox_relay``: publish the due outbox rows once, as beat's relay does every
few seconds (``--repair`` first re-queues missing side effects, as the sweep does).

For operators after an outage ("publish what waited, now") and for fault-injection tests.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from games import outbox


class Command(BaseCommand):
    help = "Publish the outbox rows that are due as Celery tasks, once."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--repair", action="store_true", help="re-queue missing side effects first")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["repair"]:
            repaired = outbox.repair()
            self.stdout.write(f"Re-queued {repaired.bot_moves} bot moves and {repaired.turns} turn emails.")
        published = outbox.relay()
        self.stdout.write(f"Published {published} outbox rows.")
