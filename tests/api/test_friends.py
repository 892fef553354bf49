"""The API of rematches and crews: the same services as the site, errors as JSON."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games.models import Crew, CrewInvitation, Game, Rematch, Seat
from tests.api.conftest import ClientFor
from tests.services.friends_support import finished_game
from tests.services.support import make_user

pytestmark = pytest.mark.django_db


def test_rematch_made_then_joined_then_started(users: list[User], client_for: ClientFor) -> None:
    anne, bart, _ = users
    old = finished_game([anne, bart])
    response = client_for(anne).post(f"/api/games/{old.pk}/rematch/")
    assert response.status_code == 201, response.content
    new_id = response.json()["id"]
    assert response.json()["status"] == "lobby"
    again = client_for(anne).post(f"/api/games/{old.pk}/rematch/")
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    joined = client_for(bart).post(f"/api/games/{old.pk}/rematch/")
    assert joined.status_code == 200 and joined.json() == {"id": new_id, "status": "active"}
    assert Rematch.objects.count() == 1


def test_rematch_and_answer_errors(users: list[User], client_for: ClientFor, anonymous: APIClient) -> None:
    anne, bart, cora = users
    old = finished_game([anne, bart])
    assert anonymous.post(f"/api/games/{old.pk}/rematch/").status_code == 401
    outsider = client_for(cora).post(f"/api/games/{old.pk}/rematch/")
    assert outsider.status_code == 403 and "Only the people who played" in outsider.json()["detail"]
    assert client_for(anne).post("/api/games/987654/rematch/").status_code == 404
    new_id = client_for(anne).post(f"/api/games/{old.pk}/rematch/").json()["id"]
    bad = client_for(bart).post(f"/api/games/{new_id}/answer/", {"answer": "maybe"}, format="json")
    assert bad.status_code == 400
    extra = client_for(bart).post(f"/api/games/{new_id}/answer/", {"answer": "in", "seat": 0}, format="json")
    assert extra.status_code == 400
    assert (
        client_for(cora).post(f"/api/games/{new_id}/answer/", {"answer": "in"}, format="json").status_code
        == 403
    )
    out = client_for(bart).post(f"/api/games/{new_id}/answer/", {"answer": "out"}, format="json")
    assert out.status_code == 200 and out.json()["status"] == "lobby"
    assert not Seat.objects.filter(game_id=new_id, user=bart).exists()
    back = client_for(bart).post(f"/api/games/{new_id}/answer/", {"answer": "in"}, format="json")
    assert back.status_code == 200 and back.json()["status"] == "active"


def test_crew_create_invite_and_read(users: list[User], client_for: ClientFor) -> None:
    anne, bart, cora = users
    made = client_for(anne).post("/api/crews/", {"name": "Black Gulls"}, format="json")
    assert made.status_code == 201
    crew_id = made.json()["id"]
    invited = client_for(anne).post(
        f"/api/crews/{crew_id}/invitations/", {"emails": [bart.email, "new@example.net"]}, format="json"
    )
    assert invited.status_code == 201 and invited.json() == {"invited": [bart.email, "new@example.net"]}
    from games.services.crews import crew_invitation_accept

    crew_invitation_accept(token=CrewInvitation.objects.get(email=bart.email).token, user=bart)
    detail = client_for(bart).get(f"/api/crews/{crew_id}/")
    assert detail.status_code == 200
    body = detail.json()
    assert body["name"] == "Black Gulls" and [m["id"] for m in body["members"]] == [anne.pk, bart.pk]
    assert body["games"] == [] and body["standings"] == []
    game = client_for(bart).post(f"/api/crews/{crew_id}/games/", {"rules": "libertalia"}, format="json")
    assert game.status_code == 201 and game.json()["status"] == "lobby"
    assert [g["id"] for g in client_for(anne).get(f"/api/crews/{crew_id}/").json()["games"]] == [
        game.json()["id"]
    ]
    assert client_for(anne).get("/api/crews/").json() == {"crews": [{"id": crew_id, "name": "Black Gulls"}]}
    # Not a member: no such crew.
    assert client_for(cora).get(f"/api/crews/{crew_id}/").status_code == 404
    assert (
        client_for(cora)
        .post(f"/api/crews/{crew_id}/invitations/", {"emails": ["x@example.com"]}, format="json")
        .status_code
        == 404
    )


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 61},
        {"name": 7},
        {"name": "ok", "extra": 1},
        {"name": "a\x07b"},
    ],
)
def test_bad_crew_names_are_400_and_change_nothing(body: dict[str, object], client_for: ClientFor) -> None:
    response = client_for(make_user("anne")).post("/api/crews/", body, format="json")
    assert response.status_code == 400 and response.json()["error"] == "invalid"
    assert Crew.objects.count() == 0


def test_too_many_invitations_at_once(users: list[User], client_for: ClientFor) -> None:
    anne = users[0]
    crew_id = client_for(anne).post("/api/crews/", {"name": "Gulls"}, format="json").json()["id"]
    many = [f"p{i}@example.com" for i in range(500)]
    response = client_for(anne).post(f"/api/crews/{crew_id}/invitations/", {"emails": many}, format="json")
    assert response.status_code == 400
    assert CrewInvitation.objects.count() == 0
    assert Game.objects.count() == 0


def test_making_crews_counts_with_making_games(users: list[User], client_for: ClientFor) -> None:
    host = client_for(users[0])
    codes = [host.post("/api/crews/", {"name": f"Crew {i}"}, format="json").status_code for i in range(21)]
    assert codes == [201] * 20 + [429]
    assert host.post("/api/games/", {"players": 3}, format="json").status_code == 429
    assert Crew.objects.count() == 20
    assert host.get("/api/crews/").status_code == 200  # reading is not counted
