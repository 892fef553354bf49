"""Rows a whole test module shares: a setup that plays games to their end is written once, not
once per test.

``module_rows`` opens a transaction around the module's tests: each test's own transaction
(pytest-django's ``db``) nests in it as a savepoint and is rolled back as usual, so a test
still sees only the shared rows and its own, and the shared rows are rolled back after the
module's last test. Every test of the module then sees them, so use it where all of them
want them (or in a class-scoped fixture, for the tests of one class), and only where they all
run in a transaction (``db``, not ``transactional_db``: flushing the tables would empty the
shared rows too). The fixture asks for ``django_db_setup`` and ``django_db_blocker``::

    @pytest.fixture(scope="module")
    def people(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[User]]:
        with module_rows(django_db_blocker):
            yield play_games()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction
from django.test import override_settings

from tests.conftest import TEST_SETTINGS, accounts_verified, celery_eager


@contextmanager
def module_rows(django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            # No test's fixtures have run yet: the same settings and set-up as theirs.
            with override_settings(**TEST_SETTINGS), celery_eager(), accounts_verified():
                yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
