"""Engine tests need no Django: they run with or without the pytest-django plugin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _celery_eager() -> Iterator[None]:
    """Replaces the project-wide Celery fixture, which needs Django settings."""
    yield


@pytest.fixture(autouse=True)
def _throttle_counts_reset() -> Iterator[None]:
    """Replaces the project-wide reset of throttle counts, which needs Django settings."""
    yield
