"""Notification tests: locmem email, eager Celery (tests/conftest.py), a fixed site address."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.notifications.helpers import SITE


@pytest.fixture(autouse=True)
def _mail_settings(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = SITE
    settings.BOT_MOVE_DELAY_SECONDS = 0
    settings.EMAIL_RETRY_BASE_SECONDS = 0
