"""Ratings applied by a real Celery worker on PostgreSQL and Redis, as the game-over side
effect: every finished game once, in the order games finished, also when the later game's
update runs while the earlier one's is still waiting."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import outbox
from games.models import Game, Outbox, RatedGame, Rating, RatingChange
from tests.conftest import CeleryWorker
from tests.services.ratings_support import finish, new_game
from tests.services.support import make_users
from tests.services.test_ratings import assert_agree, recomputed, stored


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f}s waiting for {what}"
        time.sleep(0.2)


@pytest.fixture
def celery_worker_env() -> dict[str, str]:
    return {"BOT_MOVE_DELAY_SECONDS": "0", "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"}


def ratings_done() -> bool:
    rows = Outbox.objects.filter(kind=Outbox.Kind.RATINGS)
    return rows.exists() and not rows.exclude(status=Outbox.Status.DONE).exists()


@pytest.mark.celery_worker
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_rates_each_finished_game_once_and_in_finish_order(celery_worker: CeleryWorker) -> None:
    anne, bob, cat = make_users(3, "w")
    first = finish(new_game([anne, bob, cat]), seed=1)
    second = finish(new_game([cat, anne, bob]), seed=2)
    wait_until(lambda: RatedGame.objects.count() == 2 and ratings_done(), 120, "both games rated")
    assert_agree(stored(), recomputed())
    expected = stored()

    # Again, as if neither update had run: the first game's row waits an hour (a relay that
    # lags, a worker that died with it), the second's is due now. The second's task applies
    # the first before it, and the first's, when it runs, counts nothing twice.
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    RatedGame.objects.all().delete()
    later = timezone.now() + timedelta(hours=1)
    Outbox.objects.filter(kind=Outbox.Kind.RATINGS, game=first).update(
        status="pending", due_at=later, attempts=0
    )
    Outbox.objects.filter(kind=Outbox.Kind.RATINGS, game=second).update(
        status="pending", due_at=timezone.now(), attempts=0
    )
    assert outbox.publish_relay()
    wait_until(
        lambda: Outbox.objects.filter(kind=Outbox.Kind.RATINGS, game=second, status="done").exists(),
        120, "the second game's update",
    )
    rated = RatedGame.objects.order_by("rated_at").values_list("game_id", flat=True)
    assert list(rated) == [first.pk, second.pk]
    assert_agree(stored(), expected)
    Outbox.objects.filter(kind=Outbox.Kind.RATINGS, game=first).update(due_at=timezone.now())
    assert outbox.publish_relay()
    wait_until(lambda: ratings_done(), 120, "the first game's update")
    assert_agree(stored(), expected)
    assert Game.objects.filter(status=Game.Status.FINISHED).count() == RatedGame.objects.count() == 2
