"""Private games stay private, on every path.

An uninvited user cannot join through any path (the check is in the join service, which the
web page's Join button and the API both call); a game the caller may not see answers exactly
as a missing one on every endpoint, web and API; events and responses name players by their
public user names, never by internal user ids.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.messages import get_messages
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.models import Event, Game, Seat
from tests.api.conftest import ClientFor
from tests.services.support import legal_for, make_user, play_to_end, started_game, user_to_act

pytestmark = pytest.mark.django_db


def private_lobby_game(creator: User) -> Game:
    return services.game_create(creator=creator, rules_id="pirates", players=3, is_public=False)


def missing_id() -> int:
    return (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000


def test_web_join_button_cannot_seat_an_uninvited_user_in_a_private_game(users: list[User]) -> None:
    game = private_lobby_game(users[0])
    stranger = Client()
    stranger.force_login(users[1])
    response = stranger.post(f"/games/{game.pk}/join/")
    assert response.status_code == 404
    assert not Seat.objects.filter(game=game, user=users[1]).exists()


def test_join_service_refuses_a_private_game_as_if_it_were_missing(users: list[User]) -> None:
    game = private_lobby_game(users[0])
    with pytest.raises(services.NotFound) as private:
        services.seat_join(game_id=game.pk, user=users[1])
    gone = missing_id()
    with pytest.raises(services.NotFound) as missing:
        services.seat_join(game_id=gone, user=users[1])
    assert private.value.detail.replace(str(game.pk), "N") == missing.value.detail.replace(str(gone), "N")
    assert Seat.objects.filter(game=game).count() == 1


def test_an_invitation_still_seats_its_holder_in_a_private_game(users: list[User]) -> None:
    game = private_lobby_game(users[0])
    (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[users[1].email])
    seat = services.invitation_accept(token=invitation.token, user=users[1])
    assert seat.game_id == game.pk and seat.user_id == users[1].pk
    # Seated now, the player sees the game and may leave it like any other.
    services.seat_leave(game_id=game.pk, user=users[1])


def _normalised(response: Any, game_id: int) -> tuple[int, str]:
    """Status and body (or redirect target and flashed messages) with the game id blanked out."""
    if response.status_code in (301, 302):
        messages = " | ".join(str(m) for m in get_messages(response.wsgi_request))
        text = f"{response['Location']} {messages}"
    else:
        text = response.content.decode(errors="replace")
    return response.status_code, re.sub(rf"\b{game_id}\b", "N", text)


API_GETS = (
    "/api/games/{id}/",
    "/api/games/{id}/events/",
    "/api/games/{id}/replay/1/",
    "/api/games/{id}/export/",
    "/api/games/{id}/chat/",
    "/api/games/{id}/invitations/",
)
API_POSTS = (
    "/api/games/{id}/join/",
    "/api/games/{id}/leave/",
    "/api/games/{id}/bots/",
    "/api/games/{id}/start/",
    "/api/games/{id}/abort/",
    "/api/games/{id}/resign/",
)
# The endpoints that read a body, each with a valid one: only the game's privacy refuses them.
API_BODY_POSTS: dict[str, dict[str, Any]] = {
    "/api/games/{id}/actions/": {"action": {"type": "pass"}},
    "/api/games/{id}/invitations/": {"emails": ["x@example.test"]},
    "/api/games/{id}/chat/": {"text": "ahoy"},
    "/api/games/{id}/take-back/": {},
}
WEB_GETS = ("/games/{id}/", "/games/{id}/live/", "/games/{id}/replay/", "/games/{id}/replay/1/")
WEB_POSTS = (
    "/games/{id}/join/",
    "/games/{id}/leave/",
    "/games/{id}/fill/",
    "/games/{id}/start/",
    "/games/{id}/abort/",
    "/games/{id}/invite/",
    "/games/{id}/act/",
)


@pytest.mark.parametrize("phase", ["lobby", "running"])
def test_a_private_game_answers_like_a_missing_one_on_every_endpoint(
    users: list[User], client_for: ClientFor, phase: str
) -> None:
    game = private_lobby_game(users[0]) if phase == "lobby" else _private_running_game(users)
    gone = missing_id()
    outsider = make_user("outsider")
    api = client_for(outsider)
    web = Client()
    web.force_login(outsider)
    anonymous_web, anonymous_api = Client(), APIClient()
    for api_client in (api, anonymous_api):
        for path in API_GETS:
            seen = [_normalised(api_client.get(path.format(id=i)), i) for i in (game.pk, gone)]
            assert seen[0] == seen[1], (path, seen)
    for path in (*API_POSTS, *API_BODY_POSTS):
        body = API_BODY_POSTS.get(path, {})
        if path.endswith(("/actions/", "/take-back/")):
            body = {**body, "expected_seq": game.seq}
        seen = [_normalised(api.post(path.format(id=i), body, format="json"), i) for i in (game.pk, gone)]
        assert seen[0] == seen[1] and seen[0][0] == 404, (path, seen)
    for client in (web, anonymous_web):
        for path in WEB_GETS:
            seen = [_normalised(client.get(path.format(id=i)), i) for i in (game.pk, gone)]
            assert seen[0] == seen[1], (path, seen)
    form = {"action": '{"type": "pass"}', "expected_seq": str(game.seq), "emails": "x@example.test"}
    for path in WEB_POSTS:
        seen = [_normalised(web.post(path.format(id=i), form), i) for i in (game.pk, gone)]
        assert seen[0] == seen[1], (path, seen)
    assert not Seat.objects.filter(user=outsider).exists()


def _private_running_game(users: list[User]) -> Game:
    game = services.game_create(creator=users[0], rules_id="pirates", players=3, is_public=False)
    for user in users[1:]:
        (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
        services.invitation_accept(token=invitation.token, user=user)
    return services.game_start(game_id=game.pk, by=users[0])


def test_events_and_responses_carry_no_internal_user_ids(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    mover = user_to_act(game)
    posted = client_for(mover).post(
        f"/api/games/{game.pk}/actions/",
        {"action": legal_for(game, game.to_act[0])[0], "expected_seq": game.seq},
        format="json",
    )
    assert posted.status_code == 201
    assert posted.json()["event"]["actor"] == f"user:{mover.get_username()}"
    events = client_for(users[0]).get(f"/api/games/{game.pk}/events/").json()
    assert events[0]["actor"] == f"user:{users[0].get_username()}"  # who started the game
    assert Event.objects.filter(game=game, actor=f"user:{mover.pk}").exists()  # stored by id
    finished = play_to_end(game)
    bodies = [
        posted.content.decode(),
        client_for(users[0]).get(f"/api/games/{game.pk}/events/").content.decode(),
        client_for(users[0]).get(f"/api/games/{game.pk}/").content.decode(),
        client_for(users[0]).get(f"/api/games/{finished.pk}/export/").content.decode(),
        client_for(users[0]).get("/api/games/").content.decode(),
    ]
    for body in bodies:
        for user in users:
            assert f"user:{user.pk}" not in body.replace(f"user:{user.get_username()}", "")
        assert not re.search(r'"(user_id|created_by_id|actor_id)"', body)
