"""Accounts for tests: by default every account a test makes has verified its address
(tests/conftest.py); these make the other kind explicitly."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from games.services.accounts import forget_verification

PASSWORD = "a-long-password-1"


def make_unverified(user: User) -> User:
    """``user`` as if it had signed up and never followed its link."""
    forget_verification(user)
    return user


def unverified_user(name: str, email: str, password: str = PASSWORD) -> User:
    """A new account whose address is not verified."""
    return make_unverified(get_user_model().objects.create_user(name, email, password))
