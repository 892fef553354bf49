"""The replay on a phone (375 px): the step buttons' labels are not clipped, the site header
is one row, and the step controls are on the first screen and stay on the screen while the frame scrolls,
in every game.
Screenshots: artifacts/screenshots/replay-phone-<game>.png."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from games import services
from games.models import Game, PlayerProfile, Seat
from tests.web.helpers import make_user
from tests.web.test_browser import PHONE, login, shot
from tests.web.test_polish import _play_to_the_end

pytestmark = [pytest.mark.browser]

GAMES = {"pirates": 3, "pirates-classic": 3, "libertalia": 2, "captain-lucky": 2}

MEASURE = """() => {
  const box = (el) => el.getBoundingClientRect();
  const buttons = [...document.querySelectorAll('.replay-buttons .button')].map((b) => ({
    id: b.id, clipped: b.scrollWidth > b.clientWidth + 1 }));
  const topbar = document.querySelector('.topbar');
  const brand = box(topbar.querySelector('.brand'));
  const links = [...topbar.querySelectorAll('.nav > *')].map((el) => box(el));
  const controls = box(document.getElementById('replay-slider'));
  return {buttons, oneRow: links.every((l) => l.top < brand.bottom && l.bottom > brand.top),
          sliderBottom: controls.bottom, nextBottom: box(document.getElementById('replay-next')).bottom,
          viewport: window.innerHeight, scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth};
}"""


@pytest.mark.parametrize("rules_id", list(GAMES))
@pytest.mark.usefixtures("transactional_db")
def test_replay_fits_a_phone(
    rules_id: str, live_server: Any, browser: Any, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    # A long display name: the header must keep it on one row too.
    anne = make_user("annemarie")
    PlayerProfile.objects.create(user=anne, notify=PlayerProfile.Notify.NONE, display_name="Anne-Marie Bonny")
    players = GAMES[rules_id]
    game = services.game_create(
        creator=anne, rules_id=rules_id, players=players, bot_seats=players - 1, bot_kind=Seat.BotKind.RANDOM,
        title="The Long Voyage of the Sea Serpent",
    )
    game = services.game_start(game_id=game.pk, by=anne)
    game = _play_to_the_end(game, random.Random(f"replay-{rules_id}"))
    assert game.status == Game.Status.FINISHED
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    login(page, live_server.url, "annemarie")
    page.goto(f"{live_server.url}/games/{game.pk}/replay/")
    page.wait_for_selector("#replay-next")
    shot(page, f"replay-phone-{rules_id}", full_page=False)
    fit = page.evaluate(MEASURE)
    assert [b["id"] for b in fit["buttons"] if b["clipped"]] == [], fit
    assert fit["oneRow"], fit
    assert fit["sliderBottom"] <= fit["viewport"] and fit["nextBottom"] <= fit["viewport"], fit
    assert fit["scrollWidth"] <= fit["clientWidth"], fit
    # Down at the board and the move list, the step controls are still on the screen, and work.
    page.locator("#move-list").scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 0
    next_box = page.locator("#replay-next").bounding_box()
    assert next_box is not None
    assert next_box["y"] >= 0 and next_box["y"] + next_box["height"] <= PHONE["height"], next_box
    page.locator("#replay-next").click()
    page.wait_for_function("document.getElementById('replay-pos').textContent.trim() === '2'")
