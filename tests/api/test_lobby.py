"""The lobby through the API: tokens, creating, listing, joining, bots, starting, aborting."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import Game, Seat
from tests.api.conftest import ClientFor
from tests.services.support import PASSWORD, started_game

pytestmark = pytest.mark.django_db


def test_token_for_good_credentials_and_a_clear_400_for_bad(users: list[User], anonymous: APIClient) -> None:
    good = anonymous.post("/api/auth/token/", {"username": "player0", "password": PASSWORD}, format="json")
    assert good.status_code == 200
    token = good.json()["token"]
    again = anonymous.post("/api/auth/token/", {"username": "player0", "password": PASSWORD}, format="json")
    assert again.json()["token"] == token

    bad = anonymous.post("/api/auth/token/", {"username": "player0", "password": "nope"}, format="json")
    assert bad.status_code == 400
    assert bad.json() == {"error": "bad_credentials", "detail": "Unknown username or wrong password."}

    missing = anonymous.post("/api/auth/token/", {"username": "player0"}, format="json")
    assert missing.status_code == 400
    assert missing.json()["error"] == "invalid" and "password" in missing.json()["detail"]

    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anonymous.post("/api/ping/").json() == {"ok": True, "user": "player0"}


def test_create_then_join_bots_start_and_detail(users: list[User], client_for: ClientFor) -> None:
    host, guest = client_for(users[0]), client_for(users[1])
    created = host.post(
        "/api/games/",
        {
            "rules": "pirates",
            "players": 3,
            "title": "Tortuga",
            "move_hours": 24,
            "timeout_policy": "pass",
            "public": True,
            "options": {},
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]

    assert any(g["id"] == game_id for g in guest.get("/api/games/").json()["open"])
    joined = guest.post(f"/api/games/{game_id}/join/")
    assert joined.status_code == 200
    assert [s["user"] for s in joined.json()["seats"]] == ["player0", "player1"]
    assert guest.post(f"/api/games/{game_id}/join/").json()["error"] == "conflict"

    assert guest.post(f"/api/games/{game_id}/start/").status_code == 403
    early = host.post(f"/api/games/{game_id}/start/")
    assert early.status_code == 409 and "Waiting for 1 more player" in early.json()["detail"]

    bots = host.post(f"/api/games/{game_id}/bots/", {"kind": "greedy"}, format="json")
    assert bots.status_code == 200 and bots.json()["added"] == 1

    started = host.post(f"/api/games/{game_id}/start/")
    assert started.status_code == 200
    detail = started.json()
    assert detail["status"] == "active" and detail["seq"] >= 1
    assert detail["seed"] is None and len(detail["seed_sha256"]) == 64
    assert detail["move_time_seconds"] == 24 * 3600 and detail["timeout_policy"] == "pass"
    assert {s["bot"] for s in detail["seats"]} == {None, "greedy"}

    mine = guest.get("/api/games/").json()["mine"]
    assert [g["id"] for g in mine] == [game_id]
    assert set(mine[0]) == {
        "id",
        "title",
        "rules",
        "status",
        "players",
        "seats",
        "to_act",
        "your_turn",
        "deadline",
    }


def test_bots_are_strong_unless_asked_and_an_unknown_level_is_a_clear_400(
    users: list[User], client_for: ClientFor
) -> None:
    host = client_for(users[0])
    refused = host.post("/api/games/", {"players": 3, "bot_seats": 2, "bot_kind": "clever"}, format="json")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid"
    assert "bot_kind" in refused.json()["detail"] and "clever" in refused.json()["detail"]
    assert not Game.objects.exists()

    strong = host.post("/api/games/", {"players": 3, "bot_seats": 2}, format="json").json()["id"]
    assert [s["bot"] for s in host.get(f"/api/games/{strong}/").json()["seats"]] == [None, "strong", "strong"]
    greedy = host.post("/api/games/", {"players": 3, "bot_seats": 1, "bot_kind": "greedy"}, format="json")
    greedy_seats = host.get(f"/api/games/{greedy.json()['id']}/").json()["seats"]
    assert [s["bot"] for s in greedy_seats] == [None, "greedy"]

    lobby = host.post("/api/games/", {"players": 3}, format="json").json()["id"]
    unknown = host.post(f"/api/games/{lobby}/bots/", {"kind": "clever"}, format="json")
    assert unknown.status_code == 400 and "clever" in unknown.json()["detail"]
    assert Seat.objects.filter(game_id=lobby).count() == 1
    filled = host.post(f"/api/games/{lobby}/bots/", {}, format="json")
    assert filled.status_code == 200 and filled.json()["added"] == 2
    assert [s["bot"] for s in filled.json()["game"]["seats"]] == [None, "strong", "strong"]


def test_leave_and_abort(users: list[User], client_for: ClientFor) -> None:
    host, guest = client_for(users[0]), client_for(users[1])
    game_id = host.post("/api/games/", {"players": 3}, format="json").json()["id"]
    guest.post(f"/api/games/{game_id}/join/")
    left = guest.post(f"/api/games/{game_id}/leave/")
    assert left.status_code == 200 and [s["user"] for s in left.json()["seats"]] == ["player0"]
    assert host.post(f"/api/games/{game_id}/leave/").json()["error"] == "invalid"
    assert guest.post(f"/api/games/{game_id}/abort/").status_code == 403
    aborted = host.post(f"/api/games/{game_id}/abort/")
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert host.post(f"/api/games/{game_id}/abort/").json()["error"] == "conflict"


def test_your_games_list_your_move_first(users: list[User], client_for: ClientFor) -> None:
    waiting = started_game(users)
    others = started_game([users[1], users[0], users[2]])
    for game in (waiting, others):
        game.refresh_from_db()
    mover = Seat.objects.get(game=waiting, position=waiting.to_act[0]).user
    assert mover is not None
    body = client_for(mover).get("/api/games/").json()
    flags = [g["your_turn"] for g in body["mine"]]
    assert flags[0] is True and flags == sorted(flags, reverse=True)
    assert {g["id"] for g in body["mine"]} == {waiting.pk, others.pk}


def test_private_games_are_404_for_outsiders_and_cannot_be_joined(
    users: list[User], client_for: ClientFor, anonymous: APIClient
) -> None:
    host, outsider = client_for(users[0]), client_for(users[2])
    game_id = host.post("/api/games/", {"players": 3, "public": False}, format="json").json()["id"]
    assert host.get(f"/api/games/{game_id}/").status_code == 200
    for client in (outsider, anonymous):
        response = client.get(f"/api/games/{game_id}/")
        assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert outsider.post(f"/api/games/{game_id}/join/").status_code == 404
    assert all(g["id"] != game_id for g in outsider.get("/api/games/").json()["open"])
    assert Seat.objects.filter(game_id=game_id).count() == 1


def test_fixed_deal_options_show_in_detail(users: list[User], client_for: ClientFor) -> None:
    host = client_for(users[0])
    body = {"players": 3, "options": {"first_seat": 2}, "public": False}
    created = host.post("/api/games/", body, format="json")
    game_id = created.json()["id"]
    detail = host.get(f"/api/games/{game_id}/").json()
    assert detail["fixed_deal"] is True and detail["fixed_deal_options"] == ["first_seat"]
    assert Game.objects.get(pk=game_id).fixed_deal


def test_anonymous_cannot_write(anonymous: APIClient) -> None:
    response = anonymous.post("/api/games/", {"players": 3}, format="json")
    assert response.status_code == 401
    assert response.json()["error"] == "not_authenticated"
    assert anonymous.get("/api/games/").json() == {"mine": [], "open": [], "page": 1, "next_page": None}
