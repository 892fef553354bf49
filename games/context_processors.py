"""Template context shared by every page."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, object]:
    return {
        "SITE_URL": settings.SITE_URL,
        "DEV_OUTBOX_PAGE": settings.DEV_OUTBOX_PAGE,
        "DEBUG": settings.DEBUG,
    }
