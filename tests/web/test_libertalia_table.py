"""The Libertalia table. The ship in order, the six day-spaces with their booty,
every den, doubloons, booty and the scores by campaign, the viewer's hand, one control for the
Sunrise card and a clear prompt for every decision of the Day, Dusk and Night (L-DEC-3,
L-NIGHT-3), played over HTTP with the fixed deal of ``libertalia_support.DEAL3``; the replay
of a finished game through each seat's eyes."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client

from engine import get_rules
from games import selectors
from games.models import Game
from games.read import load_state
from tests.web.helpers import make_user
from tests.web.libertalia_support import DEAL3, PICKS3, libertalia_game, play, seat_users

pytestmark = pytest.mark.django_db

BUTTON_RE = re.compile(r'<button class="button move secondary lib-choice[^"]*" type="submit" name="action" '
                       r'value="([^"]+)"[^>]*>\s*<span class="lib-choice-label">([^<]+)</span>')
# The words each decision's buttons use (the rule set's own: character, booty, den).
LABELS = {
    "play": r"^Play the [A-Z][\w' ]+ \(\d+\)$",
    "parrot": r"^Put the [A-Z][\w' ]+ \(\d+\) on the ship$",
    "recruit": r"^Take the [A-Z][\w' ]+ \(\d+\) from your den back into your hand$",
    "revive": r"^Take the [A-Z][\w' ]+ \(\d+\) from your graveyard back into your hand$",
    "keep": r"^Keep an? [a-zA-Z ]+, discard all your other booty$",
    "gunner": r"^Discard (your|Red's|Blue's|Green's) [A-Z][\w' ]+ \(\d+\)$",
    "saber": r"^Discard (Red's|Blue's|Green's) [A-Z][\w' ]+ \(\d+\)$",
    "sell": r"^Discard [23] [a-z ]+ to gain [35] doubloons$",
    "take": r"^Take an? [a-zA-Z ]+$",
    "waitress": r"^(Discard a treasure map to gain 3 doubloons|Keep your treasure maps)$",
}
QUESTIONS = {
    "play": "Choose a card of your hand to play today.",
    "parrot": "Your Parrot: choose a card of your hand to put on the ship.",
    "recruit": "Your Recruiter: choose a character of your den",
    "revive": "Your Surgeon: choose a character of your graveyard",
    "keep": "Your Preacher: choose the kind of token you keep one of",
    "gunner": "Your Gunner: choose a character in any den to discard.",
    "sell": "Your Merchant: choose the tokens to sell.",
    "take": "Choose a token from today",
    "saber": "Saber: choose a character in a neighbour",
    "waitress": "Your Waitress: discard one treasure map to gain 3?",
}


def _client(user: User | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _page(client: Client, game: Game, path: str = "") -> str:
    response = client.get(f"/games/{game.pk}/{path}")
    assert response.status_code == 200
    return str(response.content.decode())


def _buttons(page: str) -> list[tuple[dict[str, Any], str]]:
    found = BUTTON_RE.findall(page)
    return [(json.loads(html.unescape(raw)), html.unescape(label).strip()) for raw, label in found]


def _section(page: str, ident: str) -> str:
    found = re.search(rf'<(section|p|ul)[^>]* id="{ident}".*?</\1>', page, re.S)
    return found.group(0) if found else ""


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


@pytest.fixture
def trio() -> tuple[Game, dict[int, User], dict[int, Client]]:
    people = [make_user(n) for n in ("anne", "bob", "cat")]
    game = libertalia_game(people, DEAL3)
    users = seat_users(game)
    return game, users, {seat: _client(user) for seat, user in users.items()}


def test_board_shows_the_day_spaces_dens_scores_and_the_viewers_hand(
    trio: tuple[Game, dict[int, User], dict[int, Client]],
) -> None:
    """L-CAMP-2, L-ZONE-1: six day-spaces with their booty, each player's doubloons, den and
    scores; the viewer's own hand, and nobody else's."""
    game, users, clients = trio
    page = _page(clients[0], game)
    when = _text(_section(page, "when"))
    assert "Campaign 1 of 3 · Day 1 of 6 · Sunrise" in when
    spaces = _text(_section(page, "spaces"))
    assert spaces.startswith("Day-spaces 32 tokens in the bag")  # 50 - 6 x 3
    assert "Day 1 · today 1 Spanish officer 2 treasure maps" in spaces
    assert "Day 3 3 cursed relics" in spaces and "Day 6 1 chest 2 goods" in spaces
    dens = _text(_section(page, "dens"))
    for seat, colour in enumerate(("Red", "Blue", "Green")):
        assert f"{users[seat].get_username()} {colour}" in dens
    assert dens.count("10 doubloons") == 3 and dens.count("Den: empty") == 3
    assert dens.count("Campaigns: 1: – 2: – 3: – · Score 0") == 3
    hand = _section(page, "hand")
    assert "Your hand 9 cards, seen by you only" in _text(hand)
    assert hand.count('class="lib-chip red"') == 9 and "blue" not in hand
    assert "Parrot" in hand and "Merchant" in hand
    # The seats carry the colours the game gave them (its emails and lists use them).
    assert [s["colour"] for s in selectors.game_detail(game, users[0])["seats"]] == DEAL3["colours"]
    theirs = _section(_page(clients[1], game), "hand")
    assert theirs.count('class="lib-chip blue"') == 9 and "red" not in theirs


def test_the_pick_control_offers_the_hand_and_the_table_shows_who_has_chosen(
    trio: tuple[Game, dict[int, User], dict[int, Client]],
) -> None:
    """L-SUN-1: one control, a button per card of the hand; after a choice the table shows
    that the seat has chosen and what only to that seat, and waits for the others."""
    game, users, clients = trio
    page = _page(clients[0], game)
    assert 'data-decision="play"' in page and QUESTIONS["play"] in page
    buttons = _buttons(page)
    legal = selectors.game_detail(game, users[0])["legal_actions"]
    assert [action for action, _ in buttons] == legal and len(legal) == 9
    assert all(re.match(LABELS["play"], label) for _, label in buttons)
    assert "Play the Cook (18)" in [label for _, label in buttons]
    assert "Dusk: take two booty tokens instead of one." in page  # the card's text
    assert _section(page, "controls").count("<form ") == 1  # one control

    response = clients[0].post(f"/games/{game.pk}/act/",
                               {"action": json.dumps({"type": "play", "rank": 18}), "expected_seq": game.seq})
    assert response.status_code == 302
    game.refresh_from_db()
    assert sorted(game.to_act) == [1, 2]
    mine = _page(clients[0], game)
    assert "Your choice today: Cook (18)" in _text(_section(mine, "pick"))
    assert not _buttons(mine) and "Your hand 8 cards" in _text(_section(mine, "hand"))
    waiting = _text(_section(mine, "waiting-for"))
    assert waiting == (f"Waiting for {users[1].get_username()} (Blue), {users[2].get_username()} (Green)")
    assert _text(_section(mine, "choosing")) == "Red: has chosen Blue: choosing… Green: choosing…"
    theirs = _page(clients[1], game)
    assert _section(theirs, "pick") == "" and "Cook (18)" not in _text(_section(theirs, "ship"))
    assert _text(_section(theirs, "choosing")).startswith("Red: has chosen")
    assert len(_buttons(theirs)) == 9


def test_every_decision_has_a_clear_prompt_built_from_the_legal_actions(
    trio: tuple[Game, dict[int, User], dict[int, Client]],
) -> None:
    """L-DEC-3, L-NIGHT-3: the Parrot, Recruiter, Surgeon, Preacher, Gunner, Merchant, the
    Dusk pick, the saber and the Waitress each ask their question with one button per legal
    answer, in the game's words; the others see who decides for which character. Campaign 1
    of the fixed deal, played over HTTP through the controls."""
    game, users, clients = trio
    seen: set[str] = set()
    ship_seen = False
    turns_seen: set[str] = set()
    for _ in range(120):
        game.refresh_from_db()
        view = get_rules("libertalia").view(load_state(game), None)
        if view["campaign"] != 1:
            break
        seat = game.to_act[0]
        page = _page(clients[seat], game)
        detail = selectors.game_detail(game, users[seat])
        prompt = detail["view"]["prompt"]
        kind = prompt["decision"]
        assert f'data-decision="{kind}"' in page
        assert QUESTIONS[kind] in html.unescape(page)
        buttons = _buttons(page)
        assert [action for action, _ in buttons] == detail["legal_actions"] == prompt["actions"]
        for _, label in buttons:
            assert re.match(LABELS[kind], label), (kind, label)
        if kind != "play":
            seen.add(kind)
            character = prompt["character"]
            question = _text(_section(page, "question"))
            assert question.startswith(f"Your {character['name']} ({character['rank']})"), question
            # Everyone else: who decides, for which character, and no controls.
            other = _page(clients[next(s for s in range(3) if s not in game.to_act)], game)
            colour = ("Red", "Blue", "Green")[seat]
            deciding = _text(_section(other, "pending"))
            assert f"{colour}'s {character['name']} ({character['rank']})" in deciding
            assert not _buttons(other)
            waiting = _text(_section(other, "waiting-for"))
            assert f"{users[seat].get_username()} ({colour})" in waiting, waiting
        if view["ship"] and view["phase"] == "day":
            ship_seen = True
            ship = _section(page, "ship")
            order = [f"{c['seat']}.{c['rank']}" for c in view["ship"]]
            assert re.findall(r'data-card="([\d.]+)"', ship) == order  # left to right (L-ORD-2)
            now = [c["id"] for c in view["ship"] if c["turn"] == "now"]
            assert re.findall(r'turn-now" data-card="([\d.]+)"', ship) == now and len(now) <= 1
            turns_seen.update(c["turn"] for c in view["ship"])
        action = (
            {"type": "play", "rank": PICKS3[view["day"]][seat]} if kind == "play" else buttons[0][0]
        )
        response = clients[seat].post(f"/games/{game.pk}/act/",
                                      {"action": json.dumps(action), "expected_seq": game.seq})
        assert response.status_code == 302
        assert not [str(m) for m in get_messages(response.wsgi_request)]
    assert seen == set(LABELS) - {"play"}
    assert ship_seen and turns_seen == {"done", "now", "waiting"}
    page = _page(clients[0], game)
    assert "Campaign 2 of 3 · Day 1 of 6 · Sunrise" in _text(_section(page, "when"))
    fortunes = [s["fortunes"][0] for s in selectors.game_detail(game, users[0])["view"]["seats"]]
    for fortune in fortunes:
        assert f"1: {fortune} " in _text(_section(page, "dens"))


def _finish(game: Game, users: dict[int, User]) -> Game:
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = game.to_act[0]
        play(game, users[seat], selectors.game_detail(game, users[seat])["legal_actions"][0])
    assert game.status == Game.Status.FINISHED
    return game


def test_the_end_shows_scores_by_campaign_and_the_replay_watches_through_any_seat(
    trio: tuple[Game, dict[int, User], dict[int, Client]],
) -> None:
    """L-WIN-1, L-END-4: final scores by campaign and the last fortunes; after the game the
    replay shows everything, through any seat's eyes (``?as=<seat>``), and charts the scores."""
    game, users, clients = trio
    running = _page(clients[1], game, "replay/?as=0")
    assert 'id="replay-as"' not in running and "you see it from your own seat" in running
    assert 'class="lib-chip blue"' in _section(running, "hand")  # Blue's own hand, not Red's
    game = _finish(game, users)
    result = game.result
    assert result is not None
    page = _page(clients[0], game)
    final = _text(_section(page, "result"))
    view = selectors.game_detail(game, users[0])["view"]
    for seat, row in enumerate(view["scoring"]):
        name = users[seat].get_username()
        fortunes = " ".join(str(f) for f in row["fortunes"])
        assert f"{name} {('Red', 'Blue', 'Green')[seat]} {fortunes} {result['scores'][seat]}" in final
    assert "The last campaign's fortunes" in final and ("wins!" in final or "share the win!" in final)
    assert "The game is over" in page and not _buttons(page)

    replay = _page(clients[2], game, "replay/")
    assert 'id="replay-as"' in replay and 'href="?as=1"' in replay
    assert '<section class="panel lib-hand" id="hand"' not in replay  # everyone's view: no hand
    as_blue = _page(clients[2], game, "replay/?as=1&seq=3")
    assert 'data-as="1"' in as_blue and "Blue" in _text(_section(as_blue, "replay-as"))
    frame = _page(clients[2], game, "replay/3/?as=1")
    assert 'class="lib-chip blue"' in _section(frame, "hand")
    # Event 3 is Blue's secret Sunrise choice: Blue's own sentence, or everyone's after the end.
    assert "You chose the Parrot (rank 1); waiting for Green." in _text(_section(frame, "frame-text"))
    everyone = _page(clients[2], game, "replay/3/")
    assert "Blue chose the Parrot (rank 1); waiting for Green." in _text(_section(everyone, "frame-text"))
    # The chart plots each seat's score (L-END-4): the last point is the final score.
    for seat in range(3):
        assert f"{result['scores'][seat]} points at event {game.seq}" in replay


def test_the_live_update_draws_the_libertalia_table(
    trio: tuple[Game, dict[int, User], dict[int, Client]],
) -> None:
    game, _users, clients = trio
    live = _page(clients[0], game, "live/")
    assert 'id="ship"' in live and 'id="spaces"' in live and 'data-decision="play"' in live
