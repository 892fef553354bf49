"""The table page's webhook settings: players add a hook with a small form (CSRF-protected
POST), see its secret once, and delete it; others see no form and change nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.models import Webhook
from tests.services.support import make_user, started_game

pytestmark = pytest.mark.django_db


def signed_in(user: User, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def test_a_player_adds_sees_the_secret_once_and_deletes(users: list[User]) -> None:
    game = started_game(users)
    client = signed_in(users[1])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="webhook-form"' in page and "No webhooks yet." in page
    response = client.post(f"/games/{game.pk}/webhooks/", {
        "url": "https://discord.com/api/webhooks/1/abc", "format": "discord", "events": ["turn", "chat"],
    })
    assert response.status_code == 302 and response["Location"].endswith(f"/games/{game.pk}/#webhooks")
    hook = Webhook.objects.get()
    assert hook.events == ["turn", "chat"] and hook.created_by == users[1]
    first = client.get(f"/games/{game.pk}/").content.decode()
    assert hook.secret in first and "discord.com/api/webhooks/1/abc" in first
    again = client.get(f"/games/{game.pk}/").content.decode()
    assert hook.secret not in again and "discord.com/api/webhooks/1/abc" in again
    # Another player of the game may delete it.
    response = signed_in(users[2]).post(f"/games/{game.pk}/webhooks/{hook.pk}/delete/")
    assert response.status_code == 302 and not Webhook.objects.exists()


def test_bad_input_and_outsiders_change_nothing(users: list[User]) -> None:
    game = started_game(users)
    client = signed_in(users[0])
    for data in (
        {"url": "ftp://x.example/", "format": "json"}, {"url": "https://x.example/", "format": "fax"},
        {"url": "https://x.example/", "format": "json", "events": ["lunch"]},
    ):
        response = client.post(f"/games/{game.pk}/webhooks/", data, follow=True)
        assert response.status_code == 200
        text = response.content.decode()
        assert any(word in text for word in ("must", "Unknown events"))
    outsider = signed_in(make_user("outsider"))
    assert 'id="webhook-form"' not in outsider.get(f"/games/{game.pk}/").content.decode()
    outsider.post(f"/games/{game.pk}/webhooks/", {"url": "https://x.example/", "format": "json"})
    assert not Webhook.objects.exists()
    anonymous = Client().post(f"/games/{game.pk}/webhooks/", {"url": "https://x.example/", "format": "json"})
    assert anonymous.status_code == 302
    assert not Webhook.objects.exists()


def test_the_form_needs_its_csrf_token(users: list[User]) -> None:
    game = started_game(users)
    client = signed_in(users[0], csrf=True)
    response = client.post(f"/games/{game.pk}/webhooks/", {"url": "https://x.example/", "format": "json"})
    assert response.status_code == 403 and not Webhook.objects.exists()
