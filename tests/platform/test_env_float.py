"""A setting given in seconds as a number (``BOT_THINK_SECONDS``): read from the environment,
and a bad value stops the site with one clear line instead of a traceback."""

from __future__ import annotations

import pytest

from pirates_site.config import ConfigError, env_float


def test_a_number_of_seconds_is_read_and_the_default_stands_when_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BOT_THINK_SECONDS", raising=False)
    assert env_float("BOT_THINK_SECONDS", 1.0) == 1.0
    monkeypatch.setenv("BOT_THINK_SECONDS", " 0.25 ")
    assert env_float("BOT_THINK_SECONDS", 1.0) == 0.25
    monkeypatch.setenv("BOT_THINK_SECONDS", "")
    assert env_float("BOT_THINK_SECONDS", 1.0) == 1.0


@pytest.mark.parametrize(("raw", "says"), [("fast", "is not a number"), ("-1", "must be 0 or more"),
                                           ("nan", "must be 0 or more")])
def test_a_bad_number_of_seconds_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, raw: str, says: str
) -> None:
    monkeypatch.setenv("BOT_THINK_SECONDS", raw)
    with pytest.raises(ConfigError, match=f"BOT_THINK_SECONDS='{raw}' {says}"):
        env_float("BOT_THINK_SECONDS", 1.0)
