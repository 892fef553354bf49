"""Pirates (classic) in a real browser: three people and a bot play a whole game
through the table in headless Chromium, answering the challenge questions, boarding with the
booty choice and moving pirates by clicking the offered controls; at 375 px no page of it
scrolls sideways; no page logs a console error; screenshots go to
artifacts/screenshots/classic-*.png."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from games.models import Event, Game, PlayerProfile
from tests.web.classic_support import classic_game
from tests.web.helpers import make_user
from tests.web.test_browser import DESKTOP, PHONE, ConsoleWatch, login, page_fits, shot, submit_move

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["anne", "bob", "cat"]  # seats 0-2; a bot (the strong one, the default) plays seat 3
MAX_TURNS = 300
# About 30 s of CPU for the whole run (a game of ~110 events, ~70 of them clicked by people);
# the wall-clock bound leaves room for a busy machine and catches a game that stalls.
PICKED = "#controls [data-pick] .option-group[data-group=Board]"  # see CHOOSE


def fits(page: Any, where: str) -> None:
    fit = page_fits(page)
    assert fit["scrollWidth"] <= fit["clientWidth"] and not fit["bad"], (where, fit)


class Player:
    """One person's tab; ``shots`` names the screenshots still to take, once each."""

    def __init__(self, page: Any, rng: random.Random, shots: set[str]) -> None:
        self.page = page
        self.rng = rng
        self.shots = shots

    def _moment(self, name: str, focus: str) -> None:
        """The first time this kind of moment comes: a desktop screenshot, then the same page at
        375 px must not scroll sideways and every open control must be reachable; a phone
        screenshot of ``focus``."""
        if name not in self.shots:
            return
        self.shots.discard(name)
        shot(self.page, f"classic-{name}-desktop", full_page=False)
        self.page.set_viewport_size(PHONE)
        fits(self.page, name)
        self.page.locator(focus).first.evaluate("el => el.scrollIntoView({block: 'start'})")
        shot(self.page, f"classic-{name}-phone", full_page=False)
        self.page.set_viewport_size(DESKTOP)

    def _submit(self, button: Any) -> None:
        submit_move(self.page, button)
        errors = self.page.locator(".message.error")
        assert not errors.count(), errors.all_inner_texts()

    def play(self) -> str:
        """Answers the question (challenge more often than not), or boards with a stack that
        can, picking the booty where there is a choice, or makes the first move offered."""
        page = self.page
        # One look at the controls (each query is a round trip to the browser).
        kind = page.evaluate(CHOOSE)
        assert kind, "the player to act is offered no controls"
        if kind == "question":
            self._moment("question", "#controls")
            answer = "challenge" if self.rng.random() < 0.6 else "decline"
            self._submit(page.locator(f"#controls .question button[data-answer={answer}]"))
            return answer
        page.click("#controls details.step1[data-pick] > summary")
        if kind == "move":
            self._moment("move", "#controls details.step1[open]")
            self._submit(page.locator("#controls [data-pick] .option-group[data-group=Move] button").first)
            return "move"
        if kind == "booty":
            page.locator(f"{PICKED} > details.step2 > summary").first.click()
            picks = page.locator("#controls [data-pick] details.step2[open] .booty-picks button")
            assert picks.count() == 2, "a ship showing two kinds offers both"
            self._moment("booty", "#controls details.step2[open]")
            self._submit(picks.nth(self.rng.randrange(2)))
        else:
            self._moment("board", "#controls details.step1[open]")
            self._submit(page.locator(f"{PICKED} > button").first)
        return "board"


# What to do, read from the controls in one go: "question"; or the stack to use is marked
# data-pick (the first that can board, else the first) and the answer says how to use it.
CHOOSE = """() => {
  if (document.querySelector('#controls .question')) return 'question';
  const steps = [...document.querySelectorAll('#controls details.step1')];
  if (!steps.length) return '';
  const step = steps.find(s => (s.dataset.groups || '').includes('Board')) || steps[0];
  step.dataset.pick = '1';
  const board = step.querySelector('.option-group[data-group=Board] > h3 + *');
  if (!board) return 'move';
  return board.tagName === 'DETAILS' ? 'booty' : 'board';
}"""


@pytest.mark.usefixtures("transactional_db")
def test_three_people_and_a_bot_play_a_classic_game_to_the_end(
    live_server: Any, browser: Any, console: ConsoleWatch
) -> None:
    started, cpu = time.monotonic(), time.process_time()
    base = live_server.url
    users = [make_user(name) for name in NAMES]
    for user in users:  # the emails are not this story's point, and each costs a render
        PlayerProfile.objects.create(user=user, notify=PlayerProfile.Notify.NONE)
    game = classic_game(users, bots=1, title="Classic Cove")
    url = f"{base}/games/{game.pk}/"
    rng = random.Random(15)
    shots = {"question", "move", "booty", "board"}
    players = []
    for name in NAMES:
        page = console.watch(browser.new_context(viewport=DESKTOP).new_page())
        login(page, base, name)
        page.goto(url)
        players.append(Player(page, rng, shots))
    assert "Ships on display" in players[0].page.inner_text("#board")

    done: dict[str, int] = {}
    for _ in range(MAX_TURNS):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = next(s for s in game.to_act if s < len(NAMES))  # the bot moves by itself
        player = players[seat]
        if player.page.url != url or player.page.get_attribute("#live", "data-seq") != str(game.seq):
            player.page.goto(url, wait_until="domcontentloaded")
        kind = player.play()
        done[kind] = done.get(kind, 0) + 1

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, f"not finished after {sum(done.values())} turns: {done}"
    assert done.get("challenge") and done.get("decline") and done.get("board") and done.get("move"), done
    assert not shots, f"moments never met: {shots}"
    assert Event.objects.filter(game=game, kind=Event.Kind.BOT).exists(), "the bot played its seat"

    anne = players[0].page
    anne.goto(url)
    assert "Final scores" in anne.inner_text("#result")
    shot(anne, "classic-end-desktop")
    anne.set_viewport_size(PHONE)
    fits(anne, "end")
    shot(anne, "classic-end-phone")
    with anne.expect_navigation():
        anne.click("#replay-link")
    fits(anne, "replay")
    assert "Score if the game ended now" in anne.inner_text("#chart")  # treasuries plus majorities (C-END-1)
    shot(anne, "classic-replay-phone")
    anne.set_viewport_size(DESKTOP)
    shot(anne, "classic-replay-desktop")
    for player in players:
        player.page.context.close()
    elapsed = time.monotonic() - started
    turns = sum(done.values())
    print(
        f"classic browser game: {turns} turns by people {done}, {game.seq} events, "
        f"{elapsed:.1f} s ({time.process_time() - cpu:.1f} s CPU in this process)"
    )
