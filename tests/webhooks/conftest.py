"""Webhook test fixtures: a real HTTP receiver, players with API clients, quick retries."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.conftest import anonymous, client_for, users  # noqa: F401
from tests.webhooks.receiver import Receiver, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    yield from running_receiver()


@pytest.fixture(autouse=True)
def _webhook_settings(settings: Any) -> None:
    """Loopback receivers allowed (as in development); short timeouts, no backoff to speak
    of (eager tasks retry at once anyway)."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    settings.WEBHOOK_RETRY_BASE_SECONDS = 1
    settings.WEBHOOK_MAX_RETRIES = 4
    settings.WEBHOOK_DISABLE_AFTER = 10
    settings.SITE_URL = "https://pirates.example"


@pytest.fixture
def move(django_capture_on_commit_callbacks: Any) -> Any:
    """The seat to act plays a random legal move (seeded by ``seed``), and its commit's side
    effects run (the outbox relay's nudge, eager here)."""
    from tests.services.support import play_one

    def play(game: Any, seed: int) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            play_one(game, random.Random(seed))

    return play


@pytest.fixture(autouse=True)
def _eager_retries() -> Iterator[None]:
    """Eager tasks that propagate errors raise Retry instead of running again: let them retry
    (at once: an eager retry does not wait for its countdown)."""
    from pirates_site.celery import app

    previous = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield
    app.conf.task_eager_propagates = previous
