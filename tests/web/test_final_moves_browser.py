"""The confirm step in a real browser (headless Chromium through Playwright, against
live_server): a move the rules make final says so and why before it is confirmed; a move that
can be taken back shows no such line."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from tests.web.helpers import make_user
from tests.web.test_browser import ConsoleWatch, login

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _game(rules_id: str, names: list[str]) -> Any:
    users = [make_user(name) for name in names]
    game = services.game_create(creator=users[0], rules_id=rules_id, players=len(users), is_public=True)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    seats = game.seats.select_related("user")
    return game, {seat.position: seat.user.username for seat in seats if seat.user}


def _confirm(page: Any, button: Any) -> None:
    button.click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)


@pytest.mark.usefixtures("transactional_db")
def test_the_confirm_step_says_when_a_move_is_final(
    live_server: Any, browser: Any, console: ConsoleWatch
) -> None:
    base = live_server.url
    # Captain Lucky: placing draws from the pile (K-TURN-1), so the move is final.
    game, names = _game("captain-lucky", ["ann", "ben"])
    page = console.watch(browser.new_context().new_page())
    login(page, base, names[game.to_act[0]])
    page.goto(f"{base}/games/{game.pk}/")
    _confirm(page, page.locator("#controls form.move-form button").first)
    assert page.locator("#confirm-final").is_visible()
    assert page.inner_text("#confirm-final") == "This move is final: it draws from the pile."
    page.click("#confirm-no")
    page.wait_for_selector("#confirm-move[hidden]", state="attached", timeout=5000)

    # Classic Pirates: moving a stack shows nothing hidden (C-MOVE-1): no final line.
    game, names = _game("pirates-classic", ["cal", "dee", "eve"])
    other = console.watch(browser.new_context().new_page())
    login(other, base, names[game.to_act[0]])
    other.goto(f"{base}/games/{game.pk}/")
    button = other.locator("#controls button.move").first
    # Open the steps it sits in (one step of a kind is open at a time).
    button.evaluate(
        "b => { for (let d = b.closest('details'); d; d = d.parentElement.closest('details')) "
        "d.open = true; }"
    )
    _confirm(other, button)
    assert other.locator("#confirm-final").is_hidden()
    assert other.inner_text("#confirm-final") == ""
