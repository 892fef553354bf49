"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live_server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.realservers import chromium_path, full_chromium_path

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


class _CspWatchedBrowser:
    """The session's browser, with every context it opens watched for Content-Security-Policy
    violations: Chromium reports each as a console error naming the policy. The contexts and
    pages a test opens close when it ends: left open, a table page goes on polling its live
    fragment every 3 s for the rest of the session, for nobody."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self.violations: list[str] = []
        self._opened: list[Any] = []

    def _console(self, message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            self.violations.append(message.text)

    def new_context(self, *args: Any, **kwargs: Any) -> Any:
        context = self._browser.new_context(*args, **kwargs)
        context.on("console", self._console)
        self._opened.append(context)
        return context

    def new_page(self, *args: Any, **kwargs: Any) -> Any:
        page = self._browser.new_page(*args, **kwargs)
        page.on("console", self._console)
        self._opened.append(page)  # its own context, which closes with it
        return page

    def close_opened(self) -> None:
        for opened in reversed(self._opened):
            opened.close()
        self._opened.clear()

    @property
    def unwatched(self) -> Any:
        return self._browser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


def _watched(browser: Any) -> Iterator[Any]:
    watched = _CspWatchedBrowser(browser)
    yield watched
    watched.close_opened()
    assert watched.violations == [], "Content-Security-Policy violations:\n" + "\n".join(watched.violations)


@pytest.fixture
def browser(browser: Any) -> Iterator[Any]:
    """Every browser test fails on a Content-Security-Policy violation in any page it opened,
    live updates included (the pages' own console checks may look at other things)."""
    yield from _watched(browser)


@pytest.fixture(scope="session")
def _full_chromium(browser_type: Any, browser_type_launch_args: dict[str, Any]) -> Iterator[Any]:
    path = full_chromium_path()
    if path is None:
        pytest.skip("[browser] needs the desktop Chromium as well: apt-get install chromium, or set "
                    "CHROMIUM_FULL_PATH (.ci/run does)")
    launched = browser_type.launch(**{**browser_type_launch_args, "executable_path": path})
    yield launched
    launched.close()


@pytest.fixture
def full_browser(_full_chromium: Any) -> Iterator[Any]:
    """The desktop Chromium in headless mode, watched as ``browser`` is, for a test of what the
    headless shell does not have (window.Notification)."""
    yield from _watched(_full_chromium)


@pytest.fixture
def console() -> Iterator[Any]:
    """Watches the pages a browser test opens (``ConsoleWatch``); the test fails on any console
    error, CSP violation or uncaught page error they had."""
    from tests.web.test_browser import ConsoleWatch

    watch = ConsoleWatch()
    yield watch
    assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)
