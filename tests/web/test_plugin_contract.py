"""TABLE-PLUGIN contract: for every registered rule set, its table (its own plugin, or the
generic one) renders through the real views at the start, in the middle and at the end of a
game, for every seat and for a spectator: the table page and its live fragment answer 200,
with no template artefact (an unrendered ``{{``/``{%``, a variable the template did not
have, a Python ``None``). A new rule set is checked by being registered.

Games are played through the services by people only, so every seat is someone's page: the
seat to act picks from its legal moves with a seeded generator.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.template import engines
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

import engine
from games import services
from games.models import Game, Seat
from games.read.state import load_state, rules_for
from tests.web.helpers import logged_in, make_user

pytestmark = pytest.mark.django_db

# Where a template asks for a variable its context lacks (Django prints "" by default).
MISSING = "MISSING-TEMPLATE-VARIABLE"
ARTEFACTS = re.compile(r"\{\{|\}\}|\{%|%\}|\bNone\b|" + MISSING)
RULE_SETS = [rules_id for rules_id, _ in engine.available_rules()]
MAX_MOVES = 3000


def _play(game: Game, users: dict[int, Any], rng: random.Random, count: int) -> int:
    """Up to ``count`` moves by the seats to act (fewer if the game ends); the number made."""
    made = 0
    while made < count:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = rng.choice(game.to_act)
        legal = rules_for(game).legal_actions(load_state(game), seat)
        services.action_submit(
            game_id=game.pk, user=users[seat], action=rng.choice(legal), expected_seq=game.seq
        )
        made += 1
    game.refresh_from_db()
    return made


def _artefacts(html: str) -> list[str]:
    return sorted({html[max(0, m.start() - 60) : m.end() + 60] for m in ARTEFACTS.finditer(html)})


def _check_pages(game: Game, clients: dict[str, Client], point: str) -> int:
    """Every viewer's table page and live fragment render cleanly; how many pages were read."""
    problems: dict[str, list[str]] = {}
    pages = 0
    for viewer, client in clients.items():
        for url in (f"/games/{game.pk}/", f"/games/{game.pk}/live/"):
            response = client.get(url)
            assert response.status_code == 200, f"{point}, {viewer}: {url} answered {response.status_code}"
            html = response.content.decode()
            assert f"/games/{game.pk}/" in html or "live" in url
            found = _artefacts(html)
            if found:
                problems[f"{point}, {viewer}, {url}"] = found
            pages += 1
    assert problems == {}, problems
    return pages


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_the_table_renders_for_every_seat_and_a_spectator_at_start_middle_and_end(
    rules_id: str, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    settings.TEMPLATES = [
        {**t, "OPTIONS": {**t.get("OPTIONS", {}), "string_if_invalid": MISSING}} for t in settings.TEMPLATES
    ]
    assert engines["django"].engine.string_if_invalid == MISSING  # type: ignore[attr-defined]
    rules = engine.get_rules(rules_id)
    players = rules.player_counts[0]
    people = [make_user(f"{rules_id[:8]}-{n}") for n in range(players)]
    game = services.game_create(creator=people[0], rules_id=rules_id, players=players)
    for user in people[1:]:
        services.seat_join(game_id=game.pk, user=user)
    game = services.game_start(game_id=game.pk, by=people[0])
    users = {
        seat.position: seat.user
        for seat in Seat.objects.filter(game=game).select_related("user")
        if seat.user is not None
    }
    assert sorted(users) == list(range(players)), "every seat is a person's"
    clients = {f"seat {seat}": logged_in(user) for seat, user in users.items()}
    clients["spectator"] = logged_in(make_user(f"{rules_id[:8]}-watcher"))
    rng = random.Random(f"table contract {rules_id}")

    assert game.status == Game.Status.ACTIVE
    pages = _check_pages(game, clients, "start")
    assert _play(game, users, rng, players * 4) == players * 4
    assert game.status == Game.Status.ACTIVE, "the middle look is of a running game"
    pages += _check_pages(game, clients, "middle")
    _play(game, users, rng, MAX_MOVES)
    assert game.status == Game.Status.FINISHED, f"not finished after {MAX_MOVES} moves"
    pages += _check_pages(game, clients, "end")
    assert pages == 3 * 2 * (players + 1)


def test_the_artefact_check_finds_what_it_looks_for() -> None:
    assert _artefacts("<p>Score: None</p>") and _artefacts("<p>{{ board.title }}</p>")
    assert _artefacts(f"<p>{MISSING}</p>") and _artefacts("<p>{% if x %}</p>")
    assert _artefacts("<p>Nonesuch and Nobody</p>") == []
