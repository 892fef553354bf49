"""Helpers of the throttling tests: setting rates, checking a 429."""

from __future__ import annotations

from typing import Any

from pytest_django import Settings


def set_rates(settings: Settings, **rates: str | None) -> None:
    """Overrides some throttle rates for one test (the throttles read them per request)."""
    framework = dict(settings.REST_FRAMEWORK)
    framework["DEFAULT_THROTTLE_RATES"] = {**framework["DEFAULT_THROTTLE_RATES"], **rates}
    settings.REST_FRAMEWORK = framework


def retry_after(response: Any) -> int:
    """The 429's Retry-After in seconds (which must be there, and positive)."""
    assert response.status_code == 429, (response.status_code, response.content[:300])
    value = int(response["Retry-After"])
    assert value >= 1
    return value
