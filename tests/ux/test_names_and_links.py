"""People are shown by their display name everywhere (the username is
only for logging in), and email links use the address the site is reached at."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games import selectors
from games.models import Game, PlayerProfile
from games.tables import table_for
from tests.realservers import ROOT
from tests.web.helpers import make_user, started_game

pytestmark = pytest.mark.django_db


def _named(username: str, display: str) -> object:
    user = make_user(username)
    PlayerProfile.objects.create(user=user, display_name=display)
    return user


def test_table_lobby_and_log_show_display_names() -> None:
    sam = _named("sam_salt", "Salty Sam")
    bob, cat = make_user("bob"), make_user("cat")
    game = started_game([sam, bob, cat])  # type: ignore[list-item]
    client = Client()
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Salty Sam" in page
    assert "sam_salt" not in page
    lobby = client.get("/games/").content.decode()
    assert "Salty Sam" in lobby and "sam_salt" not in lobby
    summary = selectors.seats_summary(Game.objects.get(pk=game.pk))
    assert summary[0]["name"] == "Salty Sam" and summary[0]["user"] == "sam_salt"
    board = table_for("pirates").board(selectors.game_detail(game, bob)["view"], summary)
    assert board["names"][0] == "Salty Sam"


def test_navigation_shows_the_display_name() -> None:
    sam = _named("sam_salt", "Salty Sam")
    client = Client()
    client.force_login(sam)  # type: ignore[arg-type]
    page = client.get("/games/").content.decode()
    assert "Salty Sam" in page


def test_emails_greet_by_display_name(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.BOT_MOVE_DELAY_SECONDS = 0
    sam = _named("sam_salt", "Salty Sam")
    from games.emails import send_turn_emails

    game = started_game([sam, make_user("bob"), make_user("cat")])  # type: ignore[list-item]
    mail.outbox.clear()
    send_turn_emails(game_id=game.pk, seq=game.seq)
    to_sam = [m for m in mail.outbox if m.to == ["sam_salt@example.test"]]
    assert to_sam and "Ahoy Salty Sam" in str(to_sam[0].body)


def _site_url(**env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in {"SITE_URL", "PIRATES_PORT", "DATABASE_URL"}}
    base.update(env)
    code = "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE','pirates_site.settings');" \
           "django.setup();from django.conf import settings;print(settings.SITE_URL)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_site_url_follows_the_dev_port() -> None:
    assert _site_url(PIRATES_PORT="8123") == "http://localhost:8123"
    assert _site_url() == "http://localhost:8000"
    assert _site_url(PIRATES_PORT="8123", SITE_URL="https://pirates.example.org/") == "https://pirates.example.org"
