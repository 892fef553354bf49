"""The replay viewer (who may see what, frames, chart) and the rules page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client

from games import services
from games.models import Game
from tests.services.support import started_game as public_started_game
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db


def _play(game: Game, moves: int) -> Game:
    """Plays ``moves`` moves (or to the end) through the services, always the first legal action."""
    from games.selectors import game_detail

    for _ in range(moves):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = game.seats.get(position=game.to_act[0])
        detail = game_detail(game, seat.user)
        actions = detail["legal_actions"]
        action = next((a for a in actions if a["type"] == "capture"), actions[0])
        assert seat.user is not None
        services.action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return game


def test_running_game_replay_only_for_players() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = _play(public_started_game(users), 5)
    player = Client()
    player.force_login(users[1])
    page = player.get(f"/games/{game.pk}/replay/")
    assert page.status_code == 200
    text = page.content.decode()
    assert f'max="{game.seq}"' in text and "<polyline" in text and "from your own seat" in text
    frame = player.get(f"/games/{game.pk}/replay/2/")
    assert frame.status_code == 200 and b'data-seq="2"' in frame.content and b"<html" not in frame.content
    assert player.get(f"/games/{game.pk}/replay/{game.seq + 1}/").status_code == 404
    stranger = Client()
    stranger.force_login(make_user("dan"))
    response = stranger.get(f"/games/{game.pk}/replay/", follow=True)
    assert b"only by its players" in response.content
    assert stranger.get(f"/games/{game.pk}/replay/2/").status_code == 403


def test_finished_game_replay_for_everyone_with_chart_of_each_seat() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = _play(public_started_game(users), 400)
    assert game.status == Game.Status.FINISHED
    page = Client().get(f"/games/{game.pk}/replay/?seq=3")
    text = page.content.decode()
    assert page.status_code == 200 and 'value="3"' in text
    assert text.count("<polyline") == 3
    xs = re.search(r'<script id="chart-xs" type="application/json">(.*?)</script>', text)
    assert xs is not None and len(json.loads(xs.group(1))) == game.seq
    last = Client().get(f"/games/{game.pk}/replay/{game.seq}/")
    assert b"Final scores" in last.content
    assert b"Final scores" in Client().get(f"/games/{game.pk}/").content


def test_replay_of_unstarted_game_redirects_with_message(client: Client) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    client.force_login(anne)
    response = client.get(f"/games/{game.pk}/replay/", follow=True)
    assert b"nothing to replay" in response.content


def test_rules_page_renders_markdown_with_clarifications(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule set without a players' guide shows its rules document. Every bundled rule set
    now has a "How to play" page (tests/ux/test_how_to_play*.py), so the classic table's guide
    is switched off here to reach the rules document."""
    from games.tables import table_for

    monkeypatch.setattr(table_for("pirates-classic"), "how_to_play_template", "")
    page = client.get("/rules/pirates-classic/")
    text = page.content.decode()
    assert page.status_code == 200
    assert '<h3 id="turn-c-turn">' in text and "<code>" in text
    source = (Path(__file__).resolve().parents[2] / "engine" / "pirates_classic" / "rules.md").read_text()
    assert text.count('class="clarified"') == source.count("**Clarification:**") >= 2
    assert client.get("/rules/chess/").status_code == 404


def test_rules_markdown_escapes_html() -> None:
    from games.templatetags.pirates_tags import render_markdown

    out = str(
        render_markdown(
            "# T <b>\n\n- **bold** `<script>`\n- plain <i>x</i>\n\n| a | b |\n|---|---|\n| <1> | 2 |"
        )
    )
    assert "<script>" not in out and "<i>" not in out and "&lt;script&gt;" in out
    assert "<strong>bold</strong>" in out and "<td>&lt;1&gt;</td>" in out and "<ul>" in out
