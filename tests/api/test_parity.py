"""What the site can do, the API can too, through the same services and with the same limits:
invitations, table talk, taking a move back, resigning and the caller's preferences. Every
bad input gets a clear error and changes nothing."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone
from pytest_django import Settings

from games import services
from games.models import ChatMessage, Event, Game, Invitation, PlayerProfile, Seat
from games.services.chat import MAX_LENGTH
from tests.accounts import unverified_user
from tests.api.conftest import ClientFor
from tests.services.support import make_user, play_one, seat_user, started_game
from tests.throttle_support import retry_after, set_rates

pytestmark = pytest.mark.django_db


def private_lobby(creator: User, players: int = 3) -> Game:
    return services.game_create(creator=creator, rules_id="pirates", players=players, is_public=False)


def error_of(response: Any, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    return str(body["error"])


# ---- invitations ------------------------------------------------------------------------------


def test_invite_list_and_accept_seat_an_invitee_in_a_private_game(
    users: list[User], client_for: ClientFor, django_capture_on_commit_callbacks: Any
) -> None:
    game = private_lobby(users[0])
    creator, invitee = client_for(users[0]), client_for(users[1])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):  # the emails go out through the outbox
        response = creator.post(
            f"/api/games/{game.pk}/invitations/", {"emails": [users[1].email, users[2].email]}, format="json"
        )
    assert response.status_code == 201, response.json()
    assert [row["email"] for row in response.json()] == [users[1].email, users[2].email]
    assert all(row["invited_by"] == users[0].username for row in response.json())
    assert all(row["accepted_by"] is None for row in response.json())
    assert "token" not in response.content.decode()
    # One email each, through the outbox, carrying the link with the token.
    sent = {message.to[0]: message for message in mail.outbox}
    assert set(sent) == {users[1].email, users[2].email}
    token = Invitation.objects.get(game=game, email=users[1].email).token
    assert token in sent[users[1].email].body

    # Before accepting, the private game does not exist for the invitee.
    assert error_of(invitee.get(f"/api/games/{game.pk}/"), 404) == "not_found"
    accepted = invitee.post(f"/api/invitations/{token}/accept/")
    assert accepted.status_code == 200, accepted.json()
    assert users[1].username in [seat["user"] for seat in accepted.json()["seats"]]
    # Accepting again is harmless: still one seat.
    assert invitee.post(f"/api/invitations/{token}/accept/").status_code == 200
    assert Seat.objects.filter(game=game, user=users[1]).count() == 1

    listed = invitee.get(f"/api/games/{game.pk}/invitations/").json()
    assert {row["email"]: row["accepted_by"] for row in listed} == {
        users[1].email: users[1].username, users[2].email: None,
    }
    # Someone else cannot use the accepted invitation.
    stranger = make_user("stranger")
    assert error_of(client_for(stranger).post(f"/api/invitations/{token}/accept/"), 409) == "conflict"
    assert not Seat.objects.filter(user=stranger).exists()


def test_an_invitation_seats_only_an_account_that_verified_the_address(
    users: list[User], client_for: ClientFor
) -> None:
    game = private_lobby(users[0])
    pending = unverified_user("pending", "pending@example.com")
    (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[pending.email])
    answer = client_for(pending).post(f"/api/invitations/{invitation.token}/accept/")
    assert error_of(answer, 403) == "address_not_verified"
    # Someone else's verified account is refused too.
    assert error_of(client_for(users[2]).post(f"/api/invitations/{invitation.token}/accept/"), 403) == (
        "address_not_verified"
    )
    assert Seat.objects.filter(game=game).count() == 1
    invitation.refresh_from_db()
    assert invitation.accepted_by_id is None


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"emails": []}, 400, "invalid"),
        ({"emails": ["not-an-address"]}, 400, "invalid"),
        ({"emails": [f"p{i}@example.com" for i in range(11)]}, 400, "invalid"),
        ({"emails": "a@example.com"}, 400, "invalid"),
        ({"emails": [3]}, 400, "invalid"),
        ({"emails": ["a@example.com"], "extra": 1}, 400, "invalid"),
        ({}, 400, "invalid"),
    ],
)
def test_bad_invitations_are_refused_and_send_nothing(
    users: list[User], client_for: ClientFor, body: dict[str, Any], status: int, code: str
) -> None:
    game = private_lobby(users[0])
    mail.outbox.clear()
    response = client_for(users[0]).post(f"/api/games/{game.pk}/invitations/", body, format="json")
    assert error_of(response, status) == code
    assert not Invitation.objects.exists() and not mail.outbox


def test_invitations_keep_the_sites_rules(users: list[User], client_for: ClientFor) -> None:
    creator = client_for(users[0])
    game = private_lobby(users[0])
    url = f"/api/games/{game.pk}/invitations/"
    assert creator.post(url, {"emails": ["a@example.com"]}, format="json").status_code == 201
    # Each address once per game: the whole request is refused.
    again = creator.post(url, {"emails": ["b@example.com", "A@example.com"]}, format="json")
    assert error_of(again, 409) == "conflict" and "a@example.com" in again.json()["detail"]
    assert list(Invitation.objects.values_list("email", flat=True)) == ["a@example.com"]
    # Outsiders: a private game does not exist; a public one is the players' to invite to.
    stranger = client_for(make_user("stranger"))
    assert error_of(stranger.post(url, {"emails": ["c@example.com"]}, format="json"), 404) == "not_found"
    assert error_of(stranger.get(url), 404) == "not_found"
    public = services.game_create(creator=users[0], rules_id="pirates", players=3)
    public_url = f"/api/games/{public.pk}/invitations/"
    refused = stranger.post(public_url, {"emails": ["c@example.com"]}, format="json")
    assert error_of(refused, 403) == "forbidden"
    assert error_of(stranger.get(public_url), 403) == "forbidden"
    assert error_of(client_for(users[0]).get("/api/games/999999/invitations/"), 404) == "not_found"
    # Once running, nobody can be invited.
    running = started_game(users)
    late = creator.post(f"/api/games/{running.pk}/invitations/", {"emails": ["d@example.com"]}, format="json")
    assert error_of(late, 409) == "conflict"
    assert not Invitation.objects.filter(email__in=["c@example.com", "d@example.com"]).exists()
    # Unknown or malformed tokens name nothing.
    assert error_of(creator.post(f"/api/invitations/{'x' * 32}/accept/"), 404) == "not_found"
    assert error_of(creator.post("/api/invitations/not.a*token/accept/"), 404) == "not_found"


def test_invitations_are_throttled_like_the_sites(
    users: list[User], client_for: ClientFor, settings: Settings
) -> None:
    set_rates(settings, invitation="2/hour")
    game = private_lobby(users[0], players=5)
    creator = client_for(users[0])
    url = f"/api/games/{game.pk}/invitations/"
    for i in range(2):
        assert creator.post(url, {"emails": [f"p{i}@example.com"]}, format="json").status_code == 201
    refused = creator.post(url, {"emails": ["p9@example.com"]}, format="json")
    assert retry_after(refused) >= 1 and refused.json()["error"] == "throttled"
    assert Invitation.objects.count() == 2
    # Reading is not counted.
    assert creator.get(url).status_code == 200


def test_the_daily_cap_on_invitations_holds_through_the_api(
    users: list[User], client_for: ClientFor, settings: Settings
) -> None:
    settings.INVITATIONS_PER_DAY = 3
    game = private_lobby(users[0], players=5)
    creator = client_for(users[0])
    url = f"/api/games/{game.pk}/invitations/"
    assert creator.post(url, {"emails": ["a@example.com", "b@example.com"]}, format="json").status_code == 201
    over = creator.post(url, {"emails": ["c@example.com", "d@example.com"]}, format="json")
    assert retry_after(over) > 60 and over.json()["error"] == "throttled"
    assert Invitation.objects.count() == 2


# ---- chat -------------------------------------------------------------------------------------


def test_players_talk_and_whoever_sees_the_game_reads(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    url = f"/api/games/{game.pk}/chat/"
    posted = client_for(users[0]).post(url, {"text": "  Ahoy,\n  mates!  "}, format="json")
    assert posted.status_code == 201, posted.json()
    assert posted.json()["text"] == "Ahoy, mates!" and posted.json()["user"] == users[0].username
    client_for(users[1]).post(url, {"text": "Arr."}, format="json")
    for reader in (client_for(users[2]), client_for(make_user("watcher"))):
        lines = reader.get(url).json()
        assert [(line["user"], line["text"]) for line in lines] == [
            (users[0].username, "Ahoy, mates!"), (users[1].username, "Arr."),
        ]
    # A spectator of a public game reads but does not write.
    refused = client_for(make_user("heckler")).post(url, {"text": "boo"}, format="json")
    assert error_of(refused, 403) == "forbidden"
    assert ChatMessage.objects.filter(game=game).count() == 2


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"text": ""}, "invalid"),
        ({"text": "   \n "}, "invalid"),
        ({"text": "x" * (MAX_LENGTH + 1)}, "invalid"),
        ({"text": 5}, "invalid"),
        ({}, "invalid"),
        ({"text": "hi", "to": "all"}, "invalid"),
    ],
)
def test_bad_chat_lines_are_refused(
    users: list[User], client_for: ClientFor, body: dict[str, Any], code: str
) -> None:
    game = started_game(users)
    response = client_for(users[0]).post(f"/api/games/{game.pk}/chat/", body, format="json")
    assert error_of(response, 400) == code
    assert not ChatMessage.objects.exists()


def test_a_private_games_chat_is_for_its_players_only(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users, public=False)
    url = f"/api/games/{game.pk}/chat/"
    assert client_for(users[1]).post(url, {"text": "just us"}, format="json").status_code == 201
    assert [line["text"] for line in client_for(users[2]).get(url).json()] == ["just us"]
    stranger = client_for(make_user("stranger"))
    assert error_of(stranger.get(url), 404) == "not_found"
    assert error_of(stranger.post(url, {"text": "let me in"}, format="json"), 404) == "not_found"
    from rest_framework.test import APIClient

    assert error_of(APIClient().get(url), 404) == "not_found"
    assert ChatMessage.objects.count() == 1


def test_malformed_json_changes_nothing(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    client = client_for(users[0])
    for path in ("chat", "take-back", "invitations"):
        response = client.post(f"/api/games/{game.pk}/{path}/", "{not json", content_type="application/json")
        assert error_of(response, 400) == "malformed_json"
    response = client.patch("/api/me/", "{not json", content_type="application/json")
    assert error_of(response, 400) == "malformed_json"
    assert not ChatMessage.objects.exists() and Event.objects.filter(game=game).count() == game.seq


# ---- take-back and resign --------------------------------------------------------------------


def _play_until_takeable(game: Game) -> tuple[Game, User]:
    """Plays random moves until the last one may be taken back by its player."""
    rng = random.Random(5)
    for _ in range(300):
        submitted = play_one(game, rng)
        game.refresh_from_db()
        assert submitted.event.seat is not None
        seat = Seat.objects.get(game=game, position=submitted.event.seat)
        if game.is_running and services.take_back_check(game, submitted.event, seat).allowed:
            return game, seat_user(game, seat.position)
    raise AssertionError("no move that could be taken back came up")


def test_take_back_over_the_api(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    game, mover = _play_until_takeable(game)
    before = game.seq
    moved = Event.objects.get(game=game, seq=before)
    client = client_for(mover)
    response = client.post(f"/api/games/{game.pk}/take-back/", {"expected_seq": before}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["seq"] == before + 1 and body["event"]["kind"] == "take_back"
    # Their turn again, offered the same moves as before that one.
    assert body["game"]["to_act"] == [moved.seat] and body["game"]["moves"]
    assert moved.payload["action"] in [move["action"] for move in body["game"]["moves"]]
    # A second take-back: the game moved on (the take-back is the latest event): nothing happens.
    again = client.post(f"/api/games/{game.pk}/take-back/", {"expected_seq": before}, format="json")
    assert error_of(again, 409) == "stale_seq" and again.json()["current_seq"] == before + 1
    latest = client.post(f"/api/games/{game.pk}/take-back/", {"expected_seq": before + 1}, format="json")
    assert error_of(latest, 409) == "conflict"
    assert Event.objects.filter(game=game).count() == before + 1


def test_take_back_is_refused_when_not_allowed(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    game, mover = _play_until_takeable(game)
    others = [user for user in users if user != mover]
    # Someone else's move is not theirs to take back.
    other = client_for(others[0]).post(f"/api/games/{game.pk}/take-back/", {"expected_seq": game.seq},
                                       format="json")
    assert error_of(other, 409) == "conflict"
    stranger = client_for(make_user("stranger"))
    assert error_of(stranger.post(f"/api/games/{game.pk}/take-back/", {"expected_seq": game.seq},
                                  format="json"), 403) == "forbidden"
    for body in ({}, {"expected_seq": "1"}, {"expected_seq": -1}, {"expected_seq": True}):
        assert error_of(client_for(mover).post(f"/api/games/{game.pk}/take-back/", body, format="json"),
                        400) == "invalid"
    missing = client_for(mover).post("/api/games/999999/take-back/", {"expected_seq": 1}, format="json")
    assert error_of(missing, 404) == "not_found"
    assert Event.objects.filter(game=game).count() == game.seq


def test_resign_hands_the_seat_to_a_bot_once(
    users: list[User], client_for: ClientFor, settings: Settings
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    game = started_game(users)
    quitter = client_for(users[1])
    response = quitter.post(f"/api/games/{game.pk}/resign/")
    assert response.status_code == 201, response.json()
    assert response.json()["event"]["kind"] == "seat_to_bot"
    seat = Seat.objects.get(game=game, user=users[1])
    assert seat.replaced_by_bot
    detail = quitter.get(f"/api/games/{game.pk}/").json()
    assert detail["moves"] == [] and detail["legal_actions"] == []
    assert next(s for s in detail["seats"] if s["seat"] == seat.position)["bot"]
    count = Event.objects.filter(game=game).count()
    assert error_of(quitter.post(f"/api/games/{game.pk}/resign/"), 409) == "conflict"
    stranger = client_for(make_user("stranger"))
    assert error_of(stranger.post(f"/api/games/{game.pk}/resign/"), 403) == "forbidden"
    assert error_of(quitter.post("/api/games/999999/resign/"), 404) == "not_found"
    lobby = services.game_create(creator=users[0], rules_id="pirates", players=3)
    assert error_of(client_for(users[0]).post(f"/api/games/{lobby.pk}/resign/"), 409) == "conflict"
    assert Event.objects.filter(game=game).count() == count


# ---- /api/me/ ---------------------------------------------------------------------------------


def test_me_reads_and_changes_preferences(users: list[User], client_for: ClientFor) -> None:
    client = client_for(users[0])
    me = client.get("/api/me/").json()
    assert me == {
        "username": users[0].username, "email": users[0].email, "email_verified": True, "display_name": "",
        "timezone": "UTC", "notify": "when_away", "confirm_moves": True, "away_until": None,
    }
    away = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    changed = client.patch("/api/me/", {
        "display_name": "Anne Bonny", "timezone": "Europe/Paris", "notify": "daily_digest",
        "away_until": away.astimezone(timezone.get_fixed_timezone(60)).isoformat(),
    }, format="json")
    assert changed.status_code == 200, changed.json()
    profile = PlayerProfile.objects.get(user=users[0])
    assert profile.display_name == "Anne Bonny"
    assert (profile.timezone, profile.notify) == ("Europe/Paris", "daily_digest")
    assert profile.away_until == away
    # A PATCH changes only what it names.
    client.patch("/api/me/", {"confirm_moves": False}, format="json")
    profile.refresh_from_db()
    assert not profile.confirm_moves and profile.display_name == "Anne Bonny" and profile.away_until == away
    assert client.patch("/api/me/", {"away_until": None}, format="json").json()["away_until"] is None
    # The name shows where players are named.
    game = started_game(users)
    seats = client_for(users[1]).get(f"/api/games/{game.pk}/").json()["seats"]
    assert "Anne Bonny" in [seat["name"] for seat in seats]


@pytest.mark.parametrize(
    "body",
    [
        {"timezone": "Mars/Olympus_Mons"},
        {"timezone": 1},
        {"notify": "hourly"},
        {"notify": True},
        {"display_name": "x" * 41},
        {"confirm_moves": "yes"},
        {"away_until": "2020-01-01T00:00:00+00:00"},
        {"away_until": "2999-01-01T00:00:00+00:00"},
        {"away_until": "2030-01-01T12:00:00"},
        {"away_until": "tomorrow"},
        {"away_until": 12},
        {"email": "new@example.com"},
        {"username": "root"},
    ],
)
def test_bad_preferences_change_nothing(
    users: list[User], client_for: ClientFor, body: dict[str, Any]
) -> None:
    client = client_for(users[0])
    client.patch("/api/me/", {"display_name": "Before", "timezone": "Asia/Tokyo"}, format="json")
    snapshot = client.get("/api/me/").json()
    assert error_of(client.patch("/api/me/", body, format="json"), 400) == "invalid"
    assert client.get("/api/me/").json() == snapshot


def test_me_needs_an_account(anonymous: Any) -> None:
    assert error_of(anonymous.get("/api/me/"), 401) == "not_authenticated"
    refused = anonymous.patch("/api/me/", {"timezone": "UTC"}, format="json")
    assert error_of(refused, 401) == "not_authenticated"
