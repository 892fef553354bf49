"""Every game's table passes axe (no serious or critical violation) at its start, in the middle
and at the end, as a player sees it, at 1440 and 375 px wide.

Each game is played through the services: Anne picks from her legal moves with a
seeded generator, random bots play the other seats (eager Celery: they move inside the service
call that hands them the turn)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from engine.registry import all_rules
from games import services
from games.models import Game, PlayerProfile, Seat
from games.read.state import load_state, rules_for
from tests.web.axe import serious_violations
from tests.web.helpers import make_user
from tests.web.test_browser import PHONE, login

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDE = {"width": 1440, "height": 900}
# Every registered rule set, at the fewest players its counts allow: the others are bots.
GAMES = {rules.id: min(rules.player_counts) for rules in all_rules()}
# Anne's moves before the middle look; every game here lasts longer than that.
MIDDLE_AFTER = 6
MAX_MOVES = 2000


def _anne_moves(game: Game, rng: random.Random, count: int) -> int:
    """Anne plays up to ``count`` moves (fewer if the game ends first); the number played."""
    played = 0
    while played < count:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        # Seating is drawn from the game's seed: Anne's place is looked up.
        mine = Seat.objects.get(game=game, user=game.created_by).position
        assert mine in game.to_act, f"the bots left the game waiting at seq {game.seq}: {game.to_act}"
        legal = rules_for(game).legal_actions(load_state(game), mine)
        services.action_submit(
            game_id=game.pk, user=game.created_by, action=rng.choice(legal), expected_seq=game.seq
        )
        played += 1
    game.refresh_from_db()
    return played


@pytest.mark.parametrize("rules_id", list(GAMES))
@pytest.mark.usefixtures("transactional_db")
def test_table_has_no_serious_axe_violation_at_start_middle_and_end(
    rules_id: str, live_server: Any, browser: Any, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    anne = make_user("anne")
    PlayerProfile.objects.create(user=anne, notify=PlayerProfile.Notify.NONE)
    players = GAMES[rules_id]
    game = services.game_create(
        creator=anne, rules_id=rules_id, players=players, bot_seats=players - 1, bot_kind=Seat.BotKind.RANDOM
    )
    game = services.game_start(game_id=game.pk, by=anne)
    # The page's Content-Security-Policy refuses the injected axe script (see tests/web/axe.py).
    context = browser.new_context(viewport=WIDE, bypass_csp=True)
    page = context.new_page()
    login(page, live_server.url, "anne")
    rng = random.Random(f"axe-{rules_id}")
    found: dict[str, list[dict[str, Any]]] = {}

    def check(point: str) -> None:
        for viewport in (WIDE, PHONE):
            page.set_viewport_size(viewport)
            page.goto(f"{live_server.url}/games/{game.pk}/")
            violations = serious_violations(page)
            if violations:
                found[f"{point}@{viewport['width']}"] = violations

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    check("start")
    assert _anne_moves(game, rng, MIDDLE_AFTER) == MIDDLE_AFTER
    assert game.status == Game.Status.ACTIVE, "the middle look must be of a running game"
    check("middle")
    _anne_moves(game, rng, MAX_MOVES)
    assert game.status == Game.Status.FINISHED, f"not finished after {MAX_MOVES} moves of Anne's"
    check("end")
    context.close()
    assert found == {}, json.dumps(found, indent=1)
