"""/rules/pirates/ is a "How to play" page for players (a worked example
turn, the card list with its values, the majority bonuses, what every symbol means), not the
specification, which stays in the repository (engine/pirates/rules.md). The table explains
its symbols with tooltips."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from engine.pirates.cards import bundled_card_set
from tests.web.helpers import make_user, started_game

pytestmark = pytest.mark.django_db


def test_pirates_rules_page_is_how_to_play(client: Client) -> None:
    page = client.get("/rules/pirates/")
    text = html.unescape(page.content.decode())
    assert page.status_code == 200
    assert "How to play Pirates" in text and "<title>How to play: Pirates" in text
    assert "A worked example" in text and "What the symbols mean" in text
    # Not the specification: no rule ids, no "Clarification" markers.
    assert "P-CAP-1" not in text and 'class="clarified"' not in text
    card_set = bundled_card_set()
    for i in range(len(card_set)):
        assert card_set.name[i] in text
    for kind, bonus in zip(("saber", "rum", "relics", "chest"), card_set.majority_bonus, strict=True):
        assert f"<th>{kind}</th>" in text
        assert f"<td>{bonus}</td>" in text


def test_worked_example_adds_up() -> None:
    from games.tables.pirates.how_to_play import how_to_play

    ex = how_to_play()["example"]
    card = ex["card"]
    assert ex["purse"] == ex["start"] + card["ducats"]
    assert ex["pay"] == 3 + card["question_pay"]
    assert ex["after"] == ex["purse"] - ex["pay"] and ex["kept"] is (ex["after"] >= 0)
    assert ex["mutiny_pay"] == 2 * (4 + card["question_pay"])


def test_table_symbols_have_tooltips() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    client = Client()
    client.force_login(users[1])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert '<abbr title="Minimum crew' in page and '<abbr title="Ducats' in page
    assert 'title="Booty: ' in page
