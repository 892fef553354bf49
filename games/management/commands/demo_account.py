"""Creates the demo accounts a person trying the service logs in with, and prints them."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from games.services.accounts import mark_verified

DEMO_PASSWORD = "pirates-ahoy"
DEMO_USERS = (
    ("demo", "demo@pirates.localhost"),
    ("anne", "anne@pirates.localhost"),
    ("mary", "mary@pirates.localhost"),
)


class Command(BaseCommand):
    help = "Create the demo accounts (demo, anne, mary) if missing and print how to log in."

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        for username, email in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username, defaults={"email": email})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
            # The demo addresses are the operator's own: verified, so the outbox shows game mail.
            mark_verified(user)
        names = ", ".join(name for name, _ in DEMO_USERS)
        self.stdout.write(f"Demo accounts: {names} — password for each: {DEMO_PASSWORD}")
