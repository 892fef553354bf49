"""For Captain Lucky: /rules/captain-lucky/ is a "How to play" page for
players (setup, the turn and every choice in it, the dice's odds, a worked example the engine
plays, what every symbol means, scoring, every kind of treasure card with its counts), not the
specification (engine/captain_lucky/rules.md). The table explains its symbols with tooltips."""

from __future__ import annotations

import html
import itertools
import re

import pytest
from django.test import Client

import engine
from engine.captain_lucky.cards import DATA, KINDS, composition
from engine.captain_lucky.scoring import points
from engine.captain_lucky.state import HAND_SIZE, MIDDLE_START, OVER
from games import services
from games.tables.captain_lucky.how_to_play import (
    EXAMPLE_ACTIONS,
    EXAMPLE_PLAYERS,
    EXAMPLE_SEED,
    example_deck,
    how_to_play,
)
from games.tables.captain_lucky.presenters import set_title
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db

CELL = re.compile(r"<td[^>]*>(.*?)</td>")
SPEC_MARKERS = re.compile(
    r"K-[A-Z]+-\d|Clarification|must be tests|\{\"type\"|rules\.md|silver_coin|jade_fish"
)


def _page(client: Client) -> tuple[str, str]:
    """The page's HTML and the guide's visible text (tags stripped, entities decoded)."""
    page = client.get("/rules/captain-lucky/")
    assert page.status_code == 200
    body = page.content.decode()
    article = body[body.index('<article class="rules panel how-to-play'):body.index("</article>")]
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", article)))
    return body, text


def test_captain_lucky_rules_page_is_how_to_play(client: Client) -> None:
    body, text = _page(client)
    assert "<title>How to play: Captain Lucky" in body
    assert "How to play Captain Lucky" in text
    for section in ("Your turn", "The dice", "A worked example", "What the symbols mean", "End and scoring",
                    "The cards"):
        assert section in text
    # Every choice of a turn (K-TURN-1 to K-TURN-5), in the game's words.
    for choice in ("Place", "Steal", "Re-roll", "Captain bonus", "Stop", "Draw"):
        assert choice in text
    # Not the specification: no rule ids, no clarification markers, no action JSON or data ids.
    assert not SPEC_MARKERS.search(text), SPEC_MARKERS.search(text)
    assert 'class="clarified"' not in body


def test_every_treasure_kind_with_its_counts_from_the_bundled_data(client: Client) -> None:
    """K-COMP-1: each kind with its count in each pack and in a game of 2-4 and of 5-6."""
    body, text = _page(client)
    rows = re.findall(r"<tr><td data-label=\"Treasure\">(.*?)</tr>", body, re.S)
    cells = [
        [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(CELL, "<td>" + r)]
        for r in rows
    ]
    by_name = {row[0]: row[1:] for row in cells}
    for k, kind in enumerate(DATA["kinds"]):
        expected = [str(pack["cards"][kind["id"]]) for pack in DATA["packs"]]
        expected += [str(composition(2)[k]), str(composition(6)[k])]
        assert by_name[kind["name"]] == expected, kind
        assert kind["plural"] in text
    totals = [str(sum(p["cards"].values())) for p in DATA["packs"]]
    totals += [str(sum(composition(n))) for n in (2, 6)]
    assert by_name["All cards"] == totals
    # K-SET-1, K-SET-2: the pile left after the deal, for every number of players.
    for players in range(2, 7):
        pile = sum(composition(players)) - players * HAND_SIZE - MIDDLE_START
        assert f'<td data-label="Players">{players}</td>' in body
        assert f'<td data-label="Left in the pile">{pile}</td>' in body


def test_dice_odds_come_from_the_faces(client: Client) -> None:
    """K-COMP-2: three pirate heads of six faces; n dice all show heads 1 time in 2^n."""
    _, text = _page(client)
    guide = how_to_play()
    for row in guide["dice"]:
        assert row["odds"] == 2 ** row["dice"]
        assert float(row["percent"]) == pytest.approx(100 / 2 ** row["dice"])
        assert f"1 in {2 ** row['dice']}" in text


def test_worked_example_is_what_the_engine_plays() -> None:
    """The example turn, applied through the engine: K-TURN-1 (place, draw up), K-TURN-2
    (one die per card), K-TURN-4 (pay one card per blank, only the blanks roll again), K-TURN-3
    (all heads takes the set), K-END-2 (a point per card, +1 for the unused captain bonus)."""
    rules = engine.get_rules("captain-lucky")
    state = rules.new_game(EXAMPLE_PLAYERS, EXAMPLE_SEED, {"deck": example_deck()})
    ex = how_to_play()["example"]
    total = sum(composition(EXAMPLE_PLAYERS))
    assert ex["pile_start"] == len(state.pile) == total - EXAMPLE_PLAYERS * HAND_SIZE - MIDDLE_START
    assert ex["middle_start"] == "m1: 2 rubies, m2: 1 pearl"
    place, steal, reroll = EXAMPLE_ACTIONS
    state = rules.apply(state, 0, place)
    assert ex["middle_placed"] == "m1: 3 rubies, m2: 1 pearl"
    assert ex["pile_placed"] == len(state.pile) == ex["pile_start"] - 1 and sum(state.hands[0]) == HAND_SIZE
    step = rules.step(state, 0, steal)
    state = step.state
    assert state.last_roll is not None and state.last_roll.dice.count(False) == 1 == ex["first_blanks"]
    assert ex["first_count"] == 3 and "☠ blank ☠ — 1 blank" in step.text
    step = rules.step(state, 0, reroll)
    state = step.state
    assert state.last_roll is not None and state.last_roll.rolled == (1,)
    assert False not in state.last_roll.dice
    assert "takes the set (p0s1: 3 rubies)" in step.text and ex["collection"] == "p0s1: 3 rubies"
    assert ex["points"] == points(state, 0) == 3 + 1 and ex["cards"] == 3
    assert ex["discard"] == len(state.discard) == 1
    assert ex["pile_end"] == len(state.pile) == ex["pile_start"] - 2
    # "Red would have had no rubies left to pay", and "Blue's turn".
    assert state.hands[0][KINDS.index("ruby")] == 0
    assert state.phase != OVER and rules.to_act(state) == [1]


def test_worked_example_numbers_are_on_the_page(client: Client) -> None:
    _, text = _page(client)
    ex = how_to_play()["example"]
    for said in (f"the pile holds {ex['pile_start']} cards", ex["middle_start"], ex["middle_placed"],
                 f"the pile is down to {ex['pile_placed']}", "1 in 8", "☠ blank ☠ — 1 blank",
                 "☠ ☠ ☠ — all heads", f"Red's collection: {ex['collection']}",
                 f"Red now has {ex['points']} points"):
        assert said in text, said


def test_headings_in_order_and_phone_tables(client: Client) -> None:
    """One h1 (the guide's title), then h2 and h3 without a skipped level (axe's
    heading-order); wide tables scroll in a table-wrap or stack on a phone."""
    body, _ = _page(client)
    levels = [int(n) for n in re.findall(r"<h([1-6])[ >]", body)]
    assert levels.count(1) == 1 and levels[0] == 1
    assert all(b - a <= 1 for a, b in itertools.pairwise(levels)), levels
    assert body.count('class="table-wrap"') >= 3 and "card-list stack-on-phone" in body
    assert " style=" not in body and "<script>" not in body


def test_table_symbols_have_tooltips() -> None:
    users = [make_user(n) for n in ("anne", "bob")]
    game = services.game_create(
        creator=users[0], rules_id="captain-lucky", players=2, options={}, is_public=True
    )
    services.seat_join(game_id=game.pk, user=users[1])
    game = services.game_start(game_id=game.pk, by=users[0])
    client = Client()
    client.force_login(users[0])
    page = client.get(f"/games/{game.pk}/").content.decode()
    page = html.unescape(page)
    # A middle set's id, the five slots, points, captains, the pile, the discard pile.
    assert '<abbr class="cl-set-id" title="Set 1 of the middle: anyone may try to steal it' in page
    assert 'title="1 of the 5 cards a set can hold"' in page or 'of the 5 cards a set can hold"' in page
    assert 'title="Points if the game ended now' in page
    assert 'title="Captain Heart starts the game. The captain bonus: once per game' in page
    assert 'title="The face-down draw pile' in page and 'treasure cards in this game' in page
    assert 'title="Cards paid to re-roll dice' in page


def test_set_tooltips_say_whose_set_and_whether_it_can_be_stolen() -> None:
    """K-SET-3 names, K-TURN-2: a complete set of 5 in a collection cannot be stolen."""
    colours = ["red", "blue", "green"]
    assert set_title("m4", 5, colours).startswith("Set 4 of the middle: anyone may try")
    assert set_title("p2s3", 2, colours).startswith("Green's set 3 (p2 is Green, s3 its set number)")
    assert "until it holds 5 cards" in set_title("p2s3", 2, colours)
    assert "can no longer be stolen" in set_title("p1s1", 5, colours)
