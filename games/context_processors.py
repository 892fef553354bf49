"""Template context shared by every page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from games.models import Seat, person_name
from games.services.accounts import address_verified


def games_waiting(user: Any) -> int:
    if not getattr(user, "is_authenticated", False):
        return 0
    return Seat.objects.filter(
        user_id=user.pk, must_act=True, replaced_by_bot=False, game__status="active"
    ).count()


def unverified_address(user: Any) -> str:
    """The logged-in person's address while it is unverified (the banner shows it), else ""."""
    if not getattr(user, "is_authenticated", False) or not user.email or address_verified(user):
        return ""
    return str(user.email)


def site(request: HttpRequest) -> dict[str, object]:
    return {
        "SITE_URL": settings.SITE_URL,
        "DEV_OUTBOX_PAGE": settings.DEV_OUTBOX_PAGE,
        "DEBUG": settings.DEBUG,
        # Called only by a page that shows it (the navigation of a logged-in person).
        "person_name": lambda: person_name(request.user) if request.user.is_authenticated else "",
        # How many games wait for the person's move: the navigation and the tab title show it.
        "games_waiting": lambda: games_waiting(request.user),
        # The "verify your address" banner on every page of a person whose address is not verified.
        "unverified_address": lambda: unverified_address(request.user),
    }
