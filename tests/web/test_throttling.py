"""Throttling on the web pages: password guessing on the log-in form, log-in
link and password-reset requests, game creation and invitations. Every refusal is a 429 page
with Retry-After.

With REDIS_URL set the counts live in Redis (settings.CACHES); run these both ways.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core import mail
from django.test import Client
from pytest_django import Settings

from games import services
from games.models import Game, Invitation
from tests.throttle_support import retry_after, set_rates
from tests.web.helpers import PASSWORD, make_user

pytestmark = pytest.mark.django_db

NEW_GAME = {
    "rules": "pirates",
    "players": "3",
    "bot_seats": "0",
    "bot_kind": "greedy",
    "move_time": "24h",
    "timeout_policy": "pass",
    "is_public": "on",
}


def log_in(client: Client, password: str, address: str = "10.0.0.1", username: str = "anne") -> int:
    response = client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return response.status_code


def test_100_wrong_passwords_then_the_right_one_is_refused(client: Client, settings: Settings) -> None:
    """The issue's finding: 100 wrong passwords, then the right one, all went through."""
    set_rates(settings, login=None)  # the lock-out alone, not the per-address rate
    make_user("anne")
    codes = [log_in(client, f"guess-{i}") for i in range(100)]
    assert codes[:4] == [200] * 4  # the form again, with its error
    assert set(codes[4:]) == {429}  # the fifth failure locks the door
    response = client.post(
        "/accounts/login/", {"username": "anne", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1"
    )
    assert 14 * 60 < retry_after(response) <= 15 * 60
    assert b"Too many failed log-ins" in response.content
    assert "_auth_user_id" not in client.session
    # Failures while locked out are not recorded: the count and the cool-off stay put.
    assert AccessAttempt.objects.get(username="anne").failures_since_start == 5

    # The real Anne, from her own address, is not locked out by the guesser.
    own = Client()
    assert (
        own.post(
            "/accounts/login/", {"username": "anne", "password": PASSWORD}, REMOTE_ADDR="10.0.0.2"
        ).status_code
        == 302
    )

    # After the cool-off the right password works again from the guesser's address too.
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    assert log_in(client, PASSWORD) == 302


def test_changing_user_agent_does_not_escape_the_lock_out(client: Client, settings: Settings) -> None:
    set_rates(settings, login=None)
    make_user("anne")
    codes = [
        client.post(
            "/accounts/login/",
            {"username": "anne", "password": f"guess-{i}"},
            REMOTE_ADDR="10.0.0.1",
            HTTP_USER_AGENT=f"bot/{i}",
        ).status_code
        for i in range(6)
    ]
    assert codes == [200] * 4 + [429] * 2
    response = client.post(
        "/accounts/login/",
        {"username": "anne", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_USER_AGENT="x",
    )
    assert 14 * 60 < retry_after(response) <= 15 * 60
    # Once the oldest failures age out the count is under the limit again.
    oldest = AccessAttempt.objects.order_by("attempt_time").first()
    assert oldest is not None
    oldest.attempt_time -= timedelta(minutes=16)
    oldest.save()
    assert log_in(client, PASSWORD) == 302


def test_a_successful_log_in_clears_earlier_failures(client: Client, settings: Settings) -> None:
    set_rates(settings, login=None)
    make_user("anne")
    assert [log_in(client, "typo") for _ in range(4)] == [200] * 4
    assert log_in(client, PASSWORD) == 302
    client.post("/accounts/logout/")
    assert [log_in(client, "typo") for _ in range(4)] == [200] * 4


def test_log_in_attempts_per_address_are_limited_whatever_the_username(
    client: Client, settings: Settings
) -> None:
    """Spraying one password over many usernames from one address."""
    set_rates(settings, login="5/hour")
    codes = [log_in(client, "password1", username=f"user{i}") for i in range(6)]
    assert codes == [200] * 5 + [429]
    response = client.post("/accounts/login/", {"username": "x", "password": "y"}, REMOTE_ADDR="10.0.0.1")
    assert 3500 < retry_after(response) <= 3600
    assert response["Content-Type"].startswith("text/html") and b"Slow down" in response.content
    assert log_in(client, "password1", address="10.0.0.9") == 200  # another address has its own count
    assert client.get("/accounts/login/", REMOTE_ADDR="10.0.0.1").status_code == 200  # only POSTs count


def test_the_default_log_in_rate_stops_a_spray() -> None:
    client = Client()
    codes = [log_in(client, "password1", username=f"user{i}") for i in range(61)]
    assert codes[:60] == [200] * 60 and codes[60] == 429


def test_login_link_requests_are_limited_per_email_address(client: Client) -> None:
    make_user("anne")
    codes = [
        client.post(
            "/accounts/login-link/", {"email": "Anne@Example.test"}, REMOTE_ADDR=f"10.0.1.{i}"
        ).status_code
        for i in range(4)
    ]
    assert codes == [302, 302, 302, 429]  # from four addresses: the limit is the inbox's
    assert len(mail.outbox) == 3
    # A password reset to the same inbox draws on the same allowance.
    response = client.post(
        "/accounts/password_reset/", {"email": "anne@example.test"}, REMOTE_ADDR="10.0.1.9"
    )
    assert retry_after(response) <= 3600 and len(mail.outbox) == 3


def test_login_link_and_reset_requests_are_limited_per_address(client: Client) -> None:
    codes = []
    for i in range(6):
        codes.append(client.post("/accounts/login-link/", {"email": f"a{i}@example.test"}).status_code)
        codes.append(client.post("/accounts/password_reset/", {"email": f"b{i}@example.test"}).status_code)
    assert codes[:10] == [302] * 10 and codes[10:] == [429, 429]
    assert retry_after(client.post("/accounts/login-link/", {"email": "c@example.test"})) <= 3600
    assert (
        client.post("/accounts/login-link/", {"email": "c@example.test"}, REMOTE_ADDR="10.9.9.9").status_code
        == 302
    )


def test_game_creation_is_limited_per_account(client: Client) -> None:
    anne = make_user("anne")
    client.force_login(anne)
    codes = [client.post("/games/new/", {**NEW_GAME, "title": f"Game {i}"}).status_code for i in range(21)]
    assert codes == [302] * 20 + [429]
    assert Game.objects.filter(created_by=anne).count() == 20
    assert 3500 < retry_after(client.post("/games/new/", NEW_GAME)) <= 3600
    other = Client()
    other.force_login(make_user("bob"))
    assert other.post("/games/new/", NEW_GAME).status_code == 302


@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_an_address_is_invited_to_a_game_once(client: Client) -> None:
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    client.force_login(anne)
    client.post(f"/games/{game.pk}/invite/", {"emails": "bob@example.test"})
    response = client.post(
        f"/games/{game.pk}/invite/", {"emails": "BOB@example.test, cat@example.test"}, follow=True
    )
    assert b"Already invited to this game: bob@example.test" in response.content
    assert [m.to for m in mail.outbox] == [["bob@example.test"]]
    assert Invitation.objects.filter(game=game).count() == 1


@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_invitations_have_a_daily_cap_per_account(client: Client) -> None:
    """The issue's finding: five requests sent 50 emails."""
    anne = make_user("anne")
    client.force_login(anne)
    games = [services.game_create(creator=anne, rules_id="pirates", players=5) for _ in range(5)]
    codes = []
    for n, game in enumerate(games):
        emails = ", ".join(f"p{n}-{i}@example.test" for i in range(10))
        codes.append(client.post(f"/games/{game.pk}/invite/", {"emails": emails}).status_code)
    assert codes == [302, 302, 429, 429, 429]
    assert len(mail.outbox) == 20 and Invitation.objects.count() == 20
    response = client.post(f"/games/{games[4].pk}/invite/", {"emails": "one@example.test"})
    assert 23 * 3600 < retry_after(response) <= 24 * 3600
    assert b"20 invitations a day" in response.content
    # As the oldest invitations leave the 24-hour window, room opens up again.
    oldest = Invitation.objects.earliest("created_at").created_at
    Invitation.objects.update(created_at=oldest - timedelta(hours=25))
    assert client.post(f"/games/{games[4].pk}/invite/", {"emails": "one@example.test"}).status_code == 302


@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_invitation_requests_are_rate_limited(client: Client, settings: Settings) -> None:
    set_rates(settings, invitation="2/hour")
    anne = make_user("anne")
    game = services.game_create(creator=anne, rules_id="pirates", players=5)
    client.force_login(anne)
    codes = [
        client.post(f"/games/{game.pk}/invite/", {"emails": f"x{i}@example.test"}).status_code
        for i in range(3)
    ]
    assert codes == [302, 302, 429]
    assert len(mail.outbox) == 2
