"""Unsubscribing, and each player's email preference."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.urls import reverse

from games.models import PlayerProfile, loaded_with

UNSUBSCRIBE_SALT = "games.emails.unsubscribe"
Notify = PlayerProfile.Notify


def unsubscribe_token(user: User) -> str:
    """A token that turns off ``user``'s game emails. It does not expire: old emails keep working."""
    return signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT)


def user_for_unsubscribe_token(token: str) -> User | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    return get_user_model().objects.filter(pk=data["u"]).first()


def unsubscribe_url(user: User) -> str:
    return f"{settings.SITE_URL}{reverse('unsubscribe', args=[unsubscribe_token(user)])}"


def preference(user: User) -> str:
    loaded, profile = loaded_with(user, "profile")
    if not loaded:
        profile = PlayerProfile.objects.filter(user_id=user.pk).only("notify").first()
    # Without a profile: the default a new profile gets (only when away).
    return profile.notify if profile is not None else PlayerProfile._meta.get_field("notify").default
