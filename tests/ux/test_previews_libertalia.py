"""Libertalia at the table: every decision button names its move and carries the rule set's
preview (``Rules.preview``, tested in tests/engine/test_libertalia_preview.py) for the confirm
step, and it says more than the button's label."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from tests.web.helpers import make_user
from tests.web.libertalia_support import DEAL3, libertalia_game, play, seat_users

BUTTON_RE = re.compile(r'name="action" value="([^"]+)" data-label="([^"]*)" data-preview="([^"]*)"[^>]*>')


@pytest.mark.django_db
def test_libertalia_buttons_carry_previews_for_the_confirm_step() -> None:
    """Every decision button names its move and carries its preview (the confirm step shows it);
    Blue's buttons are the same whichever card Red chose first (L-SUN-1)."""
    people = [make_user(n) for n in ("anne", "bob", "cat")]
    pages = []
    for first_pick in (18, 14):
        game = libertalia_game(people, DEAL3, title=f"Previews {first_pick}")
        by_seat = seat_users(game)
        play(game, by_seat[0], {"type": "play", "rank": first_pick})
        client = Client()
        client.force_login(by_seat[1])
        page = client.get(f"/games/{game.pk}/").content.decode()
        found = [
            (json.loads(html.unescape(a)), html.unescape(b), html.unescape(c))
            for a, b, c in BUTTON_RE.findall(page)
        ]
        assert len(found) == 9
        for action, label, preview in found:
            assert label and preview and preview != label, action
            assert "in secret" in preview and preview in html.unescape(page)
        pages.append([(a, c) for a, _, c in found])
    assert pages[0] == pages[1]
