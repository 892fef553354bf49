"""Player accounts: profiles (created on demand), profile changes and emailed log-in links."""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.mail import send_mail
from django.utils import timezone

from games.links import login_url
from games.models import PlayerProfile
from games.services.errors import InvalidInput

MAX_AWAY = timedelta(days=14)


@lru_cache(maxsize=1)
def timezone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def profile_for(user: User) -> PlayerProfile:
    """The user's profile, created with the defaults the first time it is asked for."""
    profile, _created = PlayerProfile.objects.get_or_create(user=user)
    return profile


def display_name_for(user: User) -> str:
    profile = PlayerProfile.objects.filter(user=user).first()
    return (profile.display_name if profile is not None else "") or user.get_username()


def profile_update(
    *,
    user: User,
    display_name: str,
    notify: str,
    timezone_name: str,
    away_until: datetime | None,
    confirm_moves: bool | None = None,
) -> PlayerProfile:
    display_name = (display_name or "").strip()
    if len(display_name) > 40:
        raise InvalidInput("A display name has at most 40 characters.")
    if notify not in PlayerProfile.Notify.values:
        raise InvalidInput("Choose how often to be emailed: each turn, a daily digest or never.")
    if timezone_name not in timezone_names():
        raise InvalidInput(f"Unknown timezone {timezone_name!r}.")
    if away_until is not None:
        now = timezone.now()
        if away_until <= now:
            raise InvalidInput("“Away until” must be in the future (or left empty).")
        if away_until > now + MAX_AWAY:
            raise InvalidInput("You can be away for at most 14 days.")
    profile = profile_for(user)
    profile.display_name = display_name
    profile.notify = notify
    profile.timezone = timezone_name
    profile.away_until = away_until
    if confirm_moves is not None:
        profile.confirm_moves = confirm_moves
    profile.save()
    return profile


def login_link_send(*, email: str, next_path: str = "/games/") -> bool:
    """Email a one-click log-in link to every active account with ``email``.

    Returns whether an account was found; callers should not reveal it to the person asking.
    """
    users = list(get_user_model().objects.filter(email__iexact=(email or "").strip(), is_active=True))
    for user in users:
        link = login_url(user, next_path)
        send_mail(
            "Your log-in link for Pirates by Mail",
            f"Hello {user.get_username()},\n\nFollow this link to log in to Pirates by Mail "
            f"(it works once, for 7 days):\n\n{link}\n\n"
            "If you did not ask for it, ignore this email: nothing changes.\n",
            None,
            [user.email],
        )
    return bool(users)
