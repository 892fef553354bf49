"""The replay starts at the beginning, lists every move to jump to, and its
chart plots the score as it would be if the game ended now (Pirates: ducats plus end bonuses),
which at the last event is the final score."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from engine.pirates.scoring import score_sheet
from games import eventlog
from games.eventlog import Viewer
from games.models import Event, Game
from games.read.state import load_state
from tests.module_rows import module_rows
from tests.web.helpers import make_user, started_game
from tests.web.test_replay_rules import _play

pytestmark = pytest.mark.django_db


def _json(text: str, name: str) -> object:
    found = re.search(rf'<script id="{name}" type="application/json">(.*?)</script>', text, re.S)
    assert found is not None, name
    return json.loads(found.group(1))


def _player(game: Game) -> Client:
    """A player of ``game`` (the test games fix their deal, so they are private)."""
    client = Client()
    client.force_login(game.created_by)
    return client


@pytest.fixture(scope="module")
def finished(django_db_setup: None, django_db_blocker: Any) -> Iterator[Game]:
    """One finished game, played once for the module's tests (tests/module_rows.py)."""
    with module_rows(django_db_blocker):
        game = _play(started_game([make_user(n) for n in ("anne", "bob", "cat")]), 400)
        assert game.status == Game.Status.FINISHED
        yield game


def test_replay_opens_at_the_first_event(finished: Game) -> None:
    text = _player(finished).get(f"/games/{finished.pk}/replay/").content.decode()
    assert 'id="replay-slider" min="1"' in text and 'value="1"' in text
    assert '<div class="frame" data-seq="1">' in text


def test_move_list_has_every_log_sentence_with_a_link(finished: Game) -> None:
    text = _player(finished).get(f"/games/{finished.pk}/replay/?seq=5").content.decode()
    links = re.findall(r'<a href="\?seq=(\d+)" class="move-link" data-seq="\d+"( aria-current="step")?', text)
    assert [int(seq) for seq, _ in links] == list(range(1, finished.seq + 1))
    assert [int(seq) for seq, current in links if current] == [5]
    viewer = Viewer(seat=None, game_over=True)
    for event in Event.objects.filter(game=finished, seq__in=[2, finished.seq]):
        sentence = eventlog.text_for(event, viewer)
        assert sentence and sentence.replace("'", "&#x27;") in text


def test_chart_plots_the_score_if_the_game_ended_now(finished: Game) -> None:
    text = _player(finished).get(f"/games/{finished.pk}/replay/").content.decode()
    series = _json(text, "chart-series")
    assert isinstance(series, list) and len(series) == finished.seq
    assert series[-1] == finished.result["scores"]  # type: ignore[index]
    for seq in (2, finished.seq // 2):
        state = load_state(finished, seq)
        assert series[seq - 1] == [score.total for score in score_sheet(state)]
    # Not ducats in hand: somewhere the end bonuses make the two differ.
    treasuries = [list(load_state(finished, seq).treasury) for seq in range(1, finished.seq + 1)]
    assert treasuries != series
    assert "Score if the game ended now" in text
