"""Seat.must_act (behind "games waiting for user X") follows the seats to act after every
append, and is cleared when the game ends. Runs on SQLite here and on PostgreSQL in CI: the
update is plain SQL written for both."""

from __future__ import annotations

import random

import pytest

from games.models import Game, Seat
from tests.services.support import make_users, play_one, started_game


def _marked(game: Game) -> list[int]:
    return sorted(Seat.objects.filter(game=game, must_act=True).values_list("position", flat=True))


@pytest.mark.django_db
def test_must_act_marks_exactly_the_seats_to_act_until_the_end() -> None:
    game = started_game(make_users(4))
    assert _marked(game) == game.to_act and len(game.to_act) == 1
    rng = random.Random(3)
    seen = set()
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        submitted = play_one(game, rng)
        game.refresh_from_db()
        assert _marked(game) == sorted(game.to_act)
        assert [s.position for s in submitted.seats if s.must_act] == sorted(game.to_act)
        seen.update(game.to_act)
    assert game.status == Game.Status.FINISHED and game.to_act == []
    assert _marked(game) == []
    assert seen == {0, 1, 2, 3}


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_move_rewrites_only_the_seats_whose_must_act_changes() -> None:
    """A seat that was not to act and still is not keeps its row version (PostgreSQL's xmin):
    each needless new version of a seat row is work for the indexes over ``must_act`` and for
    vacuum."""
    game = started_game(make_users(4))
    rng = random.Random(5)
    for _ in range(6):
        game.refresh_from_db()
        before = _versions(game)
        marked_before = set(_marked(game))
        play_one(game, rng)
        game.refresh_from_db()
        changed = marked_before ^ set(_marked(game))
        after = _versions(game)
        assert {p for p in before if before[p] != after[p]} == changed
        assert changed  # Pirates hands the turn on with every move


def _versions(game: Game) -> dict[int, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT position, xmin::text FROM games_seat WHERE game_id = %s", [game.pk])
        return dict(cursor.fetchall())
