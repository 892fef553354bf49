"""The table in a real browser (headless Chromium through Playwright, against live_server):
move previews, the confirm step and take-back; the tab title and the announcement of others'
moves; table talk; the replay's move list and its legend following the cursor; the table's
layout at 1440 x 900 and on a 375 px phone; and an accessibility check (axe-core, vendored
under tests/web/vendor/) with no serious or critical violations on the lobby, table, replay
and rules pages. Screenshots go to artifacts/screenshots/ux-*.png."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from games.models import ChatMessage, Event, Game
from tests.web.axe import serious_violations
from tests.web.helpers import make_user, started_game
from tests.web.test_browser import (  # noqa: F401  (finished_and_running is a fixture)
    PHONE,
    ConsoleWatch,
    finished_and_running,
    login,
    page_fits,
    shot,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WIDE = {"width": 1440, "height": 900}


def _wait_title(page: Any, start: str, timeout: float = 10.0) -> str:
    """The tab title once it starts with ``start`` (polled from here: a string predicate for
    wait_for_function is eval, which the page's Content-Security-Policy refuses)."""
    deadline = time.monotonic() + timeout
    title = page.title()
    while time.monotonic() < deadline:
        title = page.title()
        if title.startswith(start):
            return title
        time.sleep(0.2)
    raise AssertionError(f"title {title!r} never started with {start!r}")


def _open_form_of(page: Any, kind: str) -> Any:
    """The move form of the first legal action of ``kind``, its step opened; or None."""
    index = page.evaluate(
        """kind => {
          const forms = [...document.querySelectorAll('#controls form.move-form')];
          const kindOf = f => JSON.parse(f.querySelector('input[name=action]').value).type;
          const i = forms.findIndex(f => kindOf(f) === kind);
          if (i < 0) return -1;
          for (let d = forms[i].closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
          return i;
        }""",
        kind,
    )
    return None if index < 0 else page.locator("#controls form.move-form").nth(index)


def _rect(page: Any, selector: str) -> dict[str, float]:
    return page.eval_on_selector(
        selector, "el => { const r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, "
        "left: r.left, right: r.right}; }"
    )


@pytest.mark.usefixtures("transactional_db")
def test_preview_confirm_take_back_title_and_announcement(
    live_server: Any, browser: Any, console: ConsoleWatch
) -> None:
    base = live_server.url
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    game.title = "Preview Bay"
    game.save(update_fields=["title"])
    anne_context, bob_context = browser.new_context(viewport=WIDE), browser.new_context(viewport=WIDE)
    anne, bob = console.watch(anne_context.new_page()), console.watch(bob_context.new_page())
    login(anne, base, "anne")
    login(bob, base, "bob")
    anne.goto(f"{base}/games/{game.pk}/")
    bob.goto(f"{base}/games/{game.pk}/")
    assert anne.title() == "(1) Your move · Preview Bay · Pirates by Mail"
    assert bob.title() == "Preview Bay · Pirates by Mail"
    assert anne.inner_text("#nav-waiting") == "1"

    # 1440 x 900 with a party opened: the move panel sits beside the cards, both in view.
    anne.locator("#controls details.step1 > summary").first.click()
    cards, controls = _rect(anne, ".display"), _rect(anne, "#controls")
    assert controls["left"] >= cards["right"] - 1, (cards, controls)
    assert cards["top"] < WIDE["height"] and controls["top"] < WIDE["height"]
    shot(anne, "ux-table-wide", full_page=False)

    # Each option says what it will do; the move waits for a confirming tap.
    form = _open_form_of(anne, "assemble")
    assert form is not None
    preview = form.get_attribute("data-preview")
    assert preview and "forming a party" in preview
    assert preview in form.inner_text()
    events = Event.objects.filter(game=game).count()
    form.locator("button").click()
    anne.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    assert anne.inner_text("#confirm-preview") == preview
    shot(anne, "ux-confirm-desktop", full_page=False)
    anne.click("#confirm-no")
    anne.wait_for_selector("#confirm-move[hidden]", state="attached", timeout=5000)
    assert Event.objects.filter(game=game).count() == events
    form.locator("button").click()
    with anne.expect_navigation(wait_until="domcontentloaded"):
        anne.click("#confirm-yes")
    assert Event.objects.filter(game=game).count() == events + 1

    # Bob's table follows without a reload: the title says it is his move, and the live
    # region announces Anne's move to screen readers.
    game.refresh_from_db()
    assert game.to_act == [1]
    assert _wait_title(bob, "(1) Your move").endswith("Preview Bay · Pirates by Mail")
    bob.wait_for_selector("#announcer:not(:empty)", state="attached", timeout=8000)
    announced = bob.inner_text("#announcer") or bob.eval_on_selector("#announcer", "el => el.textContent")
    assert announced.startswith("Anne") or announced.startswith("anne"), announced
    assert "Your move" in announced

    # Anne takes her move back before Bob acts: her turn again, Bob's title follows.
    assert anne.locator("#take-back").count() == 1
    with anne.expect_navigation(wait_until="domcontentloaded"):
        anne.click("#take-back")
    assert "taken back" in anne.inner_text(".messages")
    last = Event.objects.filter(game=game).order_by("-seq").first()
    assert last is not None and last.kind == Event.Kind.TAKE_BACK
    assert anne.title().startswith("(1) Your move")
    _wait_title(bob, "Preview Bay")
    anne_context.close()
    bob_context.close()


@pytest.mark.usefixtures("transactional_db")
def test_table_talk_reaches_the_other_players_without_a_reload(
    live_server: Any, browser: Any, console: ConsoleWatch
) -> None:
    base = live_server.url
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    anne_context, bob_context = browser.new_context(viewport=WIDE), browser.new_context(viewport=PHONE)
    anne, bob = console.watch(anne_context.new_page()), console.watch(bob_context.new_page())
    login(anne, base, "anne")
    login(bob, base, "bob")
    bob.goto(f"{base}/games/{game.pk}/")
    anne.goto(f"{base}/games/{game.pk}/")
    anne.fill("#chat-text", "Ahoy, mind the sea monster!")
    with anne.expect_navigation():
        anne.click("#chat-form button[type=submit]")
    assert ChatMessage.objects.filter(game=game).count() == 1
    assert "mind the sea monster" in anne.inner_text("#chat")
    bob.wait_for_selector("#chat li:has-text('mind the sea monster')", timeout=8000)
    bob.locator("#chat").scroll_into_view_if_needed()
    shot(bob, "ux-chat-phone", full_page=False)
    anne_context.close()
    bob_context.close()


def test_replay_move_list_and_legend_follow_the_cursor(
    live_server: Any, browser: Any, console: ConsoleWatch, finished_and_running: dict[str, Any]  # noqa: F811
) -> None:
    base = live_server.url
    finished: Game = finished_and_running["finished"]
    context = browser.new_context(viewport=WIDE)
    page = console.watch(context.new_page())
    login(page, base, "bob")  # the game fixes its deal, so it is private: a player watches
    page.goto(f"{base}/games/{finished.pk}/replay/")
    page.wait_for_selector("#replay-frame .frame[data-seq='1']")
    series = json.loads(page.inner_text("#chart-series") or page.eval_on_selector(
        "#chart-series", "el => el.textContent"))
    assert page.locator("#move-list .move-link").count() == finished.seq

    def legend() -> list[int]:
        return [int(v) for v in page.locator("#chart-legend .legend-value").all_inner_texts()]

    assert legend() == series[0]
    target = finished.seq // 2
    page.click(f"#move-list .move-link[data-seq='{target}']")
    page.wait_for_selector(f"#replay-frame .frame[data-seq='{target}']", timeout=5000)
    assert page.get_attribute(f"#move-list .move-link[data-seq='{target}']", "aria-current") == "step"
    assert legend() == series[target - 1]
    assert page.inner_text("#chart-seq") == str(target)
    page.click("#replay-last")
    page.wait_for_selector(f"#replay-frame .frame[data-seq='{finished.seq}']", timeout=5000)
    assert legend() == list(finished.result["scores"])  # type: ignore[index]
    shot(page, "ux-replay-wide", full_page=False)
    page.set_viewport_size(PHONE)
    shot(page, "ux-replay-phone")
    context.close()


def test_phone_layouts(
    live_server: Any, browser: Any, console: ConsoleWatch, finished_and_running: dict[str, Any]  # noqa: F811
) -> None:
    base = live_server.url
    data = finished_and_running
    running: Game = data["running"]
    finished: Game = data["finished"]
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = console.watch(context.new_page())
    login(page, base, "anne")
    page.goto(f"{base}/games/{running.pk}/")
    # The move panel comes right after the cards, before the players and the log.
    display, controls = _rect(page, ".display-area"), _rect(page, "#controls")
    players = _rect(page, ".players")
    assert 0 <= controls["top"] - display["bottom"] < 40, (display, controls)
    assert players["top"] > controls["bottom"]
    assert _rect(page, "#chat")["top"] > _rect(page, "#log")["bottom"]
    shot(page, "ux-table-phone")
    form = _open_form_of(page, "capture") or _open_form_of(page, "assemble")
    assert form is not None
    form.locator("button").click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    box = _rect(page, "#confirm-move")
    assert box["bottom"] <= PHONE["height"] + 1 and box["top"] >= 0, box
    shot(page, "ux-confirm-phone", full_page=False)
    page.click("#confirm-no")
    # Tap targets: every visible link and button is at least 44 px tall.
    small = page.evaluate(
        """() => [...document.querySelectorAll('a, button, summary')]
          .filter(el => el.getClientRects().length && !el.closest('details:not([open]) > :not(summary)'))
          .filter(el => !el.closest('.skip-link') && el.getBoundingClientRect().height < 43.5)
          .map(el => el.outerHTML.slice(0, 100))"""
    )
    assert small == [], small
    # The final scores fit 375 px.
    page.goto(f"{base}/games/{finished.pk}/")
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], fit
    result = _rect(page, "#result")
    assert result["right"] <= PHONE["width"]
    page.locator("#result").scroll_into_view_if_needed()
    shot(page, "ux-result-phone", full_page=False)
    page.goto(f"{base}/rules/pirates/")
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"], fit
    shot(page, "ux-rules-phone", full_page=False)
    context.close()


def test_accessibility_no_serious_or_critical_violations(
    live_server: Any, browser: Any, finished_and_running: dict[str, Any]  # noqa: F811
) -> None:
    base = live_server.url
    data = finished_and_running
    # axe runs as an injected script: the page's Content-Security-Policy (scripts from the
    # site only) would refuse it, so this context alone bypasses the policy.
    context = browser.new_context(viewport=WIDE, bypass_csp=True)
    page = context.new_page()
    login(page, base, "anne")
    pages = {
        "lobby": "/games/",
        "table": f"/games/{data['running'].pk}/",
        "end": f"/games/{data['finished'].pk}/",
        "replay": f"/games/{data['finished'].pk}/replay/",
        "rules": "/rules/pirates/",
        "rules-classic": "/rules/pirates-classic/",
        "rules-libertalia": "/rules/libertalia/",
        "rules-lucky": "/rules/captain-lucky/",
        "rules-index": "/rules/",
    }
    found: dict[str, list[dict[str, Any]]] = {}
    for name, path in pages.items():
        for viewport in (WIDE, PHONE):
            page.set_viewport_size(viewport)
            page.goto(base + path)
            violations = serious_violations(page)
            if violations:
                found[f"{name}@{viewport['width']}"] = violations
    context.close()
    assert found == {}, json.dumps(found, indent=1)


@pytest.mark.usefixtures("transactional_db")
def test_turn_email_fits_a_phone(browser: Any, settings: Any) -> None:
    """The HTML turn email was 1,125 px wide (an unbroken log-in link): at 375 px it now fits."""
    from games.emails import _game_context, render

    settings.SITE_URL = "http://localhost:8123"
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    context = _game_context(users[0], game, 0, game.seq)
    message = render("turn", to="anne@example.test", subject="Your turn", context=context, user=users[0])
    html = str(next(content for content, mime in message.alternatives if mime == "text/html"))
    assert "http://localhost:8123/" in html
    page = browser.new_context(viewport=PHONE).new_page()
    page.set_content(str(html))
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    shot(page, "ux-email-phone")
    page.context.close()


@pytest.mark.usefixtures("transactional_db")
def test_browser_notifications_are_asked_for_on_a_click(
    live_server: Any, full_browser: Any, console: ConsoleWatch
) -> None:
    base = live_server.url
    make_user("anne")
    context = full_browser.new_context(viewport=WIDE)
    context.grant_permissions(["notifications"])
    page = console.watch(context.new_page())
    login(page, base, "anne")
    page.goto(f"{base}/games/")
    page.wait_for_selector("#notify-toggle:not([hidden])", timeout=5000)
    assert page.get_attribute("#notify-toggle", "aria-pressed") == "false"
    page.click("#notify-toggle")
    page.wait_for_selector("#notify-toggle[aria-pressed='true']", timeout=5000)
    assert page.inner_text("#notify-toggle") == "Browser notifications on"
    # The lobby polls its own fragment (htmx) like the table does.
    assert page.get_attribute("#lobby-live", "hx-get", timeout=2000).startswith("/games/live/?v=")
    context.close()
