"""Replies by email: locmem email, eager Celery, a fixed site and reply domain, and
no per-sender rate (the rate's own test sets one)."""

from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings as SettingsWrapper

from tests.inbound.helpers import REPLY_DOMAIN, SITE, OnCommit
from tests.throttle_support import set_rates


@pytest.fixture(autouse=True)
def _mail_settings(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = SITE
    settings.REPLY_DOMAIN = REPLY_DOMAIN
    settings.BOT_MOVE_DELAY_SECONDS = 0
    settings.EMAIL_RETRY_BASE_SECONDS = 0
    set_rates(settings, inbound_mail=None)


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: OnCommit) -> OnCommit:
    """Runs what a block's commit queues (emails, answers), as the real commit would."""
    return django_capture_on_commit_callbacks
