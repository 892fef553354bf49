"""``manage.py rebuild_ratings [RULES ...]``: recompute every rating from the finished games,
in the order they finished (games/ratings.py). Running it twice gives the same ratings."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

import engine
from games import ratings


class Command(BaseCommand):
    help = "Recompute the ratings of the given rule sets (all by default) from the finished games."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "rules", nargs="*", help="rule set ids (pirates, libertalia, ...); all by default"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        wanted: list[str] = options["rules"]
        known = {rules_id for rules_id, _title in engine.available_rules()}
        unknown = [r for r in wanted if r not in known]
        if unknown:
            raise CommandError(
                f"Unknown rule set {', '.join(unknown)}: choose from {', '.join(sorted(known))}."
            )
        applied = ratings.rebuild(wanted or None)
        for rules_id, games in applied.items():
            self.stdout.write(f"{rules_id}: {games} finished games rated")
        if not applied:
            self.stdout.write("no finished games")
