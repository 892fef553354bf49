"""Pirates (classic) at the table: every button of the controls names its move and carries
the rule set's preview (``Rules.preview``, tested in tests/engine/test_pirates_classic_preview.py)
for the confirm step, including the challenge question's answers (C-MUT-2)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client

from engine.pirates_classic.state import ClassicState
from games.tables import table_for
from tests.engine.pirates_classic_support import RULES
from tests.web.classic_support import classic_game, play_opening
from tests.web.helpers import make_user

TABLE = table_for("pirates-classic")


@pytest.mark.django_db
def test_the_table_buttons_and_emails_carry_the_previews() -> None:
    """Every button of the classic controls names its move and carries its preview for the
    confirm step, including the challenge question's answers (C-MUT-2)."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = classic_game(users)
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    button = re.compile(
        r'<button [^>]*name="action" value="([^"]+)"[^>]*data-label="([^"]+)" data-preview="([^"]*)"'
    )

    def offered(seat: int) -> list[tuple[dict[str, Any], str, str]]:
        page = clients[seat].get(f"/games/{game.pk}/").content.decode()
        found = button.findall(page)
        return [(json.loads(html.unescape(a)), html.unescape(b), html.unescape(c)) for a, b, c in found]

    first = offered(0)
    assert first and all(label and said.startswith("You control a stack of 2") for _, label, said in first)
    play_opening(game)
    asked = offered(2)
    assert [a["type"] for a, _, _ in asked] == ["challenge", "decline"]
    assert "Red must board a ship with Red's stack of 7 led by Red 2" in asked[0][2]
    assert "your pirates in it earn you 9 ducats" in asked[0][2]
    state = _state(game)
    legal = [dict(a) for a in RULES.legal_actions(state, 2)]
    previews = [TABLE.preview(a, {}, rules=RULES, state=state, seat=2) for a in legal]
    groups = TABLE.move_groups(legal, RULES.view(state, 2), previews)
    assert [m.preview for g in groups for m in g.moves] == [said for _, _, said in asked]


def _state(game: Any) -> ClassicState:
    from games.services import load_state

    game.refresh_from_db()
    state = load_state(game)
    assert isinstance(state, ClassicState)
    return state
