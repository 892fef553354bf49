"""Player accounts: profiles (created on demand), profile changes, verified addresses and
emailed log-in links.

Verified addresses. An account's address counts only once its owner followed a link sent to it
(``verification_send`` / ``address_verify``). ``mail_address`` is the one rule for where mail to
an account goes and ``verified_accounts`` the one rule for which accounts an address speaks for
(replies by email, invitations): both read ``VerifiedAddress``, never ``User.email`` alone.
Changing the address leaves the old verified one in use until the new one is verified.
A verification token is signed with its own salt (it cannot log in), expires after
``EMAIL_VERIFICATION_MAX_AGE`` seconds, names the address it verifies (it is void once the
account's address changes) and a fingerprint of what was verified before (it works once).
"""

from __future__ import annotations

import zoneinfo
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme

from games import side_effects
from games.links import login_url
from games.models import PlayerProfile, VerifiedAddress, loaded_with
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
    rate_private_games: bool | None = None,
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
    with transaction.atomic():
        if rate_private_games is not None and rate_private_games != profile.rate_private_games:
            profile.rate_private_games = rate_private_games
            # The rating rule sets of their private games are recomputed (games/ratings.py).
            side_effects.after_rating_preference(user.pk)
        profile.save()
    return profile


PROFILE_FIELDS = ("display_name", "notify", "timezone", "confirm_moves", "away_until")


def profile_change(*, user: User, changes: dict[str, Any]) -> PlayerProfile:
    """Change some of ``user``'s preferences (``PROFILE_FIELDS``), the rest as they are, through
    ``profile_update``'s checks: one rule for the profile page and the API. A time away that
    is over already counts as none (it stretches no deadline), so it never blocks a change."""
    unknown = sorted(set(changes) - set(PROFILE_FIELDS))
    if unknown:
        raise InvalidInput(f"Unknown preference: {', '.join(unknown)}.")
    profile = profile_for(user)
    away = profile.away_until if profile.away_until and profile.away_until > timezone.now() else None
    return profile_update(
        user=user,
        display_name=changes.get("display_name", profile.display_name),
        notify=changes.get("notify", profile.notify),
        timezone_name=changes.get("timezone", profile.timezone),
        away_until=changes.get("away_until", away),
        confirm_moves=changes.get("confirm_moves", profile.confirm_moves),
    )


def login_link_send(*, email: str, next_path: str = "/games/") -> bool:
    """Email a one-click log-in link to every active account that verified ``email``.

    Returns whether an account was found; callers should not reveal it to the person asking.
    """
    users = list(verified_accounts(email))
    for user in users:
        link = login_url(user, next_path)
        send_mail(
            "Your log-in link for Pirates by Mail",
            f"Hello {user.get_username()},\n\nFollow this link to log in to Pirates by Mail "
            f"(it works once, for 7 days):\n\n{link}\n\n"
            "If you did not ask for it, ignore this email: nothing changes.\n",
            None,
            [mail_address(user)],
        )
    return bool(users)


# --- Verified addresses -------------------------------------------------------------------

VERIFY_SALT = "games.accounts.verify-address"


def normal_address(address: str | None) -> str:
    """How addresses are compared: stripped and lowercased."""
    return (address or "").strip().lower()


def mail_address(user: User | None) -> str:
    """Where mail to ``user`` may go: the address the account verified; "" for none (an
    inactive account, or one that never verified an address). Every email to an account's
    owner goes through this, and nothing else decides it."""
    if user is None or not user.is_active or user.pk is None:
        return ""
    loaded, row = loaded_with(user, "verified_address")
    if loaded:
        return row.address if row is not None else ""
    found = VerifiedAddress.objects.filter(user_id=user.pk).values_list("address", flat=True).first()
    return found or ""


def address_verified(user: User) -> bool:
    """Whether the account's current address (``User.email``) is the verified one."""
    address = normal_address(user.email)
    return bool(address) and address == mail_address(user)


def verified_accounts(address: str | None) -> QuerySet[User]:
    """The active accounts that verified ``address``, oldest first (several only when one
    person verified the same inbox for several accounts). An account that merely names the
    address, unverified, is not among them."""
    found = normal_address(address)
    accounts = get_user_model().objects.filter(is_active=True)
    if not found:
        return accounts.none()
    return accounts.filter(verified_address__address=found).order_by("pk")


def account_for_address(address: str | None) -> User | None:
    """The account an email from ``address`` speaks for (a "join" reply): the oldest active
    account that verified it; None when only unverified accounts name it."""
    return verified_accounts(address).first()


def named_by_an_account(address: str | None) -> bool:
    """Whether some active account gives ``address`` as its own, verified or not."""
    found = normal_address(address)
    return bool(found) and get_user_model().objects.filter(is_active=True, email__iexact=found).exists()


def speaks_for(user: User, address: str | None) -> bool:
    """Whether ``address`` is the verified address of ``user`` (a reply's sender, an
    invitation's address)."""
    wanted = normal_address(address)
    return bool(wanted) and wanted == mail_address(user)


def mark_verified(user: User) -> None:
    """The account's current address counts as verified without a link: for accounts an
    operator vouches for (``createuser``, the demo accounts)."""
    _set_verified(user, normal_address(user.email))


def forget_verification(user: User) -> None:
    """The account has no verified address (an account made by signing up starts so)."""
    VerifiedAddress.objects.filter(user_id=user.pk).delete()


def _set_verified(user: User, address: str) -> None:
    if not address:
        forget_verification(user)
        return
    VerifiedAddress.objects.update_or_create(
        user_id=user.pk, defaults={"address": address, "verified_at": timezone.now()}
    )


def _verify_fingerprint(user_id: int, address: str, verified: str) -> str:
    return salted_hmac(VERIFY_SALT, f"{user_id}:{address}:{verified}").hexdigest()[:16]


def verification_token(user: User, next_path: str = "") -> str:
    address = normal_address(user.email)
    data = {"u": user.pk, "e": address, "f": _verify_fingerprint(user.pk, address, mail_address(user)),
            "n": next_path}
    return signing.dumps(data, salt=VERIFY_SALT, compress=True)


def verification_url(user: User, next_path: str = "") -> str:
    return f"{settings.SITE_URL}{reverse('verify-address', args=[verification_token(user, next_path)])}"


def _safe_path(path: object) -> str:
    if (
        isinstance(path, str)
        and path.startswith("/")
        and not path.startswith("//")
        and url_has_allowed_host_and_scheme(path, allowed_hosts=None)
    ):
        return path
    return ""


def verification_send(user: User, *, next_path: str = "") -> bool:
    """Email the verification link to the account's current address (the one mail that goes to
    an unverified address: it is what verifies it). Nothing when there is no address or it is
    verified already. Returns whether a link went out."""
    address = (user.email or "").strip()
    if not user.is_active or not address or address_verified(user):
        return False
    link = verification_url(user, _safe_path(next_path))
    hours = max(1, int(settings.EMAIL_VERIFICATION_MAX_AGE) // 3600)
    send_mail(
        "Verify your address for Pirates by Mail",
        f"Hello {user.get_username()},\n\nFollow this link to confirm that {address} is your address "
        f"on Pirates by Mail (it works once, for {hours} hours):\n\n{link}\n\n"
        "Until then no game email goes to this address and invitations sent to it cannot be "
        "taken by this account. If you did not sign up, ignore this email: nothing changes.\n",
        None,
        [address],
    )
    return True


def address_verify(token: str, *, max_age: int | None = None) -> tuple[User, str]:
    """Follow a verification link: the account's current address becomes its verified one.
    Returns the account and the page to go on to. Raises ``InvalidInput`` (changing nothing)
    for a link that is forged, expired, already used, or for an address the account no
    longer has."""
    age = int(settings.EMAIL_VERIFICATION_MAX_AGE) if max_age is None else max_age
    try:
        data = signing.loads(token, salt=VERIFY_SALT, max_age=age)
    except signing.SignatureExpired:
        raise InvalidInput(
            "This verification link has expired. Log in and ask for a new one on your profile page."
        ) from None
    except signing.BadSignature:
        raise InvalidInput("This verification link is not valid.") from None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int) or not isinstance(data.get("e"), str):
        raise InvalidInput("This verification link is not valid.")
    with transaction.atomic():
        user = get_user_model().objects.select_for_update().filter(pk=data["u"], is_active=True).first()
        if user is None:
            raise InvalidInput("This verification link is not valid.")
        address = normal_address(user.email)
        if not address or address != data["e"]:
            raise InvalidInput(
                "This verification link is for an address your account no longer uses: "
                "ask for a new one on your profile page."
            )
        if data.get("f") != _verify_fingerprint(user.pk, address, mail_address(user)):
            raise InvalidInput("This verification link has been used already.")
        _set_verified(user, address)
    return user, _safe_path(data.get("n"))


def email_change(*, user: User, email: str) -> bool:
    """Change the account's address. The new one is unverified until its link is followed (the
    link is emailed to it); mail keeps going to the verified one meanwhile. Returns whether a
    verification link went out (not for an unchanged address or one verified before)."""
    new = (email or "").strip()
    try:
        validate_email(new)
    except ValidationError:
        raise InvalidInput(f"“{new[:100]}” is not an email address.") from None
    if len(new) > 254:
        raise InvalidInput("An email address has at most 254 characters.")
    if new == (user.email or ""):
        return False
    user.email = new
    user.save(update_fields=["email"])
    return verification_send(user)
