"""Bad requests get a JSON error ``{"error", "detail"}`` and append nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import Event, Game, Seat
from tests.api.conftest import ClientFor
from tests.services.support import legal_for, make_user, started_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(users: list[User]) -> Game:
    return started_game(users)


def mover(game: Game) -> User:
    seat = Seat.objects.select_related("user").get(game=game, position=game.to_act[0])
    assert seat.user is not None
    return seat.user


def bystander(game: Game) -> User:
    seat = Seat.objects.select_related("user").exclude(position=game.to_act[0]).filter(game=game).first()
    assert seat is not None and seat.user is not None
    return seat.user


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code, body
    assert isinstance(body["detail"], str) and body["detail"]
    return dict(body)


def assert_nothing_appended(game: Game) -> None:
    seq = game.seq
    game.refresh_from_db()
    assert game.seq == seq
    assert Event.objects.filter(game=game).count() == seq


def test_malformed_json_body(game: Game, client_for: ClientFor) -> None:
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/", data='{"action": {"type": "pass"', content_type="application/json"
    )
    assert_error(response, 400, "malformed_json")
    assert_nothing_appended(game)


@pytest.mark.parametrize("action", [[], "pass", 3, None], ids=["list", "string", "number", "null"])
def test_action_must_be_an_object(game: Game, client_for: ClientFor, action: object) -> None:
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/", {"action": action, "expected_seq": game.seq}, format="json"
    )
    body = assert_error(response, 400, "invalid")
    assert body["detail"].startswith("action")
    assert_nothing_appended(game)


@pytest.mark.parametrize(
    "seq", ["1", True, 1.0, -1, None], ids=["string", "bool", "float", "negative", "null"]
)
def test_expected_seq_must_be_a_whole_number(game: Game, client_for: ClientFor, seq: object) -> None:
    action = legal_for(game, game.to_act[0])[0]
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/", {"action": action, "expected_seq": seq}, format="json"
    )
    body = assert_error(response, 400, "invalid")
    assert body["detail"].startswith("expected_seq")
    assert_nothing_appended(game)


def test_unknown_game_id(client_for: ClientFor, users: list[User]) -> None:
    client = client_for(users[0])
    for url in (
        "/api/games/999999/",
        "/api/games/999999/events/",
        "/api/games/999999/replay/1/",
        "/api/games/999999/export/",
    ):
        assert_error(client.get(url), 404, "not_found")
    assert_error(
        client.post(
            "/api/games/999999/actions/", {"action": {"type": "pass"}, "expected_seq": 1}, format="json"
        ),
        404,
        "not_found",
    )


def test_unknown_urls_and_methods_are_json_too(client_for: ClientFor, users: list[User]) -> None:
    client = client_for(users[0])
    assert_error(client.get("/api/nowhere/"), 404, "not_found")
    assert_error(client.get("/api/games/abc/"), 404, "not_found")
    assert_error(client.delete("/api/games/"), 405, "method_not_allowed")
    assert_error(
        client.post("/api/games/", "players=3", content_type="text/plain"), 415, "unsupported_media_type"
    )


def test_bad_token_is_401(anonymous: APIClient) -> None:
    anonymous.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    assert_error(anonymous.get("/api/games/"), 401, "authentication_failed")


def test_unknown_keys_in_action_are_illegal(game: Game, client_for: ClientFor) -> None:
    action = {**legal_for(game, game.to_act[0])[0], "seat": 2}
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/", {"action": action, "expected_seq": game.seq}, format="json"
    )
    body = assert_error(response, 400, "illegal_action")
    assert "seat" in body["detail"]
    assert_nothing_appended(game)


def test_unknown_top_level_keys_are_refused_so_a_seat_cannot_be_named(
    game: Game, client_for: ClientFor
) -> None:
    other = bystander(game)
    seat = Seat.objects.get(game=game, user=other).position
    response = client_for(other).post(
        f"/api/games/{game.pk}/actions/",
        {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq, "seat": game.to_act[0]},
        format="json",
    )
    assert_error(response, 400, "invalid")
    assert seat != game.to_act[0]
    assert_nothing_appended(game)


def test_acting_when_not_your_turn(game: Game, client_for: ClientFor) -> None:
    response = client_for(bystander(game)).post(
        f"/api/games/{game.pk}/actions/",
        {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq},
        format="json",
    )
    body = assert_error(response, 400, "illegal_action")
    assert "not your turn" in body["detail"]
    assert_nothing_appended(game)


def test_moving_another_seats_pirates(game: Game, client_for: ClientFor) -> None:
    position = game.to_act[0]
    other_seat = (position + 1) % game.players
    forged = {"type": "assemble", "party": f"{other_seat}.2", "onto": f"{other_seat}.3"}
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/", {"action": forged, "expected_seq": game.seq}, format="json"
    )
    assert_error(response, 400, "illegal_action")
    assert_nothing_appended(game)


def test_player_without_a_seat_is_403(game: Game, client_for: ClientFor) -> None:
    response = client_for(make_user("outsider")).post(
        f"/api/games/{game.pk}/actions/",
        {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq},
        format="json",
    )
    assert_error(response, 403, "forbidden")
    assert_nothing_appended(game)


def test_stale_seq_is_409_with_the_current_seq(game: Game, client_for: ClientFor) -> None:
    response = client_for(mover(game)).post(
        f"/api/games/{game.pk}/actions/",
        {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq - 1},
        format="json",
    )
    body = assert_error(response, 409, "stale_seq")
    assert body["current_seq"] == game.seq
    assert_nothing_appended(game)


def test_another_users_idempotency_key_is_theirs_to_use(game: Game, client_for: ClientFor) -> None:
    """Keys are unique per player, so one player cannot squat another's."""
    first_mover = mover(game)
    action = legal_for(game, game.to_act[0])[0]
    first = client_for(first_mover).post(
        f"/api/games/{game.pk}/actions/",
        {"action": action, "expected_seq": game.seq, "idempotency_key": "shared-key"},
        format="json",
    )
    assert first.status_code == 201
    game.refresh_from_db()
    other = mover(game)
    if other.pk == first_mover.pk:
        pytest.skip("the deal gave the same player two turns in a row")
    action = legal_for(game, game.to_act[0])[0]
    response = client_for(other).post(
        f"/api/games/{game.pk}/actions/",
        {"action": action, "expected_seq": game.seq, "idempotency_key": "shared-key"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["seq"] == game.seq + 1
    game.refresh_from_db()
    outsider = client_for(make_user("prober")).post(
        f"/api/games/{game.pk}/actions/",
        {"action": {"type": "pass"}, "expected_seq": game.seq, "idempotency_key": "shared-key"},
        format="json",
    )
    assert_error(outsider, 403, "forbidden")
    assert_nothing_appended(game)


def test_repeated_idempotency_key_returns_the_first_result(game: Game, client_for: ClientFor) -> None:
    client = client_for(mover(game))
    body = {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq, "idempotency_key": "k-1"}
    first = client.post(f"/api/games/{game.pk}/actions/", body, format="json")
    assert first.status_code == 201
    game.refresh_from_db()
    second = client.post(f"/api/games/{game.pk}/actions/", body, format="json")
    assert second.status_code == 200
    assert second.json()["seq"] == first.json()["seq"]
    assert second.json()["event"] == first.json()["event"]
    assert_nothing_appended(game)


@pytest.mark.parametrize("after", ["-1", "x", "1.5", ""], ids=["negative", "word", "fraction", "empty"])
def test_events_after_must_be_a_non_negative_whole_number(
    game: Game, client_for: ClientFor, after: str
) -> None:
    body = assert_error(
        client_for(mover(game)).get(f"/api/games/{game.pk}/events/", {"after": after}), 400, "invalid"
    )
    assert body["detail"].startswith("after")


def test_replay_seq_out_of_range(game: Game, client_for: ClientFor) -> None:
    assert_error(client_for(mover(game)).get(f"/api/games/{game.pk}/replay/{game.seq + 5}/"), 400, "invalid")
    assert_error(client_for(mover(game)).get(f"/api/games/{game.pk}/replay/0/"), 400, "invalid")


def test_create_with_bad_fields(users: list[User], client_for: ClientFor) -> None:
    client = client_for(users[0])
    cases: list[tuple[dict[str, Any], str]] = [
        ({"players": 9}, "invalid"),
        ({"players": "3"}, "invalid"),
        ({"players": 3, "rules": "chess"}, "invalid"),
        ({"players": 3, "options": {"colour": "red"}}, "invalid"),
        ({"players": 3, "options": []}, "invalid"),
        ({"players": 3, "bot_seats": 3}, "invalid"),
        ({"players": 3, "move_hours": 0}, "invalid"),
        ({"players": 3, "timeout_policy": "sink"}, "invalid"),
        ({"players": 3, "public": "yes"}, "invalid"),
        ({"players": 3, "colour": "red"}, "invalid"),
    ]
    for payload, code in cases:
        assert_error(client.post("/api/games/", payload, format="json"), 400, code)
    assert not Game.objects.exists()
