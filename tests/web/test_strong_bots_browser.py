"""Strong bots in a real browser (headless Chromium through Playwright, against live_server),
for every rule set: Anne creates a game for herself and two bots through the new-game form,
which offers the strong bot by default, starts it, plays each of her own moves by clicking the
table's controls until the game ends, and sees the final scores, where the two bots are named
"Strong bot 1" and "Strong bot 2". The bots move in their task (eager here: inside the request
that made it their turn), each thinking ``BOT_THINK_SECONDS`` of CPU time (0.02 s in tests)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from games.models import Event, Game, PlayerProfile, Seat
from tests.web.helpers import make_user
from tests.web.test_browser import DESKTOP, ConsoleWatch, login, play_one_move, submit_move
from tests.web.test_classic_browser import Player as ClassicPlayer
from tests.web.test_lucky_browser import CHOOSE as LUCKY_CHOOSE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MAX_MOVES = 400
# How long the bots may take to answer a move (they answer inside its request): a bound for a
# stalled game on a busy machine, not a measure of speed.
BOTS_DEADLINE_SECONDS = 120


def pirates_move(page: Any, rng: random.Random) -> None:
    play_one_move(page, rng)


def classic_move(page: Any, rng: random.Random) -> None:
    ClassicPlayer(page, rng, shots=set()).play()


def libertalia_move(page: Any, rng: random.Random) -> None:
    # A secret pick, or an answer to one's character's question: the first offered.
    assert page.get_attribute("#controls form.lib-decision", "data-decision"), "no control offered"
    submit_move(page, page.locator("#controls button[name=action]").first)


def lucky_move(page: Any, rng: random.Random) -> None:
    index = page.evaluate(LUCKY_CHOOSE)
    assert index >= 0, "the player to move is offered no controls"
    submit_move(page, page.locator("#controls form.move-form").nth(index).locator("button"))


# How Anne chooses her moves, as each rule set's own browser test does.
MOVES: dict[str, Callable[[Any, random.Random], None]] = {
    "pirates": pirates_move,
    "pirates-classic": classic_move,
    "libertalia": libertalia_move,
    "captain-lucky": lucky_move,
}


def wait_for_anne_or_the_end(game: Game, seat: int) -> None:
    """Until Anne is to act or the game is over: the bots' moves come within a deadline."""
    deadline = time.monotonic() + BOTS_DEADLINE_SECONDS
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or seat in game.to_act:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"no bot moved within {BOTS_DEADLINE_SECONDS}s; to act: {game.to_act}")
        time.sleep(0.05)


@pytest.mark.usefixtures("transactional_db")
@pytest.mark.parametrize("rules_id", list(MOVES))
def test_a_person_plays_two_strong_bots_to_the_end(
    rules_id: str, live_server: Any, browser: Any, console: ConsoleWatch, settings: SettingsWrapper
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0  # eager Celery: the bots move inside the request
    # Hashing is not the point here; a fast hasher saves a second at the log-in.
    started = time.monotonic()
    base = live_server.url
    # No turn emails: this story is about the table and the bots.
    PlayerProfile.objects.create(user=make_user("anne"), notify=PlayerProfile.Notify.NONE)
    context = browser.new_context(viewport=DESKTOP)
    # The stylesheets and scripts are fetched once and then served from memory, so that the
    # live server's time goes to moves.
    assets: dict[str, Any] = {}

    def cached(route: Any) -> None:
        url = route.request.url
        if url not in assets:
            assets[url] = route.fetch()
        route.fulfill(response=assets[url])

    context.route("**/static/**", cached)
    page = console.watch(context.new_page())
    login(page, base, "anne")

    title = f"Strong {rules_id}"
    page.goto(f"{base}/games/new/")
    page.fill("#id_title", title)
    page.select_option("#id_rules", rules_id)
    page.select_option("#id_players", "3")
    page.select_option("#id_bot_seats", "2")
    assert page.input_value("#id_bot_kind") == "strong", "the form offers the strong bot by default"
    with page.expect_navigation():
        page.click("#new-game-form button[type=submit]")
    game = Game.objects.get(title=title)
    assert game.rules_id == rules_id and game.players == 3
    assert sorted(Seat.objects.filter(game=game, user=None).values_list("bot", flat=True)) == ["strong"] * 2
    with page.expect_navigation():
        page.click("#start")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    mine = Seat.objects.get(game=game, user__username="anne").position
    url = f"{base}/games/{game.pk}/"
    page.goto(url)
    # The page is loaded whenever it is Anne's move: no live polling needed meanwhile.
    page.route("**/live/**", lambda route: route.fulfill(status=204))
    table = page.inner_text("main")
    assert "Strong bot 1" in table and "Strong bot 2" in table, table

    rng = random.Random(7)
    moves = 0
    while moves < MAX_MOVES:
        wait_for_anne_or_the_end(game, mine)
        if game.status != Game.Status.ACTIVE:
            break
        if page.url != url or page.get_attribute("#live", "data-seq") != str(game.seq):
            page.goto(url, wait_until="domcontentloaded")
        assert not page.locator(".message.error").count(), page.inner_text(".messages")
        before = game.seq
        MOVES[rules_id](page, rng)
        moves += 1
        assert Event.objects.filter(game=game, seq=before + 1, seat=mine).exists(), "her move was recorded"
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, f"not finished after {moves} moves of Anne's"
    assert Event.objects.filter(game=game, kind=Event.Kind.BOT, actor="bot:strong").exists()

    page.goto(url)
    result = page.inner_text("#result")
    assert "Final scores" in result
    assert "Strong bot 1" in result and "Strong bot 2" in result, result
    scores = json.dumps(game.result)
    context.close()
    print(f"\n{rules_id} against two strong bots: {moves} moves of Anne's, {game.seq} events, "
          f"{time.monotonic() - started:.1f} s; result {scores}")
