"""``python manage.py mail_ingest``: one email on standard input, as a mail server's pipe
transport delivers it (Postfix ``pipe``, Exim ``pipe``; see docker/README.md).

Exit status 0 means the message was taken, whatever it said (ignored mail included: a bounce
back to a forger would tell them something). 75 (EX_TEMPFAIL) means the database could not be
reached: the mail server keeps the message and tries again later, and the message's
Message-ID makes the retry harmless. It also means "not configured": with production settings
(``DJANGO_DEBUG`` off) this command refuses the development ``SECRET_KEY`` and the default
SQLite database, which a pipe transport run without the service's environment would otherwise
use, dropping every reply as an unknown address (docker/commands/mail-ingest loads the
settings for the pipe). A configuration that does not load at all exits 75 too (manage.py).
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import DatabaseError, InterfaceError

from games.inbound.handle import receive
from games.inbound.limits import max_bytes
from pirates_site.config import DEV_SECRET_KEY

EX_TEMPFAIL = 75
CHUNK = 64 * 1024
# A message is drained past the size limit so the mail server sees it taken, but not forever.
MAX_DRAIN_BYTES = 256 * 1024 * 1024


class Command(BaseCommand):
    help = "Read one email on standard input (an MTA pipe) and play the move it carries."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--recipient", action="append", default=[],
            help="The envelope recipient (Postfix: ${recipient}); may be repeated.",
        )
        parser.add_argument(
            "--sender", default=None,
            help="The envelope sender (Postfix: ${sender}); empty for a bounce.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        problem = development_defaults()
        if problem:
            self.stderr.write(f"mail_ingest: {problem}; try again later")
            sys.exit(EX_TEMPFAIL)
        stream = sys.stdin.buffer
        raw = stream.read(max_bytes() + 1)
        drained = 0
        while drained < MAX_DRAIN_BYTES and stream.read(CHUNK):
            drained += CHUNK
        try:
            outcome = receive(raw, recipients=options["recipient"], envelope_sender=options["sender"])
        except (DatabaseError, InterfaceError) as exc:
            name = exc.__class__.__name__
            self.stderr.write(f"mail_ingest: the database is unavailable ({name}); try again later")
            sys.exit(EX_TEMPFAIL)
        self.stdout.write(outcome.status + (f" (answer: {outcome.answer})" if outcome.answer else ""))


def development_defaults() -> str:
    """Why production settings are not complete for reading replies ("" when they are)."""
    if not settings.PRODUCTION:
        return ""
    if settings.SECRET_KEY == DEV_SECRET_KEY:
        return "SECRET_KEY is the development key (reply addresses could not be verified)"
    if settings.DATABASE_DEFAULTED:
        return "DATABASE_URL is not set (the development SQLite file is not the game database)"
    return ""
