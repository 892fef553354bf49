"""Rematch and crews in a real browser (headless Chromium through Playwright, live_server).

Two people of a crew finish the crew's game; one clicks "Play again" at the table, the other
says "I'm in" from the link in the email, and the new game starts; the crew page shows the
two games (the crew's game and its rematch), and each player's page one finished game and a
rating in its rule set, also at 375 px without sideways scrolling, with no console error or
Content-Security-Policy violation on any page.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail

from games import services
from games.models import Game, RematchReply
from games.services.crews import crew_create, crew_game_create, crew_invitation_accept, crew_invite
from games.services.rematch import rematch_answer
from tests.services.ratings_support import relay_all
from tests.services.support import play_to_end
from tests.web.helpers import PASSWORD, make_user

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline code"}`);
});
"""


@pytest.fixture
def console_errors() -> Iterator[list[str]]:
    errors: list[str] = []
    yield errors
    assert errors == [], "console errors:\n" + "\n".join(errors)


def watched(page: Any, errors: list[str]) -> Any:
    page.add_init_script(REPORT_CSP_VIOLATIONS)
    page.on("console", lambda msg: errors.append(f"{page.url}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"{page.url}: {exc}"))
    return page


def login(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("form.form button[type=submit]")


def answer_link(email: str, answer: str) -> str:
    """The path of the latest "I'm in" / "Not this time" link emailed to ``email``."""
    for message in reversed(mail.outbox):
        if message.to == [email]:
            found = re.search(rf"https?://[^/\s]+(/rematch/\S+/{answer}/)", str(message.body))
            if found is not None:
                return found.group(1)
    raise AssertionError(f"no rematch email to {email} in {[(m.to, m.subject) for m in mail.outbox]}")


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


@pytest.fixture
def crew_game_over(transactional_db: None) -> dict[str, Any]:
    """Anne and Bob's crew, and the crew's public game of Libertalia they played to the end,
    with its rating update run as the relay would run it."""
    anne, bob = make_user("anne"), make_user("bob")
    crew = crew_create(by=anne, name="Black Gulls")
    (invitation,) = crew_invite(crew_id=crew.pk, by=anne, emails=[bob.email])
    crew_invitation_accept(token=invitation.token, user=bob)
    game = crew_game_create(crew_id=crew.pk, by=anne, rules_id="libertalia", is_public=True)
    rematch_answer(game_id=game.pk, user=bob, accept=True)
    game = play_to_end(Game.objects.get(pk=game.pk))
    assert game.status == Game.Status.FINISHED
    relay_all()
    return {"anne": anne, "bob": bob, "crew": crew, "game": game}


def test_play_again_accepted_from_the_email_and_the_crew_page_shows_both_games(
    live_server: Any, browser: Any, console_errors: list[str], crew_game_over: dict[str, Any]
) -> None:
    base = live_server.url
    data = crew_game_over
    old: Game = data["game"]
    anne_page = watched(browser.new_context(viewport=DESKTOP).new_page(), console_errors)
    login(anne_page, base, "anne")
    anne_page.goto(f"{base}/games/{old.pk}/")
    assert "crew Black Gulls" in anne_page.inner_text("#game-crew")
    mail.outbox.clear()
    with anne_page.expect_navigation():
        anne_page.click("#play-again")
    match = re.search(r"/games/(\d+)/$", anne_page.url)
    assert match is not None, anne_page.url
    new_id = int(match.group(1))
    assert new_id != old.pk
    assert "You are in." in anne_page.inner_text("#call")
    assert Game.objects.get(pk=new_id).status == Game.Status.LOBBY

    # Bob answers from the email, without logging in: GET asks, the button answers.
    bob_page = watched(browser.new_context(viewport=PHONE, is_mobile=True).new_page(), console_errors)
    bob_page.goto(base + answer_link(data["bob"].email, "in"))
    assert RematchReply.objects.get(rematch__game_id=new_id, user=data["bob"]).answer == "waiting"
    assert no_sideways_scroll(bob_page)
    with bob_page.expect_navigation():
        bob_page.click("#answer-in")
    assert "The game has started" in bob_page.inner_text("#answer-done")
    assert Game.objects.get(pk=new_id).status == Game.Status.ACTIVE

    # The old table links to the rematch; the new one is running.
    anne_page.goto(f"{base}/games/{old.pk}/")
    assert anne_page.get_attribute("#rematch-link", "href") == f"/games/{new_id}/"
    anne_page.goto(f"{base}/games/{new_id}/")
    anne_page.wait_for_selector("#status")

    # The crew page: both games, the rule it lists them by, the standings after one game.
    for page, viewport in ((anne_page, DESKTOP), (bob_page, PHONE)):
        if page is bob_page:
            login(page, base, "bob")
        page.set_viewport_size(viewport)
        page.goto(f"{base}/crews/{data['crew'].pk}/")
        games = page.inner_text("#crew-games")
        assert "rematch of one of the crew's games" in games
        hrefs = set(
            page.eval_on_selector_all(
                "#crew-games a.game-link", "els => els.map(a => a.getAttribute('href'))"
            )
        )
        assert hrefs == {f"/games/{old.pk}/", f"/games/{new_id}/"}
        assert page.locator("#crew-finished a.game-link").count() == 1
        assert page.locator("#crew-running a.game-link").count() == 1
        standings = page.inner_text("#crew-standings")
        assert "Libertalia" in standings and "1 finished game" in standings
        # The standings over time, drawn: a line per member.
        assert page.locator("#crew-chart-libertalia svg polyline.series").count() == 2
        assert no_sideways_scroll(page), f"the crew page scrolls sideways at {viewport['width']} px"

        # The player's own page: one finished game, and a rating from it in Libertalia.
        name = "anne" if page is anne_page else "bob"
        page.goto(f"{base}/players/{name}/")
        assert page.inner_text("#rating-libertalia .rating-games").strip() == "1"
        assert page.inner_text("#rating-libertalia .rating-value").strip() not in ("", "—")
        finished = page.eval_on_selector_all(
            "#recent-games li", "els => els.map(li => li.dataset.game)"
        )
        assert str(old.pk) in finished
        assert no_sideways_scroll(page), f"the player page scrolls sideways at {viewport['width']} px"
    assert services.load_state(Game.objects.get(pk=new_id)) is not None
