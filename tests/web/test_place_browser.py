"""The table keeps the player's place through live updates, in a real browser (headless
Chromium through Playwright, against live_server).

In each of the four games the player opens a confirm step; meanwhile another seat acts through
the service and a chat line arrives; the live update lands (the test waits for its log line);
the confirm step is still open, says whether anything changed, and confirming plays the move.
Where one seat moves at a time (Pirates, Captain Lucky) nobody else can move while it is the
player's turn: there the other seat leaves the game (its seat handed to a bot: an event that
moves the seq on, so only a form carrying the fresh seq is accepted), and in one case the
previous player takes back the move that made it the player's turn, which takes the player's
choices away: the table says so. The shared ``browser`` fixture (conftest.py) fails every test
on a Content-Security-Policy violation.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import Event, Game, Seat
from games.services.chat import chat_post
from tests.web.classic_support import classic_game, play_opening
from tests.web.conftest import _CspWatchedBrowser
from tests.web.helpers import make_user, started_game
from tests.web.libertalia_support import DEAL3, libertalia_game, seat_users
from tests.web.test_browser import DESKTOP, PHONE, login, shot

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("transactional_db")]

# The log line at the top of the scrolled log list, and how far above the list's top it starts.
TOP_LINE = """el => {
  const top = el.getBoundingClientRect().top;
  const line = [...el.children].find((li) => li.getBoundingClientRect().bottom > top);
  return {seq: line.value, offset: line.getBoundingClientRect().top - top};
}"""
# Generous: the table polls every 3 s and a busy two-core machine may be slow to answer.
UPDATE_TIMEOUT_MS = 20_000


def open_table(browser: Any, base: str, user: User, game: Game, viewport: dict[str, int] = DESKTOP) -> Any:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    login(page, base, user.get_username())
    page.goto(f"{base}/games/{game.pk}/")
    page.wait_for_selector(f"#live[data-seq='{game.seq}']")
    return page


def open_confirm(page: Any, button: Any) -> dict[str, Any]:
    """Presses a move's button (the confirm step opens) and returns the move it will play."""
    button.click()
    page.wait_for_selector("#confirm-move:not([hidden])", timeout=5000)
    action = button.get_attribute("value") if button.get_attribute("name") == "action" else None
    if action is None:
        action = button.locator("xpath=ancestor::form[1]//input[@name='action']").get_attribute("value")
    assert action
    return json.loads(action)


def wait_for_update(page: Any, seq: int, chat: str) -> None:
    """The live update has landed: the event's log line and the chat line are on the page."""
    page.wait_for_selector(f"#log li[value='{seq}']", timeout=UPDATE_TIMEOUT_MS)
    page.wait_for_selector(f"#chat li:has-text('{chat}')", timeout=UPDATE_TIMEOUT_MS)
    assert page.get_attribute("#live", "data-seq") == str(seq)


def still_open_and_unchanged(page: Any, label: str, seq: int) -> None:
    assert page.locator("#confirm-move").is_visible()
    assert page.inner_text("#confirm-label") == label
    assert "Nothing changed for this move" in page.inner_text("#confirm-news")
    # The move that the confirm step now sends carries the position the page shows.
    seqs = page.eval_on_selector_all("#controls input[name=expected_seq]", "els => els.map(el => el.value)")
    assert seqs and set(seqs) == {str(seq)}


def confirm_and_check_played(page: Any, game: Game, seat: int, action: dict[str, Any]) -> None:
    before = Game.objects.get(pk=game.pk).seq
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.click("#confirm-yes")
    assert not page.locator(".message.error").count(), page.inner_text(".messages")
    event = Event.objects.get(game=game, seq=before + 1)
    assert (event.seat, event.action) == (seat, action)


def user_at(game: Game, position: int) -> User:
    seat = Seat.objects.select_related("user").get(game=game, position=position)
    assert seat.user is not None
    return seat.user


def test_pirates_confirm_step_half_made_choice_and_typed_chat_survive_another_seat_leaving(
    live_server: Any, browser: Any
) -> None:
    anne, bob, cat = (make_user(n) for n in ("anne", "bob", "cat"))
    game = started_game([anne, bob, cat])
    assert game.to_act == [0]
    page = open_table(browser, live_server.url, anne, game)
    step = page.locator("#controls details.step1").nth(1)
    step.locator("summary").click()
    kept_step = step.get_attribute("data-step")
    action = open_confirm(page, step.locator("form.move-form > button").first)
    label = page.inner_text("#confirm-label")
    page.fill("#chat-text", "half a sentence")

    services.seat_resign(game_id=game.pk, user=cat)
    chat_post(game=game, user=bob, text="Cat has gone fishing")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "Cat has gone fishing")

    still_open_and_unchanged(page, label, game.seq)
    opened = page.eval_on_selector_all("#controls details.step1[open]", "els => els.map(e => e.dataset.step)")
    assert opened == [kept_step]
    shot(page, "place-confirm-kept-desktop", full_page=False)
    assert page.input_value("#chat-text") == "half a sentence"
    assert page.evaluate("document.activeElement.id") == "chat-text"
    # Nothing changed for her: no news outside the confirm step.
    assert page.inner_text("#table-news") == ""
    confirm_and_check_played(page, game, 0, action)


def test_pirates_take_back_removes_the_move_being_confirmed_and_the_table_says_so(
    live_server: Any, browser: Any
) -> None:
    anne, bob, cat = (make_user(n) for n in ("anne", "bob", "cat"))
    game = started_game([anne, bob, cat])
    first = services.rules_for(game).legal_actions(services.load_state(game), 0)[0]
    services.action_submit(game_id=game.pk, user=anne, action=first, expected_seq=game.seq)
    game.refresh_from_db()
    assert game.to_act == [1]
    page = open_table(browser, live_server.url, bob, game, viewport=PHONE)
    step = page.locator("#controls details.step1").first
    step.locator("summary").click()
    open_confirm(page, step.locator("form.move-form > button").first)
    label = page.inner_text("#confirm-label")
    events = Event.objects.filter(game=game).count()

    services.move_take_back(game_id=game.pk, user=anne, expected_seq=game.seq)
    chat_post(game=game, user=cat, text="Anne changed her mind")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "Anne changed her mind")

    news = page.inner_text("#table-news")
    assert "Your choices changed" in news and f"“{label}” is no longer possible" in news, news
    assert "It is not your move now" in news
    assert page.get_attribute("#table-news", "role") == "status"
    assert page.locator("#controls").count() == 0 and page.locator("#confirm-move").count() == 0
    assert page.evaluate("document.activeElement.id") == "table-news"
    assert page.locator("#table-news").is_visible()
    assert "takes back that move" in news  # what happened: the latest line of the log
    shot(page, "place-choices-changed-phone", full_page=False)
    page.click("#table-news-dismiss")
    assert page.inner_text("#table-news") == ""
    assert Event.objects.filter(game=game).count() == events + 1  # the take-back only


def test_classic_challenge_question_stays_open_while_the_other_seat_answers(
    live_server: Any, browser: Any
) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = classic_game(users, title="Classic Cove")
    play_opening(game)
    # Blue (Bob) and Green (Cat) are asked at once; Cat opens her answer's confirm step.
    page = open_table(browser, live_server.url, users[2], game, viewport=PHONE)
    action = open_confirm(page, page.locator("#controls .question button[data-answer=decline]"))
    label = page.inner_text("#confirm-label")
    # She has scrolled the log (newest first) down to an older line.
    log = page.locator("#log .log-list")
    assert log.evaluate("el => el.scrollHeight - el.clientHeight") > 80
    log.evaluate("el => { el.scrollTop = 80; }")
    reading = log.evaluate(TOP_LINE)
    services.action_submit(game_id=game.pk, user=users[1], action={"type": "decline"}, expected_seq=game.seq)
    chat_post(game=game, user=users[0], text="Answer, you two")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "Answer, you two")
    still_open_and_unchanged(page, label, game.seq)
    # The new line came in above: the line she was reading is still where it was.
    after = log.evaluate(TOP_LINE)
    assert after["seq"] == reading["seq"] and abs(after["offset"] - reading["offset"]) <= 2, (reading, after)
    confirm_and_check_played(page, game, 2, action)


def test_libertalia_card_being_confirmed_is_still_there_after_another_pick(
    live_server: Any, browser: Any
) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = libertalia_game(users, DEAL3)
    seats = {user.pk: position for position, user in seat_users(game).items()}
    assert sorted(game.to_act) == [0, 1, 2]  # Sunrise: everyone picks a card in secret
    anne, bob = users[0], users[1]
    page = open_table(browser, live_server.url, anne, game, viewport=PHONE)
    action = open_confirm(page, page.locator("#controls button[name=action]").nth(2))
    label = page.inner_text("#confirm-label")
    bob_pick = services.rules_for(game).legal_actions(services.load_state(game), seats[bob.pk])[0]
    services.action_submit(game_id=game.pk, user=bob, action=bob_pick, expected_seq=game.seq)
    chat_post(game=game, user=users[2], text="Choose wisely")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "Choose wisely")
    still_open_and_unchanged(page, label, game.seq)
    shot(page, "place-libertalia-confirm-kept-phone", full_page=False)
    # The focus stays on the confirm step's button, where it was.
    assert page.evaluate("document.activeElement.id") == "confirm-yes"
    confirm_and_check_played(page, game, seats[anne.pk], action)


def test_captain_lucky_confirm_step_survives_another_seat_leaving(live_server: Any, browser: Any) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = services.game_create(creator=users[0], rules_id="captain-lucky", players=3, is_public=False)
    for user in users[1:]:
        (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
        services.invitation_accept(token=invitation.token, user=user)
    game = services.game_start(game_id=game.pk, by=users[0])
    mover = game.to_act[0]
    others = [p for p in range(3) if p != mover]
    page = open_table(browser, live_server.url, user_at(game, mover), game)
    action = open_confirm(page, page.locator("#controls form.move-form button").last)
    label = page.inner_text("#confirm-label")
    services.seat_resign(game_id=game.pk, user=user_at(game, others[0]))
    chat_post(game=game, user=user_at(game, others[1]), text="One less pirate")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "One less pirate")
    # A stale seq would be refused here (one seat moves at a time): the fresh form is posted.
    still_open_and_unchanged(page, label, game.seq)
    confirm_and_check_played(page, game, mover, action)


def test_no_policy_violation_when_an_element_of_the_table_carries_a_style(
    live_server: Any, browser: Any
) -> None:
    """Browser extensions (password managers, spelling helpers) put inline styles on fields;
    htmx's settling used to copy such a style onto the swapped-in element with setAttribute,
    which the policy refuses. The shared fixture fails this test on any violation."""
    anne, bob, cat = (make_user(n) for n in ("anne", "bob", "cat"))
    game = started_game([anne, bob, cat])
    page = open_table(browser, live_server.url, bob, game)
    page.evaluate("document.getElementById('chat-text').style.backgroundColor = 'rgb(250, 250, 210)'")
    page.evaluate("document.getElementById('status').style.outline = '1px solid red'")
    chat_post(game=game, user=cat, text="Styled or not")
    game.refresh_from_db()
    wait_for_update(page, game.seq, "Styled or not")

    # The watch itself sees a violation when there is one (on the unwatched browser, so that
    # this deliberate one does not fail the test).
    watch = _CspWatchedBrowser(browser.unwatched)
    other = open_table(watch, live_server.url, cat, game)
    with other.expect_console_message(lambda m: "Content Security Policy" in m.text, timeout=10_000):
        other.evaluate("document.getElementById('status').setAttribute('style', 'color: red')")
    assert watch.violations and "style" in watch.violations[0], watch.violations
    other.context.close()
