"""The web pages in a real browser (headless Chromium through Playwright, against live_server).

1. Three people sign up in three browser contexts, one creates a game and invites the other two
   by email, they follow the links and join, the game is played to the end by clicking among the
   offered controls, and everyone steps through the replay.
2. At 375 px wide no page scrolls sideways and every control can be reached.
3. No page logs a console error.
4. Editing the page to act for another seat gives an error and appends nothing.
5. Every page works under the Content-Security-Policy: the lobby, the table
   with htmx's live updates, the replay script, the rules, the API docs and the dev outbox
   with an email in its frame, without a single violation.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from games import services
from games.models import Event, Game
from tests.services.support import no_turn_emails
from tests.web.helpers import PASSWORD, make_user, started_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
MAX_MOVES = 400


# Runs in every frame before the page's own scripts (Playwright injects it, so the policy does
# not apply to it): any Content-Security-Policy violation becomes a console error.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline code"}`
    + ` in ${e.sourceFile || e.documentURI}:${e.lineNumber}`);
});
"""


class ConsoleWatch:
    """Console errors (Chromium's own "Refused to ..." lines included), Content-Security-Policy
    violations and uncaught page errors of every page it watches."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def watch(self, page: Any) -> Any:
        page.add_init_script(REPORT_CSP_VIOLATIONS)
        page.on("console", lambda msg: self._console(page.url, msg.type, msg.text))
        page.on("pageerror", lambda exc: self.errors.append(f"{page.url}: {exc}"))
        return page

    def _console(self, url: str, kind: str, text: str) -> None:
        if kind == "error":
            self.errors.append(f"{url}: {text}")


def shot(page: Any, name: str, full_page: bool = True) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def signup(page: Any, base: str, name: str, *, via: str | None = None, verify: bool = True) -> None:
    """Sign up as ``name`` and (``verify``) follow the link emailed to verify the address,
    which leads on to the page sign-up was on the way to."""
    if via is None:
        page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_display_name", name.capitalize())
    page.fill("#id_email", f"{name}@example.test")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    with page.expect_navigation():
        page.click("form.form button[type=submit]")
    if verify:
        page.goto(base + verify_path(f"{name}@example.test"))


def verify_path(email: str) -> str:
    """The path of the latest verification link emailed to ``email``."""
    for message in reversed(mail.outbox):
        if message.to == [email]:
            found = re.search(r"https?://[^/\s]+(/accounts/verify/\S+/)", str(message.body))
            if found is not None:
                return found.group(1)
    raise AssertionError(f"no verification link to {email} in {[m.to for m in mail.outbox]}")


def login(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.click("form.form button[type=submit]")


def invite_path(email: str) -> str:
    for message in mail.outbox:
        if message.to == [email]:
            found = re.search(r"https?://[^/\s]+(/invite/\S+/)", str(message.body))
            if found is not None:  # not the verification email sent at sign-up
                return found.group(1)
    raise AssertionError(f"no invitation to {email} in {[m.to for m in mail.outbox]}")


def play_one_move(page: Any, rng: random.Random, *, pause_for_screenshot: str | None = None) -> None:
    """Open a party (step 1), choose what to do (step 2) and the booty (step 3) where offered."""
    steps = page.locator("#controls details.step1")
    groups: list[str] = steps.evaluate_all("els => els.map(el => el.dataset.groups || '')")
    assert groups, "the player to move is offered no controls"
    capturing = [i for i, g in enumerate(groups) if "Capture" in g or "Mutiny" in g]
    index = rng.choice(capturing) if capturing and rng.random() < 0.95 else rng.randrange(len(groups))
    step = steps.nth(index)
    step.locator("summary").first.click()
    option_groups = step.locator(".option-group")
    headings = option_groups.locator("h3").all_inner_texts()
    preferred = [i for i, h in enumerate(headings) if h in ("Capture", "Mutiny")]
    group = rng.choice(preferred) if preferred else rng.randrange(len(headings))
    candidates = option_groups.nth(group).locator(
        ":scope > details.step2 > summary, :scope > form.move-form > button"
    )
    choice = candidates.nth(rng.randrange(candidates.count()))
    if (choice.evaluate("el => el.tagName")) == "SUMMARY":
        choice.click()
        booty = choice.locator("xpath=..").locator(".booty-picks button")
        if pause_for_screenshot:
            shot(page, pause_for_screenshot, full_page=False)
        submit_move(page, booty.nth(rng.randrange(booty.count())))
    else:
        if pause_for_screenshot:
            shot(page, pause_for_screenshot, full_page=False)
        submit_move(page, choice)


def submit_move(page: Any, button: Any) -> None:
    """A move button asks for confirmation with the move's preview: one more tap."""
    button.click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    assert page.inner_text("#confirm-label").strip()
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.click("#confirm-yes")


def page_fits(page: Any) -> dict[str, Any]:
    """No sideways scrolling, and every control that is rendered lies inside the viewport width."""
    return page.evaluate(
        """() => {
        const doc = document.documentElement;
        const bad = [];
        const controls = 'a, button, input:not([type=hidden]), select, textarea, summary';
        for (const el of document.querySelectorAll(controls)) {
          if (el.closest('details:not([open])') && el.tagName !== 'SUMMARY') continue;
          if (el.tagName === 'SUMMARY' && el.parentElement.closest('details:not([open])')) continue;
          if (!el.getClientRects().length) continue;
          if (el.classList.contains('skip-link')) continue;  // shown only when focused
          el.scrollIntoView({block: 'center'});
          const r = el.getBoundingClientRect();
          const x = Math.min(r.left + r.width / 2, innerWidth - 1);
          const top = document.elementFromPoint(x, r.top + r.height / 2);
          const onTop = top && (el === top || el.contains(top) || top.contains(el));
          const inside = r.width >= 1 && r.left >= -1 && r.right <= innerWidth + 1;
          if (!inside || !onTop) bad.push(el.outerHTML.slice(0, 120));
        }
        return {scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, bad};
      }"""
    )


@pytest.mark.usefixtures("transactional_db")
def test_three_players_invite_play_to_the_end_and_replay(
    live_server: Any, browser: Any, console: ConsoleWatch
) -> None:
    started = time.monotonic()
    base = live_server.url
    names = ["anne", "bob", "cat"]
    contexts = {n: browser.new_context(viewport=DESKTOP) for n in names}
    pages = {n: console.watch(contexts[n].new_page()) for n in names}

    signup(pages["anne"], base, "anne")
    signup(pages["bob"], base, "bob")
    anne = pages["anne"]
    anne.goto(f"{base}/games/new/")
    anne.fill("#id_title", "Browser Bay")
    anne.select_option("#id_rules", "pirates")  # this story plays Pirates; other rule sets are offered too
    anne.select_option("#id_players", "3")
    anne.fill("#id_invite", "bob@example.test, cat@example.test")
    with anne.expect_navigation():
        anne.click("#new-game-form button[type=submit]")
    assert "Invitation sent" in anne.inner_text(".messages")
    game = Game.objects.get(title="Browser Bay")

    # Bob has an account already; Cat signs up on the way from the link.
    pages["bob"].goto(base + invite_path("bob@example.test"))
    with pages["bob"].expect_navigation():
        pages["bob"].click("#accept-invite")
    cat = pages["cat"]
    cat.goto(base + invite_path("cat@example.test"))
    assert "/accounts/signup/" in cat.url
    signup(cat, base, "cat", via="invite")
    with cat.expect_navigation():
        cat.click("#accept-invite")
    assert cat.url.endswith(f"/games/{game.pk}/")
    anne.reload()
    shot(anne, "lobby-phase-desktop")
    with anne.expect_navigation():
        anne.click("#start")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE

    by_seat = {
        seat.position: seat.user.get_username() for seat in game.seats.select_related("user") if seat.user
    }
    for name in names:
        pages[name].goto(f"{base}/games/{game.pk}/")
    # The waiting players' pages follow the game without a reload (htmx polling).
    first = by_seat[game.to_act[0]]
    waiting = next(n for n in names if n != first)
    waiting_page = pages[waiting]
    before = waiting_page.get_attribute("#live", "data-seq")
    shot(pages[first], "table-desktop")
    rng = random.Random(5)
    play_one_move(pages[first], rng, pause_for_screenshot="move-in-progress-desktop")
    # A selector, not wait_for_function: a string predicate is eval, which the page's CSP refuses.
    waiting_page.wait_for_selector(f"#live:not([data-seq='{before}'])", timeout=8000)

    phone_page = None
    moves = 1
    while moves < MAX_MOVES:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        name = by_seat[game.to_act[0]]
        page = pages[name]
        if f"/games/{game.pk}/" not in page.url:
            page.goto(f"{base}/games/{game.pk}/", wait_until="domcontentloaded")
        elif page.get_attribute("#live", "data-seq") != str(game.seq):
            # Coming back to the tab refreshes the table at once (htmx swaps the live fragment).
            page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
            page.wait_for_selector(f"#live[data-seq='{game.seq}']", timeout=5000)
        assert not page.locator(".message.error").count(), page.inner_text(".messages")
        if moves == 6:
            page.set_viewport_size(PHONE)
            phone_page = page
            shot(page, "table-phone")
            play_one_move(page, rng, pause_for_screenshot="move-in-progress-phone")
            page.set_viewport_size(DESKTOP)
        else:
            play_one_move(page, rng)
        moves += 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, f"not finished after {moves} moves"
    assert phone_page is not None

    for name in names:
        page = pages[name]
        page.goto(f"{base}/games/{game.pk}/")
        assert "Final scores" in page.inner_text("#result")
        assert game.seed in page.inner_text("#board")
    shot(anne, "end-desktop")
    anne.set_viewport_size(PHONE)
    shot(anne, "end-phone")
    anne.set_viewport_size(DESKTOP)

    last = game.seq
    for name in names:
        page = pages[name]
        with page.expect_navigation():
            page.click("#replay-link")
        assert page.get_attribute("#replay-slider", "max") == str(last)

        def at(seq: int, page: Any = page) -> None:
            page.wait_for_selector(f"#replay-frame .frame[data-seq='{seq}']", timeout=5000)
            assert page.inner_text("#replay-pos") == str(seq)

        at(1)  # a replay opens at the beginning
        page.click("#replay-last")
        at(last)
        page.click("#replay-first")
        at(1)
        page.click("#replay-next")
        at(2)
        page.click("#replay-next")
        at(3)
        page.click("#replay-prev")
        at(2)
        page.locator("body").press("ArrowRight")
        at(3)
        page.locator("body").press("ArrowLeft")
        at(2)
        page.eval_on_selector(
            "#replay-slider",
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); "
            "el.dispatchEvent(new Event('change')); }",
            str(last // 2),
        )
        at(last // 2)
        assert page.inner_text("#frame-text").strip()
        if name == "anne":
            shot(page, "replay-desktop")
            page.click("#replay-play")
            page.wait_for_selector(f"#replay-frame .frame[data-seq='{last // 2 + 2}']", timeout=5000)
            page.click("#replay-play")
            page.set_viewport_size(PHONE)
            shot(page, "replay-phone")
    for context in contexts.values():
        context.close()
    print(f"browser game: {time.monotonic() - started:.1f} s")


@pytest.fixture
def finished_and_running(transactional_db: None) -> dict[str, Any]:
    """Anne with a finished game, a running game where she is to move, and one in the lobby."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    with no_turn_emails(users):
        finished = _finished_game(users)
    running = started_game(users)
    lobby = services.game_create(creator=users[0], rules_id="pirates", players=4, title="Still waiting")
    services.game_create(creator=users[1], rules_id="pirates", players=3, title="Bob's open table")
    return {"users": users, "finished": finished, "running": running, "lobby": lobby}


def _finished_game(users: list[Any]) -> Game:
    finished = started_game(users)
    for _ in range(MAX_MOVES):
        finished.refresh_from_db()
        if finished.status != Game.Status.ACTIVE:
            break
        seat = finished.seats.get(position=finished.to_act[0])
        from games.selectors import game_detail

        actions = game_detail(finished, seat.user)["legal_actions"]
        action = next((a for a in actions if a["type"] == "capture"), actions[0])
        assert seat.user is not None
        services.action_submit(game_id=finished.pk, user=seat.user, action=action, expected_seq=finished.seq)
    return finished


def test_phone_pages_fit_and_every_control_is_reachable(
    live_server: Any, browser: Any, console: ConsoleWatch, finished_and_running: dict[str, Any]
) -> None:
    base = live_server.url
    data = finished_and_running
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = console.watch(context.new_page())
    for path in ("/", "/accounts/signup/", "/accounts/login/", "/rules/pirates/"):
        page.goto(base + path)
        fit = page_fits(page)
        assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], (path, fit)
    login(page, base, "anne")
    running, finished, lobby = data["running"], data["finished"], data["lobby"]
    pages = {
        "lobby": "/games/",
        "new-game": "/games/new/",
        "profile": "/accounts/profile/",
        "table": f"/games/{running.pk}/",
        "lobby-phase": f"/games/{lobby.pk}/",
        "end": f"/games/{finished.pk}/",
        "replay": f"/games/{finished.pk}/replay/",
        "replay-running": f"/games/{running.pk}/replay/",
        "rules": "/rules/pirates/",
    }
    for name, path in pages.items():
        page.goto(base + path)
        fit = page_fits(page)
        assert fit["scrollWidth"] <= fit["clientWidth"], (name, fit)
        assert not fit["bad"], (name, fit["bad"])
        if name == "table":
            # Open every step of the move controls in turn: their buttons must fit too.
            steps = page.locator("#controls details.step1 > summary")
            for i in range(min(steps.count(), 6)):
                steps.nth(i).click()
                for sub in page.locator("#controls details.step1[open] details.step2 > summary").all()[:2]:
                    sub.click()
                fit = page_fits(page)
                assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], (name, i, fit)
        if name in ("lobby", "profile", "rules", "table"):
            page.evaluate("window.scrollTo(0, 0)")
            shot(page, f"phone-{name}", full_page=name != "rules")
    context.close()


def test_tampered_action_is_refused_and_appends_nothing(
    live_server: Any, browser: Any, console: ConsoleWatch, transactional_db: None
) -> None:
    base = live_server.url
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    assert game.to_act == [0]
    context = browser.new_context(viewport=DESKTOP)
    page = console.watch(context.new_page())
    login(page, base, "anne")
    page.goto(f"{base}/games/{game.pk}/")
    events = Event.objects.filter(game=game).count()
    forged = json.dumps({"type": "assemble", "party": "1.2", "onto": "0.3"})  # Bob's pirate
    page.locator("#controls details.step1 > summary").first.click()
    form = page.locator("#controls details.step1[open] form.move-form").first
    form.locator("input[name=action]").evaluate("(el, v) => { el.value = v; }", forged)
    submit_move(page, form.locator("button"))
    assert "not accepted" in page.inner_text(".message.error")
    assert Event.objects.filter(game=game).count() == events
    # A stale expected_seq (an old page) is refused too.
    page.locator("#controls details.step1 > summary").first.click()
    form = page.locator("#controls details.step1[open] form.move-form").first
    form.locator("input[name=expected_seq]").evaluate("el => { el.value = '0'; }")
    submit_move(page, form.locator("button"))
    assert "moved on" in page.inner_text(".message.error")
    assert Event.objects.filter(game=game).count() == events
    # Bob, not to move, posts Anne's legal action from his page: refused.
    bob_context = browser.new_context(viewport=DESKTOP)
    bob = console.watch(bob_context.new_page())
    login(bob, base, "bob")
    bob.goto(f"{base}/games/{game.pk}/")
    assert bob.locator("#controls").count() == 0
    legal = services.rules_for(game).legal_actions(services.load_state(game), 0)[0]
    bob.evaluate(
        """([url, action, seq]) => {
          const token = document.querySelector('input[name=csrfmiddlewaretoken]') ||
                        document.cookie.match(/csrftoken=([^;]+)/);
          const form = document.createElement('form');
          form.method = 'post'; form.action = url;
          for (const [k, v] of [['action', action], ['expected_seq', seq],
                                ['csrfmiddlewaretoken', token.value || token[1]]]) {
            const input = document.createElement('input');
            input.type = 'hidden'; input.name = k; input.value = v;
            form.appendChild(input);
          }
          document.body.appendChild(form); form.submit();
        }""",
        [f"/games/{game.pk}/act/", json.dumps(legal), str(game.seq)],
    )
    bob.wait_for_selector(".message.error")
    assert "not your turn" in bob.inner_text(".message.error")
    assert Event.objects.filter(game=game).count() == events
    shot(page, "tamper-refused-desktop", full_page=False)
    bob_context.close()
    context.close()


def _send_html_email(subject: str) -> None:
    """An email as the site sends them (inline styles, a link) into the development outbox."""
    from django.core.mail import EmailMultiAlternatives, get_connection

    message = EmailMultiAlternatives(
        subject,
        "It is your turn.",
        to=["anne@example.test"],
        connection=get_connection("games.mail.OutboxEmailBackend"),
    )
    message.attach_alternative(
        '<div style="font-family:sans-serif;color:#222"><p>It is <b style="color:#a60">your turn</b>.</p>'
        '<p><a href="http://localhost/games/1/" style="padding:8px;background:#06c;color:#fff">'
        "Play</a></p></div>",
        "text/html",
    )
    assert message.send() == 1


def test_every_page_runs_under_the_content_security_policy(
    live_server: Any,
    browser: Any,
    console: ConsoleWatch,
    finished_and_running: dict[str, Any],
    settings: Any,
    tmp_path: Path,
) -> None:
    settings.EMAIL_OUTBOX_DIR = tmp_path / "outbox"
    settings.DEV_OUTBOX_PAGE = True
    _send_html_email("Your turn in Browser Bay")
    base = live_server.url
    data = finished_and_running
    context = browser.new_context(viewport=DESKTOP)
    page = console.watch(context.new_page())
    policies: dict[str, str] = {}

    def visit(path: str) -> None:
        response = page.goto(base + path)
        assert response is not None and response.status == 200, path
        policies[path] = response.headers.get("content-security-policy", "")

    visit("/")
    login(page, base, "anne")
    visit("/games/")
    visit("/games/new/")

    # The table: htmx polls the live fragment and swaps it in when the game moves on.
    running: Game = data["running"]
    visit(f"/games/{running.pk}/")
    page.wait_for_selector("#live[data-seq]")
    seat = running.seats.select_related("user").get(position=running.to_act[0])
    assert seat.user is not None
    from games.selectors import game_detail

    action = game_detail(running, seat.user)["legal_actions"][0]
    services.action_submit(game_id=running.pk, user=seat.user, action=action, expected_seq=running.seq)
    page.wait_for_selector(f"#live[data-seq='{running.seq + 1}']", timeout=8000)
    # Coming back to the tab refreshes at once (static/js/live.js, no htmx filter code).
    seat = running.seats.select_related("user").get(position=Game.objects.get(pk=running.pk).to_act[0])
    assert seat.user is not None
    running.refresh_from_db()
    action = game_detail(running, seat.user)["legal_actions"][0]
    services.action_submit(game_id=running.pk, user=seat.user, action=action, expected_seq=running.seq)
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_selector(f"#live[data-seq='{running.seq + 1}']", timeout=2500)

    # The replay script: buttons fetch frames, the chart cursor follows.
    finished: Game = data["finished"]
    visit(f"/games/{finished.pk}/replay/")
    page.click("#replay-first")
    page.wait_for_selector("#replay-frame .frame[data-seq='1']", timeout=5000)
    page.click("#replay-next")
    page.wait_for_selector("#replay-frame .frame[data-seq='2']", timeout=5000)
    assert page.get_attribute("#chart-cursor", "x1") is not None

    visit("/rules/pirates/")
    visit("/api/docs/")
    assert page.evaluate("getComputedStyle(document.body).maxWidth") == "960px"  # its stylesheet applied

    # The outbox shows the email's HTML in a sandboxed frame with a policy of its own.
    visit("/dev/outbox/")
    with page.expect_navigation():
        page.click("text=Your turn in Browser Bay")
    frame_element = page.wait_for_selector("iframe.mailframe")
    assert frame_element is not None
    frame = frame_element.content_frame()
    assert frame is not None
    frame.wait_for_selector("b")
    assert frame.evaluate("getComputedStyle(document.querySelector('b')).color") == "rgb(170, 102, 0)"
    context.close()

    for path, policy in policies.items():
        directives = dict(part.strip().partition(" ")[::2] for part in policy.split(";") if part.strip())
        assert directives.get("script-src") == "'self'", (path, policy)
        assert directives.get("style-src") == "'self'", (path, policy)
        assert directives.get("frame-ancestors") == "'none'", (path, policy)
