"""The table for Libertalia in a real browser (headless Chromium through Playwright, against
live_server): the "How to play" page fits a 375 px phone and has no serious or critical
accessibility violations (axe-core, vendored under tests/web/vendor/); on the table, a Sunrise
choice's confirm step shows its preview, and cancelling sends nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.models import Event
from tests.web.axe import serious_violations
from tests.web.helpers import make_user
from tests.web.libertalia_support import DEAL3, libertalia_game, seat_users
from tests.web.test_browser import DESKTOP, PHONE, login, page_fits, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]



def test_libertalia_how_to_play_fits_a_phone_and_passes_axe(
    live_server: Any, browser: Any
) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)
    page = context.new_page()
    found: dict[str, Any] = {}
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.goto(f"{live_server.url}/rules/libertalia/")
        assert page.title().startswith("How to play: Libertalia")
        fit = page_fits(page)
        assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], (viewport, fit)
        violations = serious_violations(page)
        if violations:
            found[str(viewport["width"])] = violations
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/rules/libertalia/#example")
    shot(page, "libertalia-how-to-play-phone", full_page=False)
    context.close()
    assert found == {}, json.dumps(found, indent=1)


@pytest.mark.usefixtures("transactional_db")
def test_libertalia_confirm_step_shows_the_preview(live_server: Any, browser: Any) -> None:
    people = [make_user(n) for n in ("anne", "bob", "cat")]
    game = libertalia_game(people, DEAL3)
    name = {seat: user.username for seat, user in seat_users(game).items()}[0]
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    login(page, live_server.url, name)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    button = page.locator("#controls button[name=action]").first
    preview = button.get_attribute("data-preview")
    assert preview and "in secret" in preview
    events = Event.objects.filter(game=game).count()
    button.click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    assert page.inner_text("#confirm-preview") == preview
    assert page.inner_text("#confirm-label") == button.get_attribute("data-label")
    box = page.eval_on_selector("#confirm-move", "el => el.getBoundingClientRect().bottom")
    assert box <= PHONE["height"] + 1
    shot(page, "libertalia-confirm-phone", full_page=False)
    page.click("#confirm-no")
    page.wait_for_selector("#confirm-move[hidden]", state="attached", timeout=5000)
    assert Event.objects.filter(game=game).count() == events
    context.close()
