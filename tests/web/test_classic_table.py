"""The Pirates (classic) table: the three ships on display, every stack with the
player who controls it, treasuries and booty; controls for move, board (with the booty
choice), challenge and decline that submit exactly the legal actions; the challenge question
with who is asked and their public answers; nothing of the face-down ships' order; final
scores; and the replay's chart of ducats."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client

from games import selectors, services
from games.models import Game
from games.tables import table_for
from tests.web.classic_support import (
    CHALLENGED_STACK,
    DECK,
    REST,
    TOP,
    classic_game,
    play_opening,
    seat_user,
    submit,
)
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db

ACTION_RE = re.compile(r'name="action" value="([^"]+)"')
CHALLENGE = {"type": "challenge", "party": CHALLENGED_STACK}
DECLINE = {"type": "decline"}
# Red boards the Brigantine Charity (16 ducats, rum or chest) with the stack of 7 and takes
# the chest; Green 4 is the mate, so Green gets the rum.
STACK_OF_7 = "Red's stack of 7 led by Red 2"
BOARD_CHARITY = {"type": "board", "party": CHALLENGED_STACK, "ship": "C07", "booty": "chest"}


def _offered(page: str) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(raw)) for raw in ACTION_RE.findall(page)]


def _canonical(actions: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(a, sort_keys=True) for a in actions)


def _panel(page: str, seat: int) -> str:
    """The seat's panel on the board."""
    start = page.index(f'data-seat="{seat}">\n      <header class="player-head">')
    return page[start : page.index("</article>", start)]


def _section(page: str, element_id: str) -> str:
    start = page.index(f'id="{element_id}"')
    return page[start : page.index("</section>", start)]


@pytest.fixture
def trio() -> tuple[Game, list[Client]]:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = classic_game(users)
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    return game, clients


def _page(client: Client, game: Game) -> str:
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def _legal(game: Game, seat: int) -> list[dict[str, Any]]:
    game.refresh_from_db()
    return services.rules_for(game).legal_actions(services.load_state(game), seat)


def test_c_set_2_c_move_2_board_shows_the_three_ships_every_stack_its_controller_and_the_ducats(
    trio: tuple[Game, list[Client]],
) -> None:
    game, (anne, _bob, _cat) = trio
    page = _page(anne, game)
    ships = _section(page, "ships")
    for ship_id, name in (("C04", "Barque Fortune"), ("C01", "Pinnace Dove"), ("C07", "Brigantine Charity")):
        assert f'data-ship="{ship_id}"' in ships and name in ships
    assert "12 face down · 0/15 boarded" in ships
    assert ">Crew</abbr></dt><dd>3</dd>" in ships and ">Ducats</abbr></dt><dd>16</dd>" in ships
    assert re.search(
        r'<span class="token rum"[^>]*>rum barrel</span><span class="token chest"[^>]*>treasure chest</span>',
        ships,
    )
    for seat in range(3):
        assert "<strong>10</strong> ducats" in _panel(page, seat)  # C-SET-1
        assert "no booty" in _panel(page, seat)

    play_opening(game)
    page = _page(anne, game)
    red, blue, green = (_panel(page, s) for s in range(3))
    # Each stack sits with the player whose pirate is on top, every value shown (C-MOVE-2).
    assert 'data-stack="0.2" data-controller="0"' in red
    assert "Red's stack of 7: Blue 3, Green 3, Red 1" in red
    captain, mate = "<span class=\"role\">Captain</span> Red 2", "<span class=\"role\">Mate</span> Green 4"
    assert captain in red and mate in red and red.count('class="pirate ') == 7 + 2 + 2
    assert 'data-stack="1.Q" data-controller="1"' in blue and "Blue's stack of 4: Red 2, Blue 2" in blue
    assert "Controls no stack and no single pirate." in green

    submit(game, 2, CHALLENGE)
    submit(game, 1, DECLINE)
    submit(game, 0, BOARD_CHARITY)
    page = _page(anne, game)
    red, blue, green = (_panel(page, s) for s in range(3))
    # C-BOARD-3: 10 + 16 - (4 + 4 + 3 + 3 + 2 + 2) for Red; Blue's and Green's pirates earn 9 each.
    assert "<strong>8</strong> ducats" in red
    assert "<strong>19</strong> ducats" in blue and "<strong>19</strong> ducats" in green
    assert 'title="1 × treasure chest"' in red and 'title="1 × rum barrel"' in green and "no booty" in blue
    # C-BOARD-4: the stack's pirates went home as singles.
    assert "stack of 7" not in red and 'single" data-stack="0.2" data-controller="0"' in red
    assert 'single" data-stack="1.2" data-controller="1"' in blue
    ships = _section(page, "ships")
    assert 'data-ship="C07"' not in ships and "1/15 boarded" in ships and ships.count("empty-card") == 1
    assert "Boarded: Brigantine Charity" in page
    assert "treasure chest 5, rum barrel 5, candlestick 6, dagger 6" in page  # the booty supply


def test_c_act_controls_submit_exactly_the_legal_actions_at_every_kind_of_moment(
    trio: tuple[Game, list[Client]],
) -> None:
    game, clients = trio

    def check(seat: int) -> str:
        page = _page(clients[seat], game)
        legal = _legal(game, seat)
        assert legal and _canonical(_offered(page)) == _canonical(legal)
        for other in range(3):
            if other not in game.to_act:
                assert _offered(_page(clients[other], game)) == []
        return page

    page = check(0)  # the first turn: moves only (C-MOVE-1)
    assert {a["type"] for a in _offered(page)} == {"move"}
    assert "Onto Blue 2: a stack of 2" in page

    play_opening(game)
    for seat in (1, 2):  # C-MUT-2: both asked at once, each offered challenge or decline
        page = check(seat)
        assert _offered(page) == [CHALLENGE, DECLINE]
        assert "holding 3 of your pirates" in page
        assert "Challenge Red to board with Red&#x27;s stack of 7 led by Red 2" in page

    submit(game, 2, CHALLENGE)
    submit(game, 1, DECLINE)
    page = check(0)  # C-MUT-3: only boardings with the challenged stack, booty chosen in step 3
    assert {(a["type"], a["party"]) for a in _offered(page)} == {("board", CHALLENGED_STACK)}
    controls = _section(page, "controls")
    assert "challenged, it must board" in controls
    picks = re.findall(r'<details class="step2"[^>]*>\s*<summary>([^<]+)</summary>', controls)
    assert [html.unescape(p) for p in picks] == [
        "Board the Barque Fortune (crew 3): 13 ducats, pay 18",
        "Board the Brigantine Charity (crew 3): 16 ducats, pay 18",
    ]
    assert "Take the dagger; Green&#x27;s mate gets the rum barrel" in controls
    assert "Take the treasure chest; Green&#x27;s mate gets the rum barrel" in controls
    assert "Board the Pinnace Dove (crew 2): 10 ducats, pay 18 · Take the dagger" in html.unescape(controls)

    submit(game, 0, BOARD_CHARITY)
    # A later free turn offers moves and boardings together.
    for _ in range(12):
        seat = game.to_act[0]
        page = check(seat)
        kinds = {a["type"] for a in _offered(page)}
        if kinds == {"move", "board"}:
            assert 'data-groups="Move Board"' in page
            break
        submit(game, seat, _legal(game, seat)[0])
    else:
        raise AssertionError("no turn offered both moves and boardings")


def test_c_mut_2_a_pending_question_shows_who_is_asked_and_every_answer_to_everyone(
    trio: tuple[Game, list[Client]],
) -> None:
    game, (anne, bob, cat) = trio
    spectator = Client()
    spectator.force_login(make_user("dora"))
    play_opening(game)

    def rows(page: str) -> list[tuple[str, str, str]]:
        return re.findall(
            r'data-seat="(\d)" data-stack="([^"]+)" data-answer="(\w+)"', _section(page, "challenge")
        )

    for client in (anne, bob, cat, spectator):
        page = _page(client, game)
        assert rows(page) == [("1", "0.2", "waiting"), ("2", "0.2", "waiting")]
        assert "may challenge" in page and "counts as a decline" in page
    red = _page(anne, game)
    assert "Waiting for" in red and "bob</strong> (Blue)" in red and "cat</strong> (Green)" in red
    assert "captain, waiting" in _panel(red, 0) and "to answer" in _panel(red, 1)

    submit(game, 2, CHALLENGE)
    for client in (anne, bob, cat, spectator):
        assert rows(_page(client, game)) == [("1", "0.2", "waiting"), ("2", "0.2", "challenge")]
    assert "challenges" in _section(_page(bob, game), "challenge")

    submit(game, 1, DECLINE)
    for client in (anne, bob, cat, spectator):
        page = _page(client, game)
        assert rows(page) == [("1", "0.2", "decline"), ("2", "0.2", "challenge")]
        assert "Red must board with Red&#x27;s stack of 7 led by Red 2" in page
    # The log tells the answers too.
    log = _section(_page(spectator, game), "log")
    assert "Green challenges Red to board" in log and "Blue does not challenge Red" in log


def _normalised(page: str) -> str:
    """The live part of a page without what differs between two games anyway: ids in links,
    form tokens, the seed fingerprint and the deadline."""
    live = page[page.index('<div id="live"') :]
    live = re.sub(r"/games/\d+/", "/games/N/", live)
    live = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", live)
    live = re.sub(r'<code class="seed"[^>]*>[^<]*</code>', "", live)
    return re.sub(r'deadline in <span title="[^"]+">[^<]+</span>', "", live)


def test_secrets_no_face_down_ship_or_its_order_reaches_the_page() -> None:
    """Two games that differ only in the order of the face-down ships look the same to every
    player, and no face-down ship is named."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    one = classic_game(users, deck=DECK)
    other = classic_game(users, deck=TOP + list(reversed(REST)))
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    state = services.load_state(one)
    face_down = [state.card_set.ship_json(ship) for ship in state.deck]
    assert sorted(s["id"] for s in face_down) == sorted(REST)

    def pages() -> list[tuple[str, str]]:
        return [(_page(c, one), _page(c, other)) for c in clients]

    for mine, theirs in pages():
        assert _normalised(mine) == _normalised(theirs)
    play_opening(one)
    play_opening(other)
    for mine, theirs in pages():
        assert _normalised(mine) == _normalised(theirs)
        for ship in face_down:
            assert ship["name"] not in mine and f'"{ship["id"]}"' not in mine
    live = clients[0].get(f"/games/{one.pk}/live/").content.decode()
    assert all(ship["name"] not in live for ship in face_down)


def test_move_groups_number_every_legal_action_once_for_the_emails(trio: tuple[Game, list[Client]]) -> None:
    game, _clients = trio
    table = table_for("pirates-classic")
    play_opening(game)
    submit(game, 2, CHALLENGE)
    view = selectors.game_detail(game, seat_user(game, 1))["view"]
    groups = table.move_groups(_legal(game, 1), view)
    assert [(g.key, [m.label for m in g.moves]) for g in groups] == [
        ("question", [f"Challenge Red to board with {STACK_OF_7}", "Decline: let the turn go on"])
    ]
    submit(game, 1, DECLINE)
    legal = _legal(game, 0)
    moves = [m for g in table.move_groups(legal, view) for m in g.moves]
    assert sorted(m.index for m in moves) == list(range(len(legal)))
    assert all(json.loads(m.action) == legal[m.index] for m in moves)
    labels = [m.label for m in moves]
    assert "Board the Pinnace Dove (crew 2): 10 ducats, pay 18; take the dagger" in labels
    assert (
        "Board the Brigantine Charity (crew 3): 16 ducats, pay 18: "
        "Take the rum barrel; Green's mate gets the treasure chest"
    ) in labels


def _play_to_the_end(game: Game) -> None:
    """Everyone boards when they can, challenges when asked, else makes the first move."""
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        seat = game.to_act[0]
        legal = _legal(game, seat)
        action = next((a for a in legal if a["type"] in ("board", "challenge")), legal[0])
        submit(game, seat, action)
    raise AssertionError("the game did not end")


def test_c_end_the_finished_table_shows_final_scores_and_the_replay_charts_the_score(
    trio: tuple[Game, list[Client]],
) -> None:
    game, (anne, _bob, _cat) = trio
    play_opening(game)  # event 13 asks the question
    _play_to_the_end(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result is not None
    page = _page(anne, game)
    result = _section(page, "result")
    assert "<th>Player</th><th>Total</th><th>Treasury</th><th>Booty</th>" in result
    scoring = selectors.game_detail(game, None)["view"]["scoring"]
    for score, sheet in zip(game.result["scores"], scoring, strict=True):
        assert f"<strong>{score}</strong>" in result and f"<td>{sheet['treasury']}</td>" in result
    bonus = max(scoring, key=lambda sheet: sheet["booty"]["chest"])["booty"]["chest"]
    assert f"treasure chest +{bonus}</span>" in result  # C-END-1
    assert "wins!" in result or "share the win!" in result
    assert "The game ended because the last ship was boarded." in result
    assert game.seed in page and 'id="ships"' not in page and _offered(page) == []

    replay = anne.get(f"/games/{game.pk}/replay/").content.decode()
    chart = _section(replay, "chart")
    # The score if the game ended now (treasuries plus majorities): at the end, the result's.
    assert "Score if the game ended now" in chart
    for score in game.result["scores"]:
        assert f"{score} ducats at event {game.seq}" in chart
    frame = anne.get(f"/games/{game.pk}/replay/13/").content.decode()
    assert "Challenge question" in frame and 'data-answer="waiting"' in frame
