"""docker/commands/mail-ingest, the pipe transport's command, and ``mail_ingest`` under
production settings: anything that would make a reply fall back to development defaults
defers the message (exit 75, the reason on stderr) instead of dropping or bouncing it.
(The same with a real Postfix in front: tests/inbound/test_postfix_real.py.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pirates_site.config import DEV_SECRET_KEY
from tests import realservers

ROOT = realservers.ROOT
WRAPPER = ROOT / "docker" / "commands" / "mail-ingest"
EX_TEMPFAIL = 75
MESSAGE = b"From: anne@example.org\nTo: m-1-0-0-x@reply.pirates.test\nSubject: Re: turn\n\n1\n"
# A database nobody answers on: every case here must stop before asking it.
NOWHERE = "postgres://app:app@127.0.0.1:9/none"
# What a pipe passes on (pipe(8)): hardly anything.
PIPE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C"}


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, input=MESSAGE.decode(), env=env, cwd="/", capture_output=True,
                          text=True, timeout=120)


def _wrapper(env_file: Path | str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return _run([str(WRAPPER), "--env-file", str(env_file), "--recipient", "m-1-0-0-x@reply.pirates.test",
                 "--sender", "anne@example.org"], {**PIPE_ENV, **(env or {})})


def _settings_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "env"
    path.write_text(text)
    return path


def test_a_missing_settings_file_defers_the_message(tmp_path: Path) -> None:
    done = _wrapper(tmp_path / "nowhere")
    assert done.returncode == EX_TEMPFAIL
    assert f"settings file {tmp_path / 'nowhere'} does not exist" in done.stderr
    # Without --env-file, MAIL_INGEST_ENV_FILE names the file (the test's Postfix uses that).
    by_variable = _run([str(WRAPPER), "--recipient", "a@b"],
                       {**PIPE_ENV, "MAIL_INGEST_ENV_FILE": str(tmp_path / "x")})
    assert by_variable.returncode == EX_TEMPFAIL and f"settings file {tmp_path / 'x'} " in by_variable.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (f"DATABASE_URL={NOWHERE}\n", "SECRET_KEY is not set"),
        ("SECRET_KEY=\nDATABASE_URL=x\n", "SECRET_KEY is not set"),
        ("# settings\nSECRET_KEY=a-long-random-key\n", "DATABASE_URL is not set"),
        ("SECRET_KEY=a-long-random-key\nexport DATABASE_URL\n", "line 2 is not NAME=value"),
        ("SECRET_KEY=a-long-random-key\nDATABASE URL=x\n", 'line 2: "DATABASE URL" is not a variable name'),
        (f"SECRET_KEY=k\nDATABASE_URL={NOWHERE}\nVENV=/nonexistent\n", "VENV=/nonexistent has no bin/python"),
    ],
)
def test_incomplete_settings_defer_the_message(tmp_path: Path, text: str, said: str) -> None:
    done = _wrapper(_settings_file(tmp_path, text))
    assert done.returncode == EX_TEMPFAIL, done.stderr
    assert said in done.stderr and "deferred (exit 75)" in done.stderr


def test_the_environment_of_the_pipe_does_not_stand_in_for_the_file(tmp_path: Path) -> None:
    """SECRET_KEY in the caller's environment does not excuse a settings file without one;
    ``--env-file none`` (inside the compose service) takes the environment as it is."""
    done = _wrapper(_settings_file(tmp_path, f"DATABASE_URL={NOWHERE}\nSECRET_KEY=\n"),
                    {"SECRET_KEY": "from-the-caller"})
    assert done.returncode == EX_TEMPFAIL and "SECRET_KEY is not set" in done.stderr
    bare = _wrapper("none", {"DATABASE_URL": NOWHERE})
    assert bare.returncode == EX_TEMPFAIL and "SECRET_KEY is not set in none" in bare.stderr


def test_production_settings_refuse_the_development_key(tmp_path: Path) -> None:
    """The wrapper's checks pass (both set), and mail_ingest itself refuses the dev key."""
    text = f"SECRET_KEY={DEV_SECRET_KEY}\nDATABASE_URL={NOWHERE}\nALLOWED_HOSTS=x\nVENV={sys.prefix}\n"
    done = _wrapper(_settings_file(tmp_path, text))
    assert done.returncode == EX_TEMPFAIL, done.stderr
    assert "mail_ingest: SECRET_KEY is the development key" in done.stderr


def test_production_settings_refuse_the_default_database() -> None:
    env = {**PIPE_ENV, "DJANGO_DEBUG": "0", "SECRET_KEY": "a-long-random-key", "ALLOWED_HOSTS": "x"}
    done = _run([sys.executable, str(ROOT / "manage.py"), "mail_ingest", "--recipient", "a@b"], env)
    assert done.returncode == EX_TEMPFAIL, done.stderr
    assert "mail_ingest: DATABASE_URL is not set" in done.stderr


def test_a_configuration_error_defers_mail_but_stays_2_for_other_commands() -> None:
    env = {**PIPE_ENV, "DJANGO_DEBUG": "0", "SECRET_KEY": "a-long-random-key", "DATABASE_URL": NOWHERE}
    ingest = _run([sys.executable, str(ROOT / "manage.py"), "mail_ingest", "--recipient", "a@b"], env)
    assert ingest.returncode == EX_TEMPFAIL
    assert "Configuration error: ALLOWED_HOSTS must be set" in ingest.stderr
    check = _run([sys.executable, str(ROOT / "manage.py"), "check"], env)
    assert check.returncode == 2 and "ALLOWED_HOSTS must be set" in check.stderr
