"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live_server."""

from __future__ import annotations

import os
from typing import Any

import pytest

from tests.realservers import chromium_path

# The live server and the ORM run in this process while Playwright's sync API holds an event loop.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": chromium_path() or "/usr/bin/chromium",
        "args": CHROMIUM_FLAGS,
    }
