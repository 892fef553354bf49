"""Writes the reply corpus as .eml files, every case replying to one real turn email.

    python -m tests.inbound.corpus.write [DIRECTORY]   (default: tests/inbound/corpus/eml)

It plays nothing and touches no database of yours: a throwaway SQLite database in a temporary
folder holds one started game, whose first turn email (rendered by our templates, sent to the
locmem backend) every case replies to. test_reply_corpus.py reads these files with the parser
(a fixed corpus), and also builds every case again from the turn email of a game of its own
and sends it through ``mail_ingest`` (so the corpus always quotes what the templates render
now). Run this again after changing the cases.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(directory: Path) -> int:
    with tempfile.TemporaryDirectory() as work:
        os.environ.update(
            {
                "DJANGO_SETTINGS_MODULE": "pirates_site.settings",
                "VAR_DIR": work,
                "DATABASE_URL": f"sqlite:///{work}/corpus.sqlite3",
                "CELERY_TASK_ALWAYS_EAGER": "1",
                "TURN_EMAIL_GRACE_SECONDS": "0",
                "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
                "SITE_URL": "https://pirates.example.org",
                "DEFAULT_FROM_EMAIL": "Pirates by Mail <captain@pirates.example.org>",
                "REPLY_DOMAIN": "reply.pirates.example.org",
            }
        )
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "EMAIL_HOST"):
            os.environ.pop(name, None)
        import django

        django.setup()
        from django.contrib.auth.models import User
        from django.core import mail
        from django.core.management import call_command

        from games.emails import send_turn_emails
        from games.inbound.parse import parse
        from games.services import game_create, game_start, seat_join
        from tests.inbound.corpus.cases import CASES
        from tests.inbound.corpus.clients import Original

        call_command("migrate", verbosity=0)
        mail.outbox = []
        anne, bart, cleo = (
            User.objects.create_user(name, f"{name}@example.org") for name in ("anne", "bart", "cleo")
        )
        game = game_create(creator=anne, rules_id="pirates", players=3, bot_seats=0, title="Skull Bay")
        for person in (bart, cleo):
            seat_join(game_id=game.pk, user=person)
        game_start(game_id=game.pk, by=anne)
        game.refresh_from_db()
        send_turn_emails(game_id=game.pk, seq=game.seq)
        turn = next(m for m in mail.outbox if m.subject.startswith("Your turn in"))
        original = Original(parse(turn.message().as_bytes()))
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "turn_email.eml").write_bytes(turn.message().as_bytes())
        for case in CASES:
            (directory / f"{case.name}.eml").write_bytes(case.raw(original))
        print(f"{len(CASES)} replies to {turn.to[0]}'s turn email written to {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "eml"))
