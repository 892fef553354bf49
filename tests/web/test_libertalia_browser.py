"""The table in a real browser (headless Chromium through Playwright, against live_server): a
game of Libertalia for three people and two bots, created and joined through the pages and
played to the end of the third campaign by clicking the offered controls, one player on a
phone (375 px: no sideways scrolling, every control reachable), then watched again in the
replay through one seat's eyes. Screenshots: artifacts/screenshots/libertalia-*.png."""

from __future__ import annotations

import time
from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from games.models import Game, PlayerProfile, Seat
from tests.web.helpers import make_user
from tests.web.test_browser import DESKTOP, PHONE, ConsoleWatch, login, page_fits, shot, submit_move

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAX_MOVES = 300
# The whole story, three campaigns included, must stay quick.


def _fits(page: Any, where: str) -> None:
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], (where, fit)
    page.evaluate("window.scrollTo(0, 0)")


@pytest.mark.usefixtures("transactional_db")
def test_three_people_and_two_bots_play_libertalia_to_the_end(
    live_server: Any, browser: Any, console: ConsoleWatch, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0  # eager Celery: the bots move inside the request
    # Hashing is not the point here; a fast hasher saves seconds on each log-in.
    started = time.monotonic()
    base = live_server.url
    names = ["anne", "bob", "cat"]
    for name in names:
        # No turn emails: this story is about the pages (the emails have tests of their own),
        # and rendering them for every Sunrise would double the time each move takes.
        PlayerProfile.objects.create(user=make_user(name), notify=PlayerProfile.Notify.NONE)
    contexts = {
        "anne": browser.new_context(viewport=DESKTOP),
        "bob": browser.new_context(viewport=DESKTOP),
        "cat": browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
    }
    # Each page load would ask the live server for the stylesheets and scripts again: they
    # are fetched once and then served from memory, so that the server's time goes to moves.
    assets: dict[str, Any] = {}

    def cached(route: Any) -> None:
        url = route.request.url
        if url not in assets:
            assets[url] = route.fetch()
        route.fulfill(response=assets[url])

    for context in contexts.values():
        context.route("**/static/**", cached)
    pages = {name: console.watch(contexts[name].new_page()) for name in names}
    for name in names:
        login(pages[name], base, name)

    anne = pages["anne"]
    anne.goto(f"{base}/games/new/")
    anne.fill("#id_title", "Libertalia Reef")
    anne.select_option("#id_rules", "libertalia")
    anne.select_option("#id_players", "5")
    anne.select_option("#id_bot_seats", "2")
    with anne.expect_navigation():
        anne.click("#new-game-form button[type=submit]")
    game = Game.objects.get(title="Libertalia Reef")
    for name in ("bob", "cat"):
        pages[name].goto(f"{base}/games/{game.pk}/")
        with pages[name].expect_navigation():
            pages[name].click("#join")
    anne.reload()
    with anne.expect_navigation():
        anne.click("#start")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.players == 5
    people = {
        seat.position: seat.user.get_username()
        for seat in Seat.objects.filter(game=game, user__isnull=False).select_related("user")
        if seat.user is not None
    }
    assert sorted(people.values()) == names

    url = f"{base}/games/{game.pk}/"
    # The waiting players' pages follow the game without a reload (htmx polling) ...
    for name in names:
        pages[name].goto(url)
    first = people[next(s for s in game.to_act if s in people)]
    watcher = pages[next(n for n in names if n != first)]
    before = watcher.get_attribute("#live", "data-seq")
    submit_move(pages[first], pages[first].locator("#controls button[name=action]").first)
    watcher.wait_for_selector(f"#live:not([data-seq='{before}'])", timeout=8000)
    assert "has chosen" in watcher.inner_text("#choosing")
    # ... which the rest of the game does without: each player's page is loaded when it is
    # their move, and three pages polling the live server would slow every move down.
    for page in pages.values():
        page.route("**/live/**", lambda route: route.fulfill(status=204))
    shots: set[str] = set()
    moves = 1
    while moves < MAX_MOVES:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        # Sunrise: every person chooses; bots have chosen already (inside the last request).
        seat = next(s for s in game.to_act if s in people)
        name = people[seat]
        page = pages[name]
        if page.url != url or page.get_attribute("#live", "data-seq") != str(game.seq):
            page.goto(url, wait_until="domcontentloaded")
        assert not page.locator(".message.error").count(), page.inner_text(".messages")
        decision = page.get_attribute("#controls form.lib-decision", "data-decision")
        assert decision, f"{name} is to act but is offered no control"
        device = "phone" if name == "cat" else "desktop"
        label = "sunrise" if decision == "play" else "decision"
        if f"{label}-{device}" not in shots:
            shots.add(f"{label}-{device}")
            if device == "phone":
                _fits(page, f"{label} at event {game.seq}")
            shot(page, f"libertalia-{label}-{device}", full_page=device == "phone")
        submit_move(page, page.locator("#controls button[name=action]").first)
        moves += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, f"not finished after {moves} moves"
    assert {"sunrise-desktop", "sunrise-phone", "decision-desktop", "decision-phone"} <= shots

    for name in names:
        page = pages[name]
        page.goto(url)
        assert "Final scores" in page.inner_text("#result")
        assert "3" in page.inner_text("#result thead th:nth-child(4)")
    shot(anne, "libertalia-end-desktop")
    cat = pages["cat"]
    _fits(cat, "the end")
    shot(cat, "libertalia-end-phone", full_page=False)

    # The replay of the finished game, through Bob's eyes: his hand in every frame.
    bob = pages["bob"]
    bob_seat = next(s for s, n in people.items() if n == "bob")
    bob.goto(f"{base}/games/{game.pk}/replay/")
    with bob.expect_navigation():
        bob.click(f"#replay-as a[href='?as={bob_seat}']")
    assert bob.locator("#hand").count() == 1
    bob.click("#replay-first")
    bob.wait_for_selector("#replay-frame .frame[data-seq='1']", timeout=5000)
    bob.click("#replay-next")
    bob.wait_for_selector("#replay-frame .frame[data-seq='2'] #hand", timeout=5000)
    assert f"as={bob_seat}" in bob.url
    shot(bob, "libertalia-replay-desktop")
    cat.goto(f"{base}/games/{game.pk}/replay/?as={next(s for s, n in people.items() if n == 'cat')}")
    _fits(cat, "the replay")
    shot(cat, "libertalia-replay-phone", full_page=False)
    for context in contexts.values():
        context.close()
    elapsed = time.monotonic() - started
    print(f"libertalia browser game: {moves} moves by people, {game.seq} events, {elapsed:.1f} s")
