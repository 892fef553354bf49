"""Many games, one platform: a rule set the web side has never heard of (the toy below, with no
table of its own) plays through the same services, API, HTML table and emails as Pirates,
with simultaneous secret turns that no other viewer can tell apart."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.models import Game, Seat
from games.tables import table_for
from tests.platform.toy import ToyRules, toy_registered
from tests.services.support import make_users

pytestmark = pytest.mark.django_db


@pytest.fixture
def toy() -> Iterator[ToyRules]:
    with toy_registered() as rules:
        yield rules


def _toy_game(users: list[User]) -> Game:
    game = services.game_create(creator=users[0], rules_id="toy-picks", players=len(users))
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    return services.game_start(game_id=game.pk, by=users[0])


def _api(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _seat_users(game: Game) -> dict[int, User]:
    return {s.position: s.user for s in Seat.objects.filter(game=game).select_related("user") if s.user}


def _normalised(body: Any) -> Any:
    """A response without what differs between any two games (ids, names, times, the seed
    fingerprint): what is left is what the rules let this viewer see."""
    if isinstance(body, list):
        return [_normalised(item) for item in body]
    if not isinstance(body, dict):
        return body
    different = {
        "id", "title", "created_at", "deadline", "seed_sha256", "created_by", "user", "name", "actor"
    }
    return {key: "…" if key in different else _normalised(value) for key, value in body.items()}


def test_a_rule_set_without_a_table_plays_at_the_generic_table(
    toy: ToyRules, django_capture_on_commit_callbacks: Any
) -> None:
    users = make_users(3, prefix="toy")
    with django_capture_on_commit_callbacks(execute=True):
        game = _toy_game(users)
    assert table_for("toy-picks").board_template == "tables/generic/board.html"
    seats = _seat_users(game)
    # Simultaneous: every seat is to act, and each gets its own turn email.
    assert sorted(game.to_act) == [0, 1, 2]
    assert sorted(m.to[0] for m in mail.outbox if m.subject.startswith("Your turn")) == sorted(
        u.email for u in users
    )
    client = Client()
    client.force_login(seats[0])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Pick: number 3" in page and 'name="action"' in page
    assert "Round" in page  # the view's own keys are laid out
    answer = client.post(f"/games/{game.pk}/act/", {"action": '{"number":3,"type":"pick"}',
                                                    "expected_seq": str(game.seq)})
    assert answer.status_code in (200, 302)
    game.refresh_from_db()
    assert game.seq == 2 and sorted(game.to_act) == [1, 2]
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "You picked 3." in page
    assert "Waiting for" in page and "Pick: number" not in page
    other = Client()
    other.force_login(seats[1])
    theirs = other.get(f"/games/{game.pk}/").content.decode()
    assert "has picked." in theirs and "picked 3" not in theirs


def test_other_seats_and_spectators_cannot_tell_which_secret_choice_was_made(toy: ToyRules) -> None:
    """Two games that differ only in seat 0's secret pick give seat 1, seat 2 and a spectator
    identical game responses, event feeds and log pages until the reveal."""
    first, second = make_users(3, prefix="a"), make_users(3, prefix="b")
    games = [_toy_game(first), _toy_game(second)]
    seen: list[list[Any]] = []
    for game, pick in zip(games, (1, 3), strict=True):
        seats = _seat_users(game)
        answer = _api(seats[0]).post(f"/api/games/{game.pk}/actions/",
                                     {"action": {"type": "pick", "number": pick}, "expected_seq": game.seq},
                                     format="json")
        assert answer.status_code == 201, answer.json()
        assert answer.json()["event"]["action"] == {"type": "pick", "number": pick}
        game.refresh_from_db()
        views = []
        for viewer in (seats[1], seats[2], None):
            api = _api(viewer)
            views.append(_normalised(api.get(f"/api/games/{game.pk}/").json()))
            views.append(_normalised(api.get(f"/api/games/{game.pk}/events/").json()))
            html = Client()
            if viewer is not None:
                html.force_login(viewer)
            page = html.get(f"/games/{game.pk}/").content.decode()
            log = re.sub(r'\b[ab]\d\b', "someone", re.sub(r'<code class="seed".*?</code>', "", page))
            views.append(re.findall(r'<ol class="log-list".*?</ol>', log, re.S))
            views.append(re.findall(r'<div class="board.*?</div>\s*</div>', log, re.S)[:1])
        seen.append(views)
    assert seen[0] == seen[1]
    assert "number" not in str(seen[0][1])  # the feed shows {"type": "pick"} only


def test_the_chooser_and_everyone_after_the_end_see_the_choice(toy: ToyRules) -> None:
    users = make_users(2, prefix="end")
    game = _toy_game(users)
    seats = _seat_users(game)
    for _round in range(3):
        for seat in (0, 1):
            game.refresh_from_db()
            answer = _api(seats[seat]).post(
                f"/api/games/{game.pk}/actions/",
                {"action": {"type": "pick", "number": 2 + seat}, "expected_seq": game.seq}, format="json",
            )
            assert answer.status_code == 201, answer.json()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result == {"scores": [0, 3], "winners": [1]}
    events = _api(None).get(f"/api/games/{game.pk}/events/").json()
    assert events[1]["action"] == {"type": "pick", "number": 2}
    assert events[1]["text"] == "Red picked 2."


def test_a_game_that_keeps_hands_secret_for_ever_never_shows_its_seed() -> None:
    """K-END-4: Captain Lucky's seed would give away every hand, so it is not revealed at
    the end, not in the game, its events or an export."""
    users = make_users(2, prefix="lucky")
    game = services.game_create(creator=users[0], rules_id="captain-lucky", players=2)
    services.seat_join(game_id=game.pk, user=users[1])
    game = services.game_start(game_id=game.pk, by=users[0])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    anyone = _api(None)
    assert anyone.get(f"/api/games/{game.pk}/").json()["seed"] is None
    assert anyone.get(f"/api/games/{game.pk}/events/").json()[0]["seed"] is None
    export = anyone.get(f"/api/games/{game.pk}/export/")
    assert export.status_code == 403 and "secret for ever" in export.json()["detail"]
    assert game.seed not in Client().get(f"/games/{game.pk}/").content.decode()
