"""Appends to one game are serialised: concurrent submits of one turn append exactly once, and
a repeated idempotency key returns the first result. Real threads, real PostgreSQL row locks."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from games import services
from games.models import Event, Game
from tests.services.support import legal_for, make_users, seat_user, started_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """``work(i)`` in ``count`` threads released together; each thread has its own connection."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = work(i)
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    return results


def assert_gap_free(game: Game) -> None:
    game.refresh_from_db()
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.seq + 1))


def test_ten_threads_submit_the_same_turn_one_event_is_appended() -> None:
    game = started_game(make_users(3))
    position = game.to_act[0]
    user = seat_user(game, position)
    action = legal_for(game, position)[0]
    before = game.seq

    results = run_at_once(
        10,
        lambda i: services.action_submit(
            game_id=game.pk, user=user, action=action, expected_seq=before, idempotency_key=f"thread-{i}"
        ),
    )

    appended = [r for r in results if isinstance(r, services.Submitted)]
    stale = [r for r in results if isinstance(r, services.StaleSeq)]
    assert len(appended) == 1, results
    assert len(stale) == 9, results
    assert all(r.current_seq >= before + 1 for r in stale)
    assert appended[0].created and appended[0].event.seq == before + 1
    assert Event.objects.filter(game=game, kind=Event.Kind.ACTION).count() == 1
    assert_gap_free(game)


def test_double_submit_with_one_idempotency_key_appends_once() -> None:
    game = started_game(make_users(3))
    position = game.to_act[0]
    user = seat_user(game, position)
    action = legal_for(game, position)[0]
    before = game.seq

    results = run_at_once(
        2,
        lambda i: services.action_submit(
            game_id=game.pk, user=user, action=action, expected_seq=before, idempotency_key="one-click"
        ),
    )

    assert all(isinstance(r, services.Submitted) for r in results), results
    assert sorted(r.created for r in results) == [False, True]
    assert {r.event.pk for r in results} == {results[0].event.pk}
    assert Event.objects.filter(game=game, idempotency_key="one-click").count() == 1
    assert Event.objects.filter(game=game, kind=Event.Kind.ACTION).count() == 1
    assert_gap_free(game)
