"""Captain Lucky in a real browser: headless Chromium through Playwright, against
live_server.

Anne creates a game of Captain Lucky for two people and a (strong) bot and invites Bob by email;
Bob takes his seat from the link; they play it to the end by clicking the table's own controls
(Anne at a desktop width, Bob on a 375 px phone, where no page may scroll sideways), see the
dice of every roll drawn as dice, never see each other's hand, and step through the replay.
Screenshots go to artifacts/screenshots/lucky-*.png; no page may log a console error.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from django.core import mail

from games.models import Event, Game, Seat
from tests.web.helpers import make_user
from tests.web.test_browser import (
    DESKTOP,
    PHONE,
    ConsoleWatch,
    invite_path,
    login,
    page_fits,
    shot,
    submit_move,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAX_CLICKS = 400
# About 30 s on an idle 2-core machine; the bound leaves room for a busy one.

# Which offered control to click: the biggest place (the pile empties sooner, so the game is
# short), a re-roll while one is offered (it discards, so more cards are drawn), else the first.
CHOOSE = """() => {
  const moves = [...document.querySelectorAll('#controls form.move-form')].map(
    (form) => JSON.parse(form.querySelector('input[name=action]').value));
  let best = 0;
  moves.forEach((move, i) => {
    const top = moves[best];
    if (move.type === 'place' && (top.type !== 'place' || move.count > top.count)) best = i;
    else if (move.type === 'reroll' && top.type !== 'place') best = i;
  });
  return moves.length ? best : -1;
}"""


def fits(page: Any, where: str) -> None:
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"], (where, fit)
    assert not fit["bad"], (where, fit["bad"])
    page.evaluate("window.scrollTo(0, 0)")


def dice_in(text: str) -> int:
    """How many dice a steal's sentence shows: "… and rolls: ☠ blank ☠ — 1 blank." is 3."""
    return len(text.split("rolls: ", 1)[1].split(" — ", 1)[0].split())


def own_hand_only(page: Any, seat: int) -> None:
    """K-END-4: the page carries the viewer's own hand and no other."""
    hands = page.eval_on_selector_all("[data-hand]", "els => els.map(el => el.dataset.hand)")
    assert hands == [str(seat)]


@pytest.mark.usefixtures("transactional_db")
def test_two_people_and_a_bot_play_captain_lucky_to_the_end_on_desktop_and_phone(
    live_server: Any, browser: Any, console: ConsoleWatch, settings: Any
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    started = time.monotonic()
    base = live_server.url
    make_user("anne")
    make_user("bob")
    contexts = {
        "anne": browser.new_context(viewport=DESKTOP),
        "bob": browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
    }
    pages = {name: console.watch(context.new_page()) for name, context in contexts.items()}
    for name, page in pages.items():
        login(page, base, name)

    anne, bob = pages["anne"], pages["bob"]
    anne.goto(f"{base}/games/new/")
    anne.fill("#id_title", "Lucky Cove")
    anne.select_option("#id_rules", "captain-lucky")
    anne.select_option("#id_players", "3")
    anne.select_option("#id_bot_seats", "1")
    anne.fill("#id_invite", "bob@example.test")
    with anne.expect_navigation():
        anne.click("#new-game-form button[type=submit]")
    game = Game.objects.get(title="Lucky Cove")
    assert game.rules_id == "captain-lucky"
    bob.goto(base + invite_path("bob@example.test"))
    with bob.expect_navigation():
        bob.click("#accept-invite")
    anne.reload()
    with anne.expect_navigation():
        anne.click("#start")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    by_seat = {s.position: s.user.get_username() if s.user else None for s in Seat.objects.filter(game=game)}
    seat_of = {name: seat for seat, name in by_seat.items() if name}
    url = f"{base}/games/{game.pk}/"

    shots: set[str] = set()
    clicks = 0
    while clicks < MAX_CLICKS:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        person = by_seat[game.to_act[0]]
        assert person is not None, "a bot seat is left to move: bots move at once after each commit"
        name = person
        page = pages[name]
        if page.get_attribute("#live", "data-seq") != str(game.seq):
            page.goto(url, wait_until="domcontentloaded")
        assert not page.locator(".message.error").count(), page.inner_text(".messages")
        phase = page.inner_text("#controls h2")
        device = "desktop" if name == "anne" else "phone"
        key = f"{'roll' if 're-roll or stop' in phase else 'table'}-{device}"
        if key not in shots:
            shots.add(key)
            own_hand_only(page, seat_of[name])
            if device == "phone":
                fits(page, key)
            if key.startswith("roll"):
                # The dice of the steal under way, drawn, with a text alternative for each.
                labels = page.eval_on_selector_all(
                    "#controls .cl-die svg", "els => els.map(el => el.getAttribute('aria-label'))"
                )
                assert labels and all(label.startswith(("pirate head", "blank")) for label in labels)
            shot(page, f"lucky-{key}")
        index = page.evaluate(CHOOSE)
        assert index >= 0, "the player to move is offered no controls"
        form = page.locator("#controls form.move-form").nth(index)
        action = json.loads(form.locator("input[name=action]").get_attribute("value") or "{}")
        before = game.seq
        submit_move(page, form.locator("button"))
        clicks += 1
        assert Event.objects.get(game=game, seq=before + 1).action == action
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, f"not finished after {clicks} clicks"
    assert {"table-desktop", "table-phone"} <= shots
    assert Event.objects.filter(game=game, kind="bot").exists()

    for name, page in pages.items():
        page.goto(url)
        assert "Final scores" in page.inner_text("#result")
        own_hand_only(page, seat_of[name])
        assert game.seed not in page.content()
    fits(bob, "end")
    # The final scores fit the phone without scrolling inside their box either.
    assert bob.eval_on_selector("#result .table-wrap", "el => el.scrollWidth <= el.clientWidth")
    shot(anne, "lucky-end-desktop")
    shot(bob, "lucky-end-phone", full_page=False)

    # The replay: one frame per event; a roll's frame shows that roll's dice.
    steals = Event.objects.filter(game=game, kind="action", payload__action__type="steal")
    roll = steals.order_by("seq").first()
    assert roll is not None
    for name, page in pages.items():
        page.goto(f"{base}/games/{game.pk}/replay/?seq={roll.seq}")
        assert page.get_attribute("#replay-slider", "max") == str(game.seq)
        assert page.locator("#replay-frame .cl-roll.just .cl-die").count() == dice_in(roll.payload["text"])
        if name == "anne":
            shot(page, "lucky-replay-desktop")
        page.click("#replay-next")
        page.wait_for_selector(f"#replay-frame .frame[data-seq='{roll.seq + 1}']", timeout=5000)
        assert page.inner_text("#frame-text").strip()
        assert not page.locator("#replay-frame [data-hand]").count()
        assert "Points over time" in page.inner_text("#chart")
    fits(bob, "replay")
    shot(bob, "lucky-replay-phone")
    assert mail.outbox, "turn emails went out"
    for context in contexts.values():
        context.close()
    elapsed = time.monotonic() - started
    print(f"\nCaptain Lucky in the browser: {clicks} clicks, {game.seq} events, {elapsed:.1f} s")
