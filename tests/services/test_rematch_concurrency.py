"""Everyone clicks "Play again" at the same moment: one rematch, everyone in it, started once.
Real threads, real PostgreSQL row locks (the old game's row serialises the calls)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import Event, Game, Rematch, RematchReply
from games.services.rematch import rematch_answer, rematch_create
from tests.services.support import make_users, started_game
from tests.services.test_concurrency import run_at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _finished(people: list[User]) -> Game:
    game = started_game(people)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, result={"scores": [3, 2, 1], "winners": [0]}
    )
    return Game.objects.get(pk=game.pk)


def test_three_players_click_play_again_at_once_one_rematch_starts_once() -> None:
    people = make_users(3)
    for _round in range(4):
        old = _finished(people)

        def click(i: int, old: Game = old) -> tuple[Game, bool]:
            return rematch_create(game_id=old.pk, by=people[i])

        results = run_at_once(3, click)
        assert not [r for r in results if isinstance(r, Exception)], results
        games = {game.pk for game, _made in results}
        assert len(games) == 1 and sorted(made for _game, made in results) == [False, False, True]
        (new_id,) = games
        assert Rematch.objects.filter(source=old).count() == 1
        new = Game.objects.get(pk=new_id)
        assert new.status == Game.Status.ACTIVE
        assert Event.objects.filter(game=new, kind=Event.Kind.GAME_STARTED).count() == 1
        assert set(RematchReply.objects.filter(rematch__game=new).values_list("answer", flat=True)) == {"in"}


def test_one_person_answering_twice_at_once_counts_once() -> None:
    people = make_users(3)
    for _round in range(4):
        new, _ = rematch_create(game_id=_finished(people).pk, by=people[0])

        def answer(i: int, new: Game = new) -> Game:
            return rematch_answer(game_id=new.pk, user=people[1], accept=True)

        results = run_at_once(4, answer)
        errors = [r for r in results if isinstance(r, Exception)]
        assert len(errors) == 3 and all(isinstance(e, services.Conflict) for e in errors), results
        assert RematchReply.objects.get(rematch__game=new, user=people[1]).answer == "in"
        assert Game.objects.get(pk=new.pk).status == Game.Status.LOBBY  # people[2] has not answered
