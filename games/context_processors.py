"""Template context shared by every page."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

from games.models import person_name


def site(request: HttpRequest) -> dict[str, object]:
    return {
        "SITE_URL": settings.SITE_URL,
        "DEV_OUTBOX_PAGE": settings.DEV_OUTBOX_PAGE,
        "DEBUG": settings.DEBUG,
        # Called only by a page that shows it (the navigation of a logged-in person).
        "person_name": lambda: person_name(request.user) if request.user.is_authenticated else "",
    }
