"""Captain Lucky at the table: every move button carries the rule set's preview
(``Rules.preview``, tested in tests/engine/test_captain_lucky_preview.py) for the confirm step,
and it says more than the button's label."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from games import services
from tests.web.helpers import make_user

FORM_RE = re.compile(r'<form method="post" action="/games/\d+/act/" class="move-form" data-label="([^"]*)" '
                     r'data-preview="([^"]*)"[^>]*>.*?name="action" value="([^"]+)"', re.S)


@pytest.mark.django_db
def test_every_lucky_move_button_carries_its_preview_for_the_confirm_step() -> None:
    users = [make_user(n) for n in ("anne", "bob")]
    game = services.game_create(creator=users[0], rules_id="captain-lucky", players=2, options={},
                                is_public=True)
    services.seat_join(game_id=game.pk, user=users[1])
    game = services.game_start(game_id=game.pk, by=users[0])
    for _ in range(3):  # place, then steal: both steps' buttons
        game.refresh_from_db()
        seat = game.seats.get(position=game.to_act[0])
        assert seat.user is not None
        client = Client()
        client.force_login(seat.user)
        page = client.get(f"/games/{game.pk}/").content.decode()
        forms = [(html.unescape(a), html.unescape(b), json.loads(html.unescape(c)))
                 for a, b, c in FORM_RE.findall(page)]
        legal = services.rules_for(game).legal_actions(services.load_state(game), seat.position)
        assert [f[2] for f in forms] == [dict(a) for a in legal]
        for label, preview, action in forms:
            assert label and preview and preview != label, action
        assert 'data-confirm="1"' in page and 'id="confirm-move"' in page
        action = next((a for a in legal if a["type"] != "stop"), legal[0])
        services.action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
