"""Times in the player's own zone: each request of a logged-in player runs
with their profile's time zone active, so every date a page shows is in their zone.

The zone is kept in the session (looked up in the profile once), so the table's polling does
not query the profile every few seconds; the profile page and sign-up refresh it.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from games.models import PlayerProfile

SESSION_KEY = "pirates_tz"


def remember_zone(request: HttpRequest, zone: str) -> None:
    request.session[SESSION_KEY] = zone


class PlayerTimezoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            zone = request.session.get(SESSION_KEY)
            if not isinstance(zone, str):
                profiles = PlayerProfile.objects.filter(user_id=user.pk)
                found = profiles.values_list("timezone", flat=True).first()
                zone = found or "UTC"
                remember_zone(request, zone)
            try:
                timezone.activate(zoneinfo.ZoneInfo(zone))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
