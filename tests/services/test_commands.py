"""The management commands createuser and replay_check."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from games import services
from games.models import Game, Snapshot
from games.read.state import cache_clear
from tests.services.support import make_users, play_one, play_to_end, started_game

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_createuser_creates_and_refuses_a_taken_name() -> None:
    out, _ = run("createuser", "anne", "--email", "anne@example.com", "--password", "a long sea shanty")
    assert "Created user anne <anne@example.com> (address verified)." in out
    user = User.objects.get(username="anne")
    assert user.email == "anne@example.com" and user.check_password("a long sea shanty")
    with pytest.raises(CommandError, match="already exists"):
        run("createuser", "Anne", "--email", "other@example.com", "--password", "another long shanty")
    with pytest.raises(CommandError, match="not an email address"):
        run("createuser", "mary", "--email", "mary", "--password", "a long sea shanty")
    with pytest.raises(CommandError, match="Password refused"):
        run("createuser", "mary", "--email", "mary@example.com", "--password", "short")
    assert not User.objects.filter(username="mary").exists()


@pytest.fixture
def games() -> list[Game]:
    """A finished game, a running one, an aborted one, and one still in the lobby."""
    users = make_users(4)
    finished = play_to_end(started_game(users[:3]), seed=1)
    running = started_game(users[1:])
    rng = random.Random(3)
    for _ in range(12):
        play_one(running, rng)
    aborted = started_game(users[:3])
    services.game_abort(game_id=aborted.pk, by=users[0])
    services.game_create(creator=users[0], rules_id="pirates", players=3)
    return [finished, running, aborted]


def test_replay_check_passes_on_healthy_games(games: list[Game]) -> None:
    out, err = run("replay_check")
    assert "OK: 3 game(s) replayed from seq 1" in out
    assert "[##############################] 3/3 games" in err


def test_replay_check_finds_a_tampered_snapshot(games: list[Game]) -> None:
    finished = games[0]
    snapshot = Snapshot.objects.filter(game=finished).order_by("seq").first()
    assert snapshot is not None and snapshot.seq < finished.seq
    tampered = dict(snapshot.state)
    tampered["treasury"] = [t + 7 for t in tampered["treasury"]]
    Snapshot.objects.filter(pk=snapshot.pk).update(state=tampered)
    cache_clear()
    out = StringIO()
    with pytest.raises(CommandError, match=r"1 difference\(s\) in 1 of 3 game\(s\)") as raised:
        call_command("replay_check", "--no-progress", stdout=out, stderr=StringIO())
    assert raised.value.returncode == 1
    text = out.getvalue()
    assert (
        f"DIFFERENCE game {finished.pk} seq {snapshot.seq}: snapshot differs from the replay at .treasury"
        in text
    )


def test_replay_check_finds_a_wrong_read_column(games: list[Game]) -> None:
    finished = games[0]
    Game.objects.filter(pk=finished.pk).update(result={"scores": [0, 0, 0], "winners": [0, 1, 2]})
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("replay_check", "--game", str(finished.pk), stdout=out, stderr=StringIO())
    assert f"DIFFERENCE game {finished.pk}: column result is" in out.getvalue()


def test_replay_check_exit_status_from_the_command_line(games: list[Game]) -> None:
    from django.core.management import ManagementUtility

    running = games[1]
    Game.objects.filter(pk=running.pk).update(to_act=[9])
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", "replay_check", "--no-progress"]).execute()
    assert exited.value.code == 1
