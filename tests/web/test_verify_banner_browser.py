"""The "verify your address" banner, the profile's address status and the invitation page of an
unverified account pass axe (no serious or critical violation) at 1440 and 375 px wide, fit a
phone's width, and the banner's button sends the link again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core import mail
from pytest_django.fixtures import Settings as SettingsWrapper

from games import services
from tests.accounts import unverified_user
from tests.web.axe import serious_violations
from tests.web.helpers import PASSWORD, make_user
from tests.web.test_browser import PHONE, login

pytestmark = [pytest.mark.browser]

WIDE = {"width": 1440, "height": 900}
# Wider than the viewport means the page scrolls sideways on a phone.
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.usefixtures("transactional_db")
def test_the_unverified_pages_pass_axe_and_fit_a_phone(
    live_server: Any, browser: Any, settings: SettingsWrapper
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    anne = make_user("anne")
    address = "a-rather-long-address.for-a-phone@example.test"
    unverified_user("newbie", address, PASSWORD)
    game = services.game_create(creator=anne, rules_id="pirates", players=3, is_public=False)
    (invitation,) = services.invitation_create(game_id=game.pk, by=anne, emails=address)
    context = browser.new_context(viewport=WIDE, bypass_csp=True)
    page = context.new_page()
    login(page, live_server.url, "newbie")
    found: dict[str, Any] = {}
    for path, marker in (
        ("/games/", "#verify-banner"),
        ("/accounts/profile/", "#address-status"),
        (f"/invite/{invitation.token}/", "#invite-verify"),
    ):
        for viewport in (WIDE, PHONE):
            page.set_viewport_size(viewport)
            page.goto(f"{live_server.url}{path}")
            assert page.locator(marker).is_visible(), (path, marker)
            # One "Send the link again" button on a page, not the banner's beside the page's own.
            assert page.get_by_role("button", name="Send the link again").count() == 1, path
            violations = serious_violations(page)
            if violations:
                found[f"{path}@{viewport['width']}"] = violations
            if viewport is PHONE:
                assert page.evaluate(OVERFLOW) <= 0, f"{path} scrolls sideways on a phone"
    assert found == {}, json.dumps(found, indent=1)
    # The banner's button sends the link again and comes back to the same page.
    mail.outbox.clear()
    page.goto(f"{live_server.url}/games/")
    with page.expect_navigation():
        page.click("#verify-banner button")
    assert page.url.endswith("/games/")
    assert [m.to for m in mail.outbox] == [[address]]
    assert "We emailed a new link" in page.inner_text("body")
    context.close()
