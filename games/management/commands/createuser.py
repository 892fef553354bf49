"""``manage.py createuser NAME --email E --password P``: a player account, for scripts and CI."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.core.validators import validate_email
from django.db import transaction

from games.services.accounts import mark_verified


class Command(BaseCommand):
    help = "Create a player account (fails if the name is taken)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("name", help="the username")
        parser.add_argument("--email", required=True, help="the player's email address")
        parser.add_argument("--password", required=True, help="the password (checked by the password rules)")

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        name: str = options["name"].strip()
        email: str = options["email"].strip()
        password: str = options["password"]
        if not name:
            raise CommandError("The username must not be empty.")
        try:
            validate_email(email)
        except ValidationError:
            raise CommandError(f"{email!r} is not an email address.") from None
        if User.objects.filter(username__iexact=name).exists():
            raise CommandError(f"A user named {name!r} already exists.")
        try:
            validate_password(password, User(username=name, email=email))
        except ValidationError as exc:
            raise CommandError("Password refused: " + " ".join(exc.messages)) from None
        with transaction.atomic():
            user = User.objects.create_user(name, email, password)
            # An operator vouches for the address: it counts as verified.
            mark_verified(user)
        self.stdout.write(f"Created user {name} <{email}> (address verified).")
