"""Service test setup."""

from tests.services.support import fast_password_hasher

__all__ = ["fast_password_hasher"]
