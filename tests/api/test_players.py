"""Player pages and leaderboards, on the site and in the API: their shapes, clear errors, and
privacy: a private game changes nothing an outsider sees (two states of the site that differ
only by a private game look the same from outside), unless its player opted in."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from games import ratings, services
from games.models import Game, PlayerProfile, Rating
from tests.module_rows import module_rows
from tests.services.ratings_support import finish, new_game, relay_all
from tests.services.support import make_users

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def people(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[User]]:
    """anne, bob and cat played two public games (one with a random bot); dan plays nothing.
    Played once for the module's tests (tests/module_rows.py)."""
    with module_rows(django_db_blocker):
        anne, bob, cat, _dan = users = make_users(4, "s")
        finish(new_game([anne, bob, cat]), seed=1)
        finish(new_game([bob, anne], bots=1, bot_kind="random"), seed=2)
        relay_all()
        yield users


def outside_view(users: list[User], viewer: User | None) -> dict[str, Any]:
    """Everything the API and the site show ``viewer`` (None: nobody signed in) about
    ``users`` and every leaderboard."""
    api, site = APIClient(), Client()
    if viewer is not None:
        api.force_authenticate(viewer)
    seen: dict[str, Any] = {}
    for rules_id in ("pirates", "libertalia"):
        seen[f"api:ratings:{rules_id}"] = api.get(f"/api/ratings/{rules_id}/").json()
        seen[f"site:ratings:{rules_id}"] = site.get(f"/ratings/{rules_id}/").content.decode()
    for user in users:
        seen[f"api:player:{user.username}"] = api.get(f"/api/players/{user.username}/").json()
        seen[f"site:player:{user.username}"] = site.get(f"/players/{user.username}/").content.decode()
    return seen


def stored_ratings() -> list[tuple[Any, ...]]:
    return sorted((r.user_id or 0, r.bot, r.mu, r.sigma, r.games) for r in Rating.objects.all())


def test_the_player_api_has_its_documented_shape(people: list[User]) -> None:
    anne = people[0]
    body = APIClient().get(f"/api/players/{anne.username}/").json()
    assert set(body) >= {"username", "display_name", "ratings", "recent_games"}
    assert body["username"] == anne.username
    rating = body["ratings"]["pirates"]
    stored = Rating.objects.get(user=anne, rules_id="pirates")
    assert rating == {"rating": ratings.shown(stored.mu, stored.sigma), "games": 2}
    assert body["played"]["pirates"]["games"] == 2
    assert len(body["history"]["pirates"]) == 3  # before the first game, after each of two
    assert body["history"]["pirates"][-1] == rating["rating"]
    assert {g["id"] for g in body["recent_games"]} == set(Game.objects.values_list("pk", flat=True))


def test_the_leaderboard_lists_people_and_bot_kinds_best_first(people: list[User]) -> None:
    body = APIClient().get("/api/ratings/pirates/").json()
    results = body["results"]
    assert {r["username"] for r in results} == {"s0", "s1", "s2", "bot:random"}
    assert [r["rating"] for r in results] == sorted((r["rating"] for r in results), reverse=True)
    assert all(set(r) >= {"username", "rating", "games"} for r in results)
    assert APIClient().get("/api/ratings/libertalia/").json() == {"results": []}


@pytest.mark.parametrize(
    ("url", "status"),
    [("/api/players/nobody/", 404), ("/api/ratings/chess/", 404), ("/api/ratings/PIRATES/", 404),
     ("/api/players/%20/", 404), ("/api/ratings/%00/", 400)],
)
def test_unknown_players_and_rule_sets_get_a_clear_error(people: list[User], url: str, status: int) -> None:
    response = APIClient().get(url)
    assert response.status_code == status
    assert response.json()["error"] and response.json()["detail"]


@pytest.mark.parametrize("url", ["/players/nobody/", "/ratings/chess/"])
def test_unknown_pages_are_404(people: list[User], url: str) -> None:
    assert Client().get(url).status_code == 404


def test_the_player_page_shows_ratings_and_a_chart_without_inline_script_or_style(people: list[User]) -> None:
    anne = people[0]
    page = Client().get(f"/players/{anne.username}/").content.decode()
    assert 'id="player-name"' in page and 'id="rating-pirates"' in page
    stored = Rating.objects.get(user=anne, rules_id="pirates")
    cell = re.search(r'id="rating-pirates".*?class="rating-value">([^<]*)<', page, re.S)
    assert cell is not None and float(cell.group(1)) == ratings.shown(stored.mu, stored.sigma)
    assert '<svg viewBox="0 0 360 200"' in page and "<polyline" in page and "<table>" in page
    # The CSP allows no inline script or style.
    scripts = re.findall(r"<script([^>]*)>", page)
    assert [s for s in scripts if "src=" not in s and "application/json" not in s] == []
    assert " style=" not in page and "<style" not in page
    board = Client().get("/ratings/pirates/").content.decode()
    assert f'data-username="{anne.username}"' in board and 'data-username="bot:random"' in board


def test_a_private_game_changes_nothing_an_outsider_sees(people: list[User]) -> None:
    anne, bob, cat, dan = people
    before = {viewer: outside_view(people, viewer) for viewer in (None, cat, dan)}
    ratings_before = stored_ratings()
    # anne and bob play a private game, with a greedy bot.
    game = finish(new_game([anne, bob], bots=1, bot_kind="greedy", public=False), seed=3)
    relay_all()
    assert game.status == Game.Status.FINISHED
    assert stored_ratings() == ratings_before
    for viewer in (None, cat, dan):
        assert outside_view(people, viewer) == before[viewer]
    # anne herself sees it among her games; the test could tell the difference.
    mine = APIClient()
    mine.force_authenticate(anne)
    assert game.pk in {g["id"] for g in mine.get(f"/api/players/{anne.username}/").json()["recent_games"]}
    # Once bob opts in, the game counts for him: his rating changes for everyone.
    services.profile_update(user=bob, display_name="", notify="when_away", timezone_name="UTC",
                            away_until=None, rate_private_games=True)
    relay_all()
    after = outside_view(people, dan)
    assert after[f"api:player:{bob.username}"]["ratings"]["pirates"]["games"] == 3
    assert after[f"api:player:{anne.username}"] == before[dan][f"api:player:{anne.username}"]
    assert PlayerProfile.objects.get(user=bob).rate_private_games


def test_the_profile_form_sets_the_opt_in(people: list[User]) -> None:
    anne = people[0]
    client = Client()
    client.force_login(anne)
    form = client.get("/accounts/profile/").content.decode()
    assert 'name="rate_private_games"' in form and f'href="/players/{anne.username}/"' in form
    response = client.post("/accounts/profile/", {
        "display_name": "Anne", "notify": "when_away", "timezone": "UTC", "rate_private_games": "on",
    })
    assert response.status_code == 302
    assert PlayerProfile.objects.get(user=anne).rate_private_games
