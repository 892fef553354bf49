"""Pirates (classic): /rules/pirates-classic/ is a "How to play" page for
players (goal and setup, the turn, challenges, worked examples whose numbers the engine
confirms, what every symbol means, scoring and every ship with its values), not the
specification, which stays in the repository. The table explains its symbols with tooltips."""

from __future__ import annotations

import html
import re
from itertools import pairwise

import pytest
from django.test import Client

from engine.pirates_classic import KIND_LABELS
from engine.pirates_classic.cards import KIND_INDEX, bundled_ship_set
from engine.pirates_classic.scoring import booty_ducats
from engine.pirates_classic.state import ClassicState
from games.tables.pirates_classic.how_to_play import CHALLENGE_PURSE, how_to_play
from tests.engine.pirates_classic_support import RULES, deck
from tests.web.classic_support import OPENING, TOP, classic_game, play_opening
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db


def _guide_text(client: Client) -> tuple[int, str]:
    page = client.get("/rules/pirates-classic/")
    return page.status_code, page.content.decode()


def test_classic_rules_page_is_how_to_play(client: Client) -> None:
    status, raw = _guide_text(client)
    text = html.unescape(raw)
    assert status == 200
    assert "<title>How to play: Pirates (classic)" in text and "How to play Pirates (classic)" in text
    for heading in ("Goal and setup", "Your turn", "Challenges", "Worked examples", "What the symbols mean",
                    "Final scoring", "The ships"):
        assert heading in text
    # Not the specification: no rule ids, clarification markers, test talk, JSON or file names.
    assert not re.search(r"\b[CP]-[A-Z]+-\d", text)
    markers = ("Clarification", 'class="clarified"', "must be tests", '{"type"', '"party"', ".json", ".md")
    for marker in (*markers, "booty: null"):
        assert marker not in text, marker


def test_every_ship_and_bonus_of_the_bundled_set_is_listed_with_its_values(client: Client) -> None:
    _, raw = _guide_text(client)
    text = html.unescape(raw)
    ships = bundled_ship_set()
    rows = re.findall(
        r'<tr><td data-label="Ship">([^<]+)</td><td data-label="Crew">(\d+)</td>'
        r'<td data-label="Ducats">(\d+)</td>'
        r'<td data-label="\? pay">(\d+)</td><td data-label="Booty">([^<]+)</td></tr>',
        text,
    )
    assert len(rows) == len(ships) == 15
    for i, (name, crew, ducats, question, booty) in enumerate(rows):
        assert name == ships.name[i]
        values = (ships.min_crew[i], ships.ducats[i], ships.question_pay[i])
        assert (int(crew), int(ducats), int(question)) == values
        assert booty == " and ".join(KIND_LABELS[k] for k in ships.booty[i])
    for kind, bonus in zip(("chest", "rum", "candlestick", "dagger"), ships.majority_bonus, strict=True):
        assert f"<th>{KIND_LABELS[kind]}</th>" in text and f"<td>{bonus}</td>" in text
    # It fits a phone: the ship list scrolls in its wrapper and stacks into labelled lines.
    assert '<div class="table-wrap">\n  <table class="table compact card-list stack-on-phone">' in raw


def test_headings_go_in_order(client: Client) -> None:
    """The guide's title is the page's one h1, and no heading skips a level."""
    _, raw = _guide_text(client)
    levels = [int(n) for n in re.findall(r"<h([1-6])[\s>]", raw)]
    assert levels.count(1) == 1 and levels[0] == 1
    for before, after in pairwise(levels):
        assert after <= before + 1, levels


def _play(state: ClassicState, moves: list[tuple[int, dict[str, object]]]) -> ClassicState:
    """Applies the moves, letting the rules skip for a seat that can do nothing (C-TURN-1)."""
    for seat, action in moves:
        for _ in range(5):
            forced = RULES.forced_action(state, state.active)
            if forced is None:
                break
            state = RULES.apply(state, state.active, forced)
        state = RULES.apply(state, seat, action)
    forced = RULES.forced_action(state, state.active)
    return state if forced is None else RULES.apply(state, state.active, forced)


def test_worked_boarding_matches_the_engine() -> None:
    """C-BOARD-2, C-BOARD-3: Red 4 on Blue 3 on Green ? boards the example ship."""
    ex = how_to_play()["example"]
    ship = ex["ship"]
    state = RULES.new_game(3, 1, {"deck": deck(ship["id"]), "first_seat": 1})
    state = _play(state, [
        (1, {"type": "move", "party": "1.3", "onto": "2.Q"}),
        (2, {"type": "move", "party": "2.2", "onto": "1.2"}),
        (0, {"type": "move", "party": "0.4", "onto": "1.3"}),
        (1, {"type": "move", "party": "1.4", "onto": "2.2"}),
        (2, {"type": "move", "party": "2.3", "onto": "1.4"}),
    ])
    first, second = ship["booty"]
    after = RULES.apply(state, 0, {"type": "board", "party": "0.4", "ship": ship["id"], "booty": first})
    assert after.treasury == (ex["after"], ex["blue"], ex["green"])
    assert ex["purse"] == 10 + ship["ducats"] and ex["pay"] == 3 + ship["question_pay"]
    assert after.booty[0][KIND_INDEX[first]] == 1 and after.booty[1][KIND_INDEX[second]] == 1


def test_worked_challenge_matches_the_engine() -> None:
    """C-MUT-2, C-MUT-3, C-BOARD-3: Green challenges the stack of 7, Red (down to a few ducats)
    boards the cheapest ship and the supply pays what Red cannot."""
    ch = how_to_play()["challenge"]
    assert ch["ship"]["id"] in TOP  # the table tests' deal shows it
    state = _play(RULES.new_game(3, 1, {"deck": TOP + [s for s in deck() if s not in TOP], "first_seat": 0}),
                  OPENING)
    state = state._replace(treasury=(CHALLENGE_PURSE, 10, 10))
    state = RULES.apply(state, 2, {"type": "challenge", "party": "0.2"})
    state = RULES.apply(state, 1, {"type": "decline"})
    booty = ch["ship"]["booty"][0] if len(ch["ship"]["booty"]) == 2 else None
    after = RULES.apply(state, 0, {"type": "board", "party": "0.2", "ship": ch["ship"]["id"], "booty": booty})
    assert after.treasury == (ch["after"], 10 + ch["each"], 10 + ch["each"])
    assert ch["from_supply"] == ch["pay"] - ch["purse"] > 0 and ch["after"] == 0
    assert after.booty[0][KIND_INDEX[ch["ship"]["booty"][0]]] == 1


def test_shared_majority_example_is_the_engines() -> None:
    """C-END-1, C-END-3: two players with 2 chests share the bonus, two with 1 get 1 each."""
    sh = how_to_play()["shared"]
    assert booty_ducats(sh["counts"], sh["bonus"]) == [sh["leader"], sh["leader"], sh["other"], sh["other"]]
    assert sh["bonus"] == 15 and (sh["leader"], sh["other"], sh["lost"]) == (7, 1, 1)


def test_classic_table_symbols_have_tooltips() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = classic_game(users)
    client = Client()
    client.force_login(users[1])
    play_opening(game)
    page = client.get(f"/games/{game.pk}/").content.decode()
    for abbr in ("Minimum crew", "Ducats the captain", "What a ? pirate", "Pieces of booty nobody",
                 "At the end the most pieces"):
        assert f'<abbr title="{html.escape(abbr)}' in page, abbr
    assert 'title="Booty: the captain picks one piece' in page
    assert 'title="Booty: the captain takes it"' in page
    assert 'title="Treasury: ' in page and 'title="Asked whether to challenge' in page
    assert re.search(r'title="Red 2: captain, its owner controls the stack"', page)
    assert re.search(r'title="Ships still face down', page)
