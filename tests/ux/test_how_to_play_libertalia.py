"""Libertalia: /rules/libertalia/ is a "How to play" page for players (a
day and every choice, a worked day, the booty, what the table shows, the end of a campaign,
the 30 characters with their influence in every colour), not the specification, which stays
in the repository. The worked day is replayed through the engine. The table explains its
numbers and symbols with tooltips."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from engine import get_rules
from engine.libertalia.campaign import END_EFFECTS, fortune
from engine.libertalia.characters import COLOURS, KINDS, bundled_character_set
from engine.libertalia.state import DUSK, SUNRISE
from games.tables.libertalia.how_to_play import (
    EXAMPLE_COLOURS,
    EXAMPLE_OPTIONS,
    EXAMPLE_PICKS,
    EXAMPLE_TAKES,
    how_to_play,
)
from tests.web.helpers import make_user
from tests.web.libertalia_support import DEAL3, PICKS3, libertalia_game, play, seat_users

RULES = get_rules("libertalia")


def _page() -> str:
    response = Client().get("/rules/libertalia/")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def _text(page: str) -> str:
    main = page[page.index("<main") :] if "<main" in page else page
    return " ".join(re.sub(r"<[^>]+>", " ", main).split())


@pytest.mark.django_db
def test_libertalia_rules_page_is_how_to_play() -> None:
    page = _page()
    text = _text(page)
    assert "<title>How to play: Libertalia" in page and "How to play Libertalia" in text
    for heading in ("A day: Sunrise, Day, Dusk, Night", "Your choices", "A worked example: one day",
                    "The booty", "What the table shows", "End of a campaign", "The characters"):
        assert heading in text
    # Not the specification: no rule ids, no clarification markers, no notation, no paths.
    assert not re.search(r"\bL-[A-Z]+-\d", page)
    for marker in ("Clarification", "must be tests", '{"type"', "rules.md", ".json", "engine/"):
        assert marker not in text, marker


@pytest.mark.django_db
def test_every_character_with_its_values() -> None:
    """L-COMP-1, L-COMP-2, L-CHAR: all 30 characters, their timing, effect and influence in
    each of the six colours, as the bundled set has them."""
    page = _page()
    chars = bundled_character_set()
    for rank in range(1, 31):
        row = re.search(rf'<tr id="character-{rank}">(.*?)</tr>', page, re.S)
        assert row, rank
        cells = [" ".join(re.sub(r"<[^>]+>", " ", c).split())
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row[1])]
        data = chars.character_json(rank)
        assert cells[0] == str(rank) and cells[1] == chars.name[rank]
        assert cells[2] == ", ".join(t.capitalize() for t in data["timing"])
        assert cells[3] == data["text"]
    influence = page[page.index('id="influence"') :]
    rows = re.findall(r"<tr><th>(\d+) <span[^>]*>[^<]*</span></th>(.*?)</tr>", influence, re.S)
    assert len(rows) == 30
    for rank, cells in rows:
        values = [int(v) for v in re.findall(r"<td>(\d)</td>", cells)]
        assert values == [chars.influence[c][int(rank)] for c in range(len(COLOURS))]
    # The booty with its counts and values (L-COMP-3, L-END-2).
    booty = page[page.index('id="booty"') : page.index('id="symbols"')]
    for k in range(len(KINDS)):
        name = chars.booty_name[k]
        assert re.search(rf">{name}</span></td><td[^>]*><span>{chars.booty_count[k]}</span>", booty), name
    assert f"set of {chars.map_set_size}: {chars.map_set_value}" in booty
    assert "+ 5 per chest + 3 per jewel + 1 per goods − 3 per cursed relic + 12 per set of 3" in _text(page)


def test_worked_day_is_the_engines() -> None:
    """L-SUN-2, L-ORD-2, L-CHAR-3, L-CHAR-29, L-DUSK-2, L-CHAR-18, L-DEC-5, L-CHAR-7, L-END-2:
    the worked day, played through the engine with the same deal, gives the page's numbers."""
    ex: dict[str, Any] = how_to_play()["example"]
    state = RULES.new_game(len(EXAMPLE_COLOURS), 1, EXAMPLE_OPTIONS)
    seat_of = {colour: seat for seat, colour in enumerate(EXAMPLE_COLOURS)}
    for colour, rank in EXAMPLE_PICKS.items():
        step = RULES.step(state, seat_of[colour], {"type": "play", "rank": rank})
        state = step.state
    # Revealed and ordered by rank; the Day has run with no decision to the first Dusk pick.
    ship = [(EXAMPLE_COLOURS[s], r) for s, r in state.ship]
    assert ship == [(c["colour"], c["rank"]) for c in ex["ship"]]
    assert f"pays Red {ex['beggar_pay']} doubloons" in step.text
    assert state.phase == DUSK
    assert {c: state.doubloons[seat_of[c]] for c in EXAMPLE_COLOURS} == ex["after_day"]
    for colour in ("yellow", "blue"):
        for kind in EXAMPLE_TAKES[colour]:
            assert RULES.to_act(state) == [seat_of[colour]]
            state = RULES.apply(state, seat_of[colour], {"type": "take", "booty": kind})
    # The last relic went to the Barkeep without a question; the Night ran; day 2 begins.
    assert state.phase == SUNRISE and state.day == 2
    assert {c: state.doubloons[seat_of[c]] for c in EXAMPLE_COLOURS} == ex["money"]
    for colour in EXAMPLE_COLOURS:
        held = state.booty[seat_of[colour]]
        assert sorted(k for k, n in zip(KINDS, held, strict=True) for _ in range(n)) == sorted(
            ex["booty_kinds"][colour]
        )
    # The fortunes "were the campaign to end now", End effects included (L-END-1, L-END-2).
    for colour in EXAMPLE_COLOURS:
        seat = seat_of[colour]
        ends = sum(END_EFFECTS[r](state, seat, r) for r in state.dens[seat] if r in END_EFFECTS)
        money = state.doubloons[seat] + ends
        assert fortune(state.chars, max(money, 0), state.booty[seat])["fortune"] == ex["fortunes"][colour]
    # And the arithmetic the page spells out.
    assert ex["after_beggar"]["red"] == ex["start"] + ex["beggar_pay"]
    assert ex["money"]["green"] == ex["start"] + ex["barkeep_gain"]


@pytest.mark.django_db
def test_page_shows_the_example_numbers() -> None:
    text = _text(_page())
    ex = how_to_play()["example"]
    assert (f"pays Red {ex['beggar_pay']} doubloons: Yellow {ex['start']} → {ex['after_beggar']['yellow']}, "
            f"Red {ex['start']} → {ex['after_beggar']['red']}") in text
    assert f"gains {ex['barkeep_gain']}: {ex['after_day']['green']} → {ex['money']['green']}" in text
    fortunes = ex["fortunes"]
    assert (f"Yellow {fortunes['yellow']}, Red {fortunes['red']}, Blue {fortunes['blue']} and "
            f"Green {fortunes['green']}") in text


@pytest.mark.django_db
def test_libertalia_table_symbols_have_tooltips() -> None:
    people = [make_user(n) for n in ("anne", "bob", "cat")]
    game = libertalia_game(people, DEAL3)
    by_seat = seat_users(game)
    for seat in range(3):
        play(game, by_seat[seat], {"type": "play", "rank": PICKS3[1][seat]})
    client = Client()
    client.force_login(by_seat[0])
    page = html.unescape(client.get(f"/games/{game.pk}/").content.decode())
    assert '<abbr title="Influence: breaks a tie between equal ranks' in page
    assert 'class="lib-rank" title="Rank ' in page
    assert 'title="Doubloons: ' in page
    assert '<abbr title="Cards in hand' in page
    assert '<abbr title="Characters discarded this campaign">' in page
    assert 'title="The booty the characters of day 2 take at Dusk"' in page
    assert re.search(r'class="lib-token \w+" title="[A-Z][a-z ]+: ', page)
    assert 'title="Score: the fortunes of the campaigns ended so far"' in page
    assert 'title="Booty not laid out: the Spanish Spy draws from the bag' in page
