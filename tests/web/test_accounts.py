"""Accounts: sign-up, log in/out, password reset, emailed log-in links and the profile page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.http import HttpRequest
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from games.models import PlayerProfile
from tests.web.helpers import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_signup_creates_account_profile_and_logs_in(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {
            "username": "anne",
            "display_name": "Anne Bonny",
            "email": "anne@example.test",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "/games/",
        },
    )
    assert response.status_code == 302 and response["Location"] == "/games/"
    user = get_user_model().objects.get(username="anne")
    assert user.email == "anne@example.test"
    assert PlayerProfile.objects.get(user=user).display_name == "Anne Bonny"
    assert client.get("/games/").status_code == 200


def test_signup_does_not_tell_whether_an_address_has_an_account() -> None:
    """Signing up with a taken address answers exactly as with a new one."""
    make_user("anne")
    answers = []
    for username, email in (("anne2", "ANNE@example.test"), ("mary", "mary@example.test")):
        response = Client().post(
            "/accounts/signup/",
            {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
        )
        answers.append((response.status_code, response.get("Location")))
    assert answers[0] == answers[1] == (302, "/games/")
    assert get_user_model().objects.filter(email__iexact="anne@example.test").count() == 2


def test_signup_refuses_all_digit_passwords(client: Client) -> None:
    """Django's NumericPasswordValidator is on."""
    response = client.post(
        "/accounts/signup/",
        {"username": "anne", "email": "anne@e.test", "password1": "4815162342", "password2": "4815162342"},
    )
    assert response.status_code == 200 and b"entirely numeric" in response.content
    assert not get_user_model().objects.filter(username="anne").exists()


def test_signup_refuses_offsite_next(client: Client) -> None:
    response = client.post(
        "/accounts/signup/",
        {
            "username": "mary",
            "email": "mary@example.test",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://evil.example/",
        },
    )
    assert response["Location"] == "/games/"


def test_login_and_logout(client: Client) -> None:
    make_user("anne")
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "anne", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/games/"
    page = client.get("/games/")
    assert b"Log out" in page.content
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/games/")["Location"].startswith("/accounts/login/")


def test_forms_require_csrf() -> None:
    anne = make_user("anne")
    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/accounts/login/", {"username": "anne", "password": PASSWORD}).status_code == 403
    assert strict.post("/accounts/signup/", {"username": "x"}).status_code == 403
    strict.force_login(anne)
    assert strict.post("/accounts/profile/", {"notify": "none"}).status_code == 403
    assert strict.post("/games/new/", {"rules": "pirates"}).status_code == 403


def test_password_reset_by_email(client: Client) -> None:
    make_user("anne")
    response = client.post("/accounts/password_reset/", {"email": "anne@example.test"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"http://\S+/accounts/reset/\S+/", str(mail.outbox[0].body))
    assert link is not None
    path = (
        link.group(0).split("testserver", 1)[-1]
        if "testserver" in link.group(0)
        else "/" + link.group(0).split("/", 3)[3]
    )
    page = client.get(path, follow=True)
    assert page.status_code == 200 and b"Choose a new password" in page.content
    response = client.post(
        page.redirect_chain[-1][0], {"new_password1": "new-pass-123!", "new_password2": "new-pass-123!"}
    )
    assert response.status_code == 302
    # django-axes checks every password against a request, as the log-in form passes one.
    assert client.login(request=HttpRequest(), username="anne", password="new-pass-123!")


def test_password_reset_link_is_built_from_site_url_not_the_host_header(
    client: Client, settings: Settings
) -> None:
    """A Host header of the asker's choosing never reaches the emailed link."""
    settings.SITE_URL = "https://pirates.example.org"
    settings.ALLOWED_HOSTS = ["*"]  # a proxy that passes any Host on
    make_user("anne")
    response = client.post(
        "/accounts/password_reset/", {"email": "anne@example.test"}, HTTP_HOST="evil.example", secure=False
    )
    assert response.status_code == 302
    (message,) = mail.outbox
    body = str(message.body)
    assert "evil.example" not in body and "evil.example" not in str(message.subject)
    assert re.search(r"https://pirates\.example\.org/accounts/reset/\S+/\S+/", body), body


def test_login_link_request_emails_a_link_that_logs_in(client: Client) -> None:
    make_user("anne")
    response = client.post("/accounts/login-link/", {"email": "anne@example.test"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    url = re.search(r"https?://\S+/l/\S+/", str(mail.outbox[0].body))
    assert url is not None
    path = "/" + url.group(0).split("/", 3)[3]
    assert client.get(path)["Location"] == "/games/"
    assert client.get("/games/").status_code == 200
    # Unknown addresses get the same answer and no email.
    other = Client()
    assert other.post("/accounts/login-link/", {"email": "nobody@example.test"}).status_code == 302
    assert len(mail.outbox) == 1


def test_profile_needs_login_and_saves_preferences(client: Client) -> None:
    assert client.get("/accounts/profile/")["Location"].startswith("/accounts/login/")
    user = make_user("anne")
    client.force_login(user)
    page = client.get("/accounts/profile/")
    assert page.status_code == 200 and b"Europe/Berlin" in page.content
    away = (timezone.now() + timedelta(days=3)).astimezone(timezone.get_default_timezone())
    response = client.post(
        "/accounts/profile/",
        {
            "display_name": "Calico",
            "notify": "daily_digest",
            "timezone": "Europe/Berlin",
            "away_until": away.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    assert response.status_code == 302
    profile = PlayerProfile.objects.get(user=user)
    assert (profile.display_name, profile.notify, profile.timezone) == (
        "Calico",
        "daily_digest",
        "Europe/Berlin",
    )
    assert profile.away_until is not None
    # Wall-clock time in the chosen zone: Berlin is 1-2 hours ahead of UTC.
    assert timedelta(hours=-3) < profile.away_until - away < timedelta(hours=0)


@pytest.mark.parametrize("days", [15, -1])
def test_profile_refuses_away_beyond_14_days_or_in_the_past(client: Client, days: int) -> None:
    user = make_user("anne")
    client.force_login(user)
    when = timezone.now() + timedelta(days=days)
    response = client.post(
        "/accounts/profile/",
        {
            "display_name": "",
            "notify": "each_turn",
            "timezone": "UTC",
            "away_until": when.strftime("%Y-%m-%dT%H:%M"),
        },
    )
    assert response.status_code == 200
    assert b"14 days" in response.content or b"future" in response.content
    assert PlayerProfile.objects.get(user=user).away_until is None


def test_profile_refuses_unknown_timezone(client: Client) -> None:
    client.force_login(make_user("anne"))
    response = client.post("/accounts/profile/", {"notify": "none", "timezone": "Mars/Olympus"})
    assert response.status_code == 200 and b"errorlist" in response.content
