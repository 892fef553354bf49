"""At scale: the scale database builder writes logs replay_check accepts, replay_check reads
the database in batches (never every game or event at once), and the lists that grow with the
site (the lobby, the API's list of a player's games) come a page at a time."""

from __future__ import annotations

import importlib.util
import re
import sys
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from types import ModuleType

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.models import Event, Game, Seat, Snapshot
from games.views.lobby import LOBBY_PAGE_SIZE

ROOT = Path(__file__).resolve().parent.parent.parent


def scale_db() -> ModuleType:
    """benchmarks/scale_db.py (the benchmarks folder is not a package)."""
    spec = importlib.util.spec_from_file_location("scale_db", ROOT / "benchmarks" / "scale_db.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scale_db"] = module
    spec.loader.exec_module(module)
    return module


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def built() -> tuple[int, int]:
    """50 games and their 20 players, written by the builder in this test's transaction."""
    now = datetime(2026, 6, 1, 12, tzinfo=UTC)
    return scale_db().build(games=50, events=0, players=20, workers=0, seed=5, now=now)


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_builders_games_pass_replay_check(built: tuple[int, int]) -> None:
    games, events = built
    assert games == 50 and events == Event.objects.count() > 50
    # The mix: finished, running and waiting games of every rule set, with snapshots.
    statuses = set(Game.objects.values_list("status", flat=True))
    assert {"finished", "active"} <= statuses
    assert set(Game.objects.values_list("rules_id", flat=True)) == {
        "pirates",
        "pirates-classic",
        "libertalia",
        "captain-lucky",
    }
    assert Snapshot.objects.exists()
    assert User.objects.filter(username__startswith="scale-", verified_address__isnull=False).count() == 20
    started = Game.objects.filter(seq__gte=1).count()
    out, _ = run("replay_check", "--no-progress")
    assert f"OK: {started} game(s) replayed from seq 1" in out
    # Each running game's seats to act are marked, as the services leave them.
    for game in Game.objects.filter(status="active"):
        marked = sorted(Seat.objects.filter(game=game, must_act=True).values_list("position", flat=True))
        assert marked == sorted(game.to_act)


@pytest.mark.postgres
@pytest.mark.django_db
def test_replay_check_reads_games_in_batches_and_still_finds_a_difference(built: tuple[int, int]) -> None:
    started = list(Game.objects.filter(seq__gte=1).order_by("pk").values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        out, err = run("replay_check", "--batch", "10")
    event_reads = [q["sql"] for q in queries.captured_queries if 'FROM "games_event"' in q["sql"]]
    batches = -(-len(started) // 10)
    # One read of the events per batch of ten games, not one per game and not one of them all.
    assert len(event_reads) == batches and batches > 1
    assert all("IN (" in sql for sql in event_reads)
    assert f"OK: {len(started)} game(s)" in out
    assert re.search(r"replay_check: \d+ game\(s\), \d+ event\(s\) in [0-9.]+ s, peak RSS \d+ MB", err)
    # A snapshot of a game in a later batch, altered: named, and only that game.
    victim = started[-2]
    snapshot = Snapshot.objects.filter(game_id=victim).order_by("seq").first()
    assert snapshot is not None
    state = dict(snapshot.state)
    state["tampered"] = True
    Snapshot.objects.filter(pk=snapshot.pk).update(state=state)
    failed = StringIO()
    with pytest.raises(CommandError, match=r"1 difference\(s\) in 1 of"):
        call_command("replay_check", "--no-progress", "--batch", "7", stdout=failed, stderr=StringIO())
    lines = [line for line in failed.getvalue().splitlines() if line.startswith("DIFFERENCE")]
    assert len(lines) == 1 and lines[0].startswith(
        f"DIFFERENCE game {victim} seq {snapshot.seq}: snapshot differs"
    )


@pytest.mark.django_db
def test_replay_check_refuses_a_batch_below_one() -> None:
    with pytest.raises(CommandError, match="--batch must be at least 1"):
        run("replay_check", "--batch", "0")


@pytest.fixture
def busy_player() -> tuple[User, list[Game]]:
    """A player with more games than a lobby page holds: one waiting for their move."""
    user = User.objects.create_user("busy", "busy@example.com", "a long sea shanty")
    other = User.objects.create_user("other", "other@example.com", "a long sea shanty")
    games = []
    for i in range(LOBBY_PAGE_SIZE + 7):
        game = Game.objects.create(
            rules_id="pirates",
            rules_version=1,
            players=3,
            created_by=user,
            title=f"Busy {i:03}",
            status="active" if i == 30 else "finished",
            seq=5,
        )
        Seat.objects.create(game=game, position=0, user=user, must_act=i == 30)
        Seat.objects.create(game=game, position=1, user=other)
        games.append(game)
    return user, games


def titles(html: str) -> list[str]:
    return re.findall(r"Busy \d{3}", html)


@pytest.mark.django_db
def test_the_lobby_lists_a_players_games_a_page_at_a_time(busy_player: tuple[User, list[Game]]) -> None:
    user, _ = busy_player
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    first = client.get("/games/")
    html = first.content.decode()
    shown = titles(html)
    assert first.status_code == 200 and len(set(shown)) == LOBBY_PAGE_SIZE
    # Their move comes first, and the navigation counts it.
    assert shown[0] == "Busy 030" and "<title>(1) " in html
    assert 'href="/games/?page=2" rel="next"' in html and 'rel="prev"' not in html
    second = client.get("/games/?page=2").content.decode()
    rest = set(titles(second))
    assert len(rest) == 7 and not rest & set(shown)
    assert 'rel="next"' not in second and 'href="/games/" rel="prev"' in second
    assert "page=2" in second.split('id="lobby-live"')[1].split(">")[0]  # the live poll keeps the page
    for bad in ("0", "-1", "two", "1.5", "9999999"):
        response = client.get(f"/games/?page={bad}")
        assert response.status_code == 400 and b"page must be a whole number from 1" in response.content
    assert client.get("/games/live/?page=x").status_code == 400


@pytest.mark.django_db
def test_the_api_lists_a_players_games_a_page_at_a_time(
    busy_player: tuple[User, list[Game]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from games.api.views import GameListView

    monkeypatch.setattr(GameListView, "LIMIT", 20)
    user, games = busy_player
    client = APIClient()
    client.force_authenticate(user)
    pages = []
    page: int | None = 1
    while page is not None:
        body = client.get(f"/api/games/?page={page}").json()
        assert body["page"] == page and len(body["mine"]) <= 20
        pages.append([g["id"] for g in body["mine"]])
        page = body["next_page"]
    assert [len(p) for p in pages] == [20, 20, 17]
    assert sorted(g for p in pages for g in p) == sorted(g.pk for g in games)
    assert pages[0][0] == games[30].pk  # their move first
    assert client.get("/api/games/").json()["mine"][0]["id"] == games[30].pk
    response = client.get("/api/games/?page=0")
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert "page must be a whole number from 1" in response.json()["detail"]


@pytest.mark.django_db
def test_the_scale_indexes_exist() -> None:
    """0014: a player's games from one index on seats; events and snapshots by game through
    their unique (game, seq) only, with no second index on game."""
    with connection.cursor() as cursor:
        seats = connection.introspection.get_constraints(cursor, Seat._meta.db_table)
        events = connection.introspection.get_constraints(cursor, Event._meta.db_table)
        snapshots = connection.introspection.get_constraints(cursor, Snapshot._meta.db_table)
    assert seats["seat_user_games"]["columns"][0] == "user_id" and seats["seat_user_games"]["index"]
    for table in (events, snapshots):
        assert not [name for name, c in table.items() if c["columns"] == ["game_id"] and c["index"]]
        assert [name for name, c in table.items() if c["columns"] == ["game_id", "seq"] and c["unique"]]
