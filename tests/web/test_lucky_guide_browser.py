"""The table for Captain Lucky in a real browser (headless Chromium through Playwright): the
"How to play" page fits a 375 px phone and has no serious or critical accessibility violation
(axe-core); at the table, a move's confirm step shows its preview, and the table has no serious
or critical violation either. Screenshots go to artifacts/screenshots/lucky-guide-*.png."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import services
from tests.web.axe import serious_violations
from tests.web.helpers import make_user
from tests.web.test_browser import PHONE, login, page_fits, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.usefixtures("transactional_db")]

WIDE = {"width": 1440, "height": 900}
def _violations(page: Any, url: str) -> dict[str, Any]:
    found = {}
    for viewport in (WIDE, PHONE):
        page.set_viewport_size(viewport)
        page.goto(url)
        violations = serious_violations(page)
        if violations:
            found[f"{url}@{viewport['width']}"] = violations
    return found


def test_lucky_how_to_play_fits_a_phone_and_passes_axe(live_server: Any, browser: Any) -> None:
    base = live_server.url
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{base}/rules/captain-lucky/")
    assert page.title().startswith("How to play: Captain Lucky")
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], fit
    shot(page, "lucky-guide-phone")
    context.close()
    # axe is injected, which the page's Content-Security-Policy would refuse: this context alone
    # bypasses it.
    context = browser.new_context(viewport=WIDE, bypass_csp=True)
    found = _violations(context.new_page(), f"{base}/rules/captain-lucky/")
    context.close()
    assert found == {}, json.dumps(found, indent=1)


def test_lucky_confirm_step_shows_the_preview(live_server: Any, browser: Any) -> None:
    users = [make_user(n) for n in ("anne", "bob")]
    game = services.game_create(creator=users[0], rules_id="captain-lucky", players=2, options={},
                                is_public=True)
    services.seat_join(game_id=game.pk, user=users[1])
    game = services.game_start(game_id=game.pk, by=users[0])
    mover = users[0] if game.seats.get(position=0).user == users[0] else users[1]
    base = live_server.url
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, bypass_csp=True)
    page = context.new_page()
    login(page, base, mover.username)
    page.goto(f"{base}/games/{game.pk}/")
    form = page.locator("#controls form.move-form").first
    preview = form.get_attribute("data-preview") or ""
    assert preview.startswith("The middle gets"), preview
    form.locator("button").click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    assert page.inner_text("#confirm-preview") == preview
    assert page.inner_text("#confirm-label").startswith("Place ")
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"], fit
    shot(page, "lucky-guide-confirm-phone", full_page=False)
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.click("#confirm-yes")
    # After placing, the steal buttons show their previews under their labels.
    assert page.locator("#controls .move-preview").count() >= 1
    found = _violations(page, f"{base}/games/{game.pk}/")
    context.close()
    assert found == {}, json.dumps(found, indent=1)
