"""The lobby, creating games, the lobby-phase buttons and invitations by email."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from games import services
from games.models import Game, Invitation, Seat
from tests.web.helpers import PASSWORD, make_user, started_game

pytestmark = pytest.mark.django_db
# Invitation emails leave through the outbox once the request's transaction commits; inside a
# test's transaction that is when django_capture_on_commit_callbacks(execute=True) ends.
OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]


def _path(url: str) -> str:
    return "/" + url.split("/", 3)[3]


def test_lobby_needs_login(client: Client) -> None:
    assert client.get("/games/")["Location"].startswith("/accounts/login/")
    assert client.get("/games/new/")["Location"].startswith("/accounts/login/")


def test_lobby_orders_your_move_first_and_lists_open_games(client: Client) -> None:
    anne, bob, cat, dan = (make_user(n) for n in ("anne", "bob", "cat", "dan"))
    running = started_game([anne, bob, cat])
    waiting = services.game_create(creator=anne, rules_id="pirates", players=3, title="Waiting one")
    open_game = services.game_create(creator=dan, rules_id="pirates", players=4, title="Dan's open game")
    client.force_login(anne)
    html = client.get("/games/").content.decode()
    assert html.index("Your move") < html.index(running.display_name) < html.index("Waiting one")
    assert "Dan&#x27;s open game" in html or "Dan's open game" in html
    assert html.index("Open games to join") < html.index("open game")
    client.force_login(bob)
    html = client.get("/games/").content.decode()
    assert running.display_name in html and "Your move</span>" not in html
    assert waiting.pk and open_game.pk


def test_create_game_with_invitations(client: Client, django_capture_on_commit_callbacks: OnCommit) -> None:
    anne = make_user("anne")
    client.force_login(anne)
    assert client.get("/games/new/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/games/new/",
            {
                "title": "Tortuga",
                "rules": "pirates",
                "players": "4",
                "bot_seats": "1",
                "bot_kind": "greedy",
                "move_time": "24h",
                "timeout_policy": "pass",
                "is_public": "",
                "invite": "bob@example.test, cat@example.test",
            },
        )
    game = Game.objects.get(title="Tortuga")
    assert response["Location"] == f"/games/{game.pk}/"
    assert (game.players, game.is_public, game.timeout_policy) == (4, False, "pass")
    assert game.move_time.total_seconds() == 24 * 3600
    assert Seat.objects.filter(game=game, bot="greedy").count() == 1
    assert sorted(Invitation.objects.filter(game=game).values_list("email", flat=True)) == [
        "bob@example.test",
        "cat@example.test",
    ]
    assert sorted(m.to[0] for m in mail.outbox) == ["bob@example.test", "cat@example.test"]


def test_create_game_refuses_bad_input(client: Client) -> None:
    client.force_login(make_user("anne"))
    response = client.post(
        "/games/new/",
        {
            "rules": "pirates",
            "players": "3",
            "bot_seats": "3",
            "bot_kind": "greedy",
            "move_time": "48h",
            "timeout_policy": "bot",
        },
    )
    assert response.status_code == 200 and b"Bot seats must be between" in response.content
    assert not Game.objects.exists()


def test_the_new_game_form_offers_three_bot_levels_strong_first_and_by_default(client: Client) -> None:
    client.force_login(make_user("anne"))
    page = client.get("/games/new/").content.decode()
    (select,) = re.findall(r'<select name="bot_kind"[^>]*>(.*?)</select>', page, re.S)
    options = re.findall(r'<option value="(\w+)"( selected)?>([^<]*)</option>', select)
    assert options == [("strong", " selected", "Strong bot"), ("greedy", "", "Greedy bot"),
                       ("random", "", "Random bot")]


def test_an_unknown_bot_level_is_a_form_error_and_makes_no_game(client: Client) -> None:
    client.force_login(make_user("anne"))
    form = {"rules": "pirates", "players": "3", "bot_seats": "2", "bot_kind": "clever",
            "move_time": "48h", "timeout_policy": "bot"}
    response = client.post("/games/new/", form)
    assert response.status_code == 200
    assert b"Select a valid choice. clever is not one of the available choices." in response.content
    assert not Game.objects.exists()


def test_two_bots_of_one_level_are_numbered_in_the_lobby_and_at_the_table(client: Client) -> None:
    anne = make_user("anne")
    client.force_login(anne)
    form = {"title": "Two strong", "rules": "pirates", "players": "3", "bot_seats": "2",
            "bot_kind": "strong", "move_time": "48h", "timeout_policy": "bot"}
    client.post("/games/new/", form)
    game = Game.objects.get(title="Two strong")
    assert list(Seat.objects.filter(game=game).values_list("bot", flat=True)) == ["", "strong", "strong"]
    for page in (client.get(f"/games/{game.pk}/"), client.get("/games/")):
        html = page.content.decode()
        assert "Strong bot 1" in html and "Strong bot 2" in html and "Strong bot 3" not in html


def test_fill_without_a_level_seats_strong_bots_and_an_unknown_level_changes_nothing(client: Client) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    client.force_login(anne)
    refused = client.post(f"/games/{game.pk}/fill/", {"kind": "clever"}, follow=True)
    assert b"Unknown bot &#x27;clever&#x27;; choose strong, greedy or random." in refused.content
    assert Seat.objects.filter(game=game).count() == 1
    client.post(f"/games/{game.pk}/fill/")
    assert list(Seat.objects.filter(game=game, user=None).values_list("bot", flat=True)) == ["strong"] * 2


def test_invitation_link_signup_then_join(
    client: Client, django_capture_on_commit_callbacks: OnCommit
) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3, is_public=False)
    with django_capture_on_commit_callbacks(execute=True):
        services.invitation_create(game_id=game.pk, by=anne, emails="newbie@example.test")
    link = re.search(r"https?://\S+/invite/\S+/", str(mail.outbox[0].body))
    assert link is not None
    invite_path = _path(link.group(0))
    response = client.get(invite_path)
    assert response.status_code == 302 and response["Location"] == f"/accounts/signup/?next={invite_path}"
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.test",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": invite_path,
        },
    )
    assert response["Location"] == invite_path
    # A new account has not verified its address: the invitation page says so and seats nobody.
    page = client.get(invite_path)
    assert page.status_code == 200 and b"Take my seat" not in page.content
    assert b"not verified yet" in page.content and b"Send the link again" in page.content
    assert client.post(invite_path).status_code == 403
    assert not Seat.objects.filter(game=game, user__username="newbie").exists()
    # The verification link (emailed at sign-up) leads back to the invitation.
    verify = re.search(r"https?://\S+/accounts/verify/\S+/", str(mail.outbox[-1].body))
    assert verify is not None and mail.outbox[-1].to == ["newbie@example.test"]
    assert client.get(_path(verify.group(0)))["Location"] == invite_path
    page = client.get(invite_path)
    assert page.status_code == 200 and b"Take my seat" in page.content
    assert client.post(invite_path)["Location"] == f"/games/{game.pk}/"
    assert Seat.objects.filter(game=game, user__username="newbie").exists()
    invitation = Invitation.objects.get(game=game)
    assert invitation.accepted_by is not None and invitation.accepted_by.get_username() == "newbie"
    # A second person cannot reuse the same invitation.
    other = Client()
    other.force_login(make_user("sneaky"))
    other.post(invite_path)
    assert not Seat.objects.filter(game=game, user__username="sneaky").exists()


def test_invalid_invitation_token(client: Client) -> None:
    response = client.get("/invite/nope/", follow=True)
    assert b"not valid" in response.content


def test_join_leave_fill_start_abort_buttons(client: Client) -> None:
    anne, bob = make_user("anne"), make_user("bob")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    client.force_login(bob)
    page = client.get(f"/games/{game.pk}/")
    assert b'id="join"' in page.content
    client.post(f"/games/{game.pk}/join/")
    assert Seat.objects.filter(game=game, user=bob).exists()
    # Only the creator starts, fills or aborts.
    response = client.post(f"/games/{game.pk}/start/", follow=True)
    assert b"Only the player who created the game" in response.content
    client.post(f"/games/{game.pk}/leave/")
    assert not Seat.objects.filter(game=game, user=bob).exists()
    client.force_login(anne)
    response = client.post(f"/games/{game.pk}/start/", follow=True)
    assert b"Waiting for 2 more players" in response.content
    client.post(f"/games/{game.pk}/fill/")
    client.post(f"/games/{game.pk}/start/")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    client.post(f"/games/{game.pk}/abort/")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED


def test_lobby_buttons_need_post_login_and_csrf() -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    anonymous = Client()
    assert anonymous.post(f"/games/{game.pk}/join/")["Location"].startswith("/accounts/login/")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(anne)
    assert strict.get(f"/games/{game.pk}/start/").status_code == 405
    assert strict.post(f"/games/{game.pk}/fill/").status_code == 403
    assert strict.post(f"/games/{game.pk}/invite/", {"emails": "x@example.test"}).status_code == 403


def test_invite_form_on_game_page(client: Client, django_capture_on_commit_callbacks: OnCommit) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    client.force_login(anne)
    assert b'id="invite-form"' in client.get(f"/games/{game.pk}/").content
    response = client.post(
        f"/games/{game.pk}/invite/", {"emails": "bob@example.test; not-an-email"}, follow=True
    )
    assert b"is not an email address" in response.content and not mail.outbox
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/games/{game.pk}/invite/", {"emails": "bob@example.test"})
    assert mail.outbox[0].to == ["bob@example.test"] and "/invite/" in mail.outbox[0].body


def test_private_game_hidden_from_strangers(client: Client) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3, is_public=False)
    client.force_login(make_user("stranger"))
    assert client.get(f"/games/{game.pk}/").status_code == 404
