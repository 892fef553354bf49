"""The player page and the leaderboard on a phone (375 px): nothing wider than the screen, the
rating chart's labels still readable, no serious axe violation, and no CSP violation (the
``browser`` fixture fails on any). Screenshots: artifacts/screenshots/player-phone.png and
leaderboard-phone.png."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from games.models import Game, Rating
from tests.services.ratings_support import finish, new_game, relay_all
from tests.web.axe import serious_violations
from tests.web.helpers import make_user
from tests.web.test_browser import PHONE, shot

pytestmark = [pytest.mark.browser]

MEASURE = """() => {
  const doc = document.documentElement;
  const svg = document.querySelector('#history-pirates svg');
  const ticks = [...svg.querySelectorAll('text.tick')].map((t) => t.getBoundingClientRect().height);
  return {scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
          chartWidth: svg.getBoundingClientRect().width, smallestTick: Math.min(...ticks)};
}"""


@pytest.mark.usefixtures("transactional_db")
def test_the_player_page_and_leaderboard_fit_a_phone(
    live_server: Any, browser: Any, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    anne, bob = make_user("anne"), make_user("bob")
    for seed in (1, 2):
        game = finish(new_game([anne, bob], bots=1, bot_kind="random"), seed=seed)
        assert game.status == Game.Status.FINISHED
    relay_all()
    assert Rating.objects.get(user=anne, rules_id="pirates").games == 2

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_server.url}/players/anne/")
    page.wait_for_selector("#history-pirates svg")
    assert page.inner_text("#rating-pirates .rating-games") == "2"
    measured = page.evaluate(MEASURE)
    assert measured["scrollWidth"] <= measured["clientWidth"], measured
    assert 300 <= measured["chartWidth"] <= 375, measured
    assert measured["smallestTick"] >= 9, measured  # about the 11 px drawn, not shrunk away
    # The numbers behind the picture are there for those who do not see it.
    page.click("#history-pirates summary")
    assert page.locator("#history-pirates table tbody tr").count() == 1
    shot(page, "player-phone")
    assert serious_violations(page) == []

    page.goto(f"{live_server.url}/ratings/pirates/")
    page.wait_for_selector("#leaderboard table")
    assert page.locator("#leaderboard tbody tr").count() == 3  # anne, bob and the random bot
    doc = "document.documentElement"
    width = page.evaluate(f"() => [{doc}.scrollWidth, {doc}.clientWidth]")
    assert width[0] <= width[1], width
    shot(page, "leaderboard-phone")
    assert serious_violations(page) == []
    context.close()
