"""The webhooks API and its refusals (each a clear error that changes nothing), and the
server-side request forgery guard: checked when a hook is saved and again at delivery, on
the address the host resolves to, with no request reaching a refused address."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from games import webhooks
from games.models import Webhook, WebhookDelivery
from games.services.webhooks import allowed_address
from tests.api.conftest import ClientFor
from tests.services.support import make_user, started_game
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db

HOOK = "https://discord.com/api/webhooks/1/token"


def post(client: APIClient, game_id: int, data: Any) -> Any:
    return client.post(f"/api/games/{game_id}/webhooks/", data, format="json")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"url": "ftp://example.com/x", "format": "json"}, "https://"),
        ({"url": "not a url", "format": "json"}, "url"),
        ({"url": "https://user:pw@example.com/x", "format": "json"}, "user name"),
        ({"url": HOOK, "format": "teams"}, "format"),
        ({"url": HOOK, "format": "json", "events": ["turn", "lunch"]}, "events"),
        ({"url": HOOK, "format": "json", "events": []}, "events"),
        ({"url": HOOK, "format": "json", "events": "turn"}, "events"),
        ({"url": HOOK, "format": "discord", "mentions": {"Anne": "@everyone"}}, "handle"),
        ({"url": HOOK, "format": "discord", "mentions": {"Anne": 5}}, "mentions"),
        ({"url": 5, "format": "json"}, "url"),
        ({"format": "json"}, "url"),
        ([HOOK], ""),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    users: list[User], client_for: ClientFor, body: Any, words: str
) -> None:
    game = started_game(users)
    response = post(client_for(users[0]), game.pk, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid" and words in response.json()["detail"]
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # http
        "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x", "https://box.internal/x",
        "https://10.1.2.3/x", "https://192.168.0.9/x", "https://169.254.169.254/latest/meta-data",
        "https://[::ffff:127.0.0.1]/x", "https://224.0.0.1/x", "https://0.0.0.0/x", "https://100.64.0.1/x",
        "https://intranet/x",
    ],
)
def test_production_refuses_insecure_and_private_urls_when_saved(
    users: list[User], client_for: ClientFor, settings: Any, url: str
) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    game = started_game(users)
    response = post(client_for(users[0]), game.pk, {"url": url, "format": "json"})
    assert response.status_code == 400, response.content
    assert "url" in response.json()["detail"]
    assert not Webhook.objects.exists()


def test_production_accepts_public_https(users: list[User], client_for: ClientFor, settings: Any) -> None:
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    game = started_game(users)
    for url in (HOOK, "https://hooks.slack.com/services/T0/B0/x", "https://93.184.216.34:8443/hook"):
        assert post(client_for(users[0]), game.pk, {"url": url, "format": "json"}).status_code == 201


def test_only_the_games_players_manage_its_hooks(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    private = started_game(users, public=False)
    outsider = client_for(make_user("outsider"))
    assert post(outsider, game.pk, {"url": HOOK, "format": "json"}).status_code == 403
    assert post(outsider, private.pk, {"url": HOOK, "format": "json"}).status_code == 404
    assert outsider.get(f"/api/games/{game.pk}/webhooks/").status_code == 403
    assert APIClient().get(f"/api/games/{game.pk}/webhooks/").status_code == 401
    assert post(client_for(users[0]), 999999, {"url": HOOK, "format": "json"}).status_code == 404
    assert not Webhook.objects.exists()
    hook = post(client_for(users[2]), game.pk, {"url": HOOK, "format": "json"}).json()
    assert outsider.delete(f"/api/games/{game.pk}/webhooks/{hook['id']}/").status_code == 403
    # Another game's hook is not found through this game, even by a player of both.
    assert client_for(users[0]).delete(f"/api/games/{private.pk}/webhooks/{hook['id']}/").status_code == 404
    assert Webhook.objects.count() == 1
    # Any player of the game may delete it.
    assert client_for(users[1]).delete(f"/api/games/{game.pk}/webhooks/{hook['id']}/").status_code == 204
    assert not Webhook.objects.exists()
    assert client_for(users[1]).delete(f"/api/games/{game.pk}/webhooks/{hook['id']}/").status_code == 404


def test_a_game_has_a_capped_number_of_hooks(users: list[User], client_for: ClientFor, settings: Any) -> None:
    settings.WEBHOOK_MAX_PER_GAME = 3
    game = started_game(users)
    for _ in range(3):
        assert post(client_for(users[0]), game.pk, {"url": HOOK, "format": "json"}).status_code == 201
    response = post(client_for(users[1]), game.pk, {"url": HOOK, "format": "slack"})
    assert response.status_code == 409 and "at most 3" in response.json()["detail"]
    assert Webhook.objects.count() == 3


def test_the_defaults_and_the_secret_is_shown_once(users: list[User], client_for: ClientFor) -> None:
    game = started_game(users)
    made = post(client_for(users[0]), game.pk, {"url": HOOK, "format": "discord"}).json()
    assert made["events"] == ["turn", "game_started", "game_finished"] and len(made["secret"]) == 64
    listed = client_for(users[1]).get(f"/api/games/{game.pk}/webhooks/").json()["webhooks"]
    assert made["secret"] not in str(listed)


def test_delivery_checks_the_address_again_and_sends_nothing_to_a_refused_one(
    users: list[User], client_for: ClientFor, receiver: Receiver, settings: Any, move: Any
) -> None:
    """Saved in development (loopback allowed); in production that hook, and a public-looking
    name that resolves to loopback (DNS rebinding), are refused at delivery: nothing
    reaches the receiver, the delivery is failed at once (not retried), and it counts."""
    game = started_game(users)
    port = receiver.url.split(":")[2].split("/")[0]
    post(client_for(users[0]), game.pk, {"url": receiver.url, "format": "json", "events": ["move"]})
    real_getaddrinfo = socket.getaddrinfo

    def rebinding(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "rebound.example.com":
            return real_getaddrinfo("127.0.0.1", *args, **kwargs)
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(webhooks.socket, "getaddrinfo", rebinding)
        move(game, 1)  # development: delivered
        assert len(receiver.requests) == 1
        settings.WEBHOOK_ALLOW_LOOPBACK = False
        # A public-looking https name passes when saved; at delivery it resolves to loopback.
        rebound = {"url": f"https://rebound.example.com:{port}/hook/", "format": "json", "events": ["move"]}
        assert post(client_for(users[0]), game.pk, rebound).status_code == 201
        for seed in (2, 3, 4):
            move(game, seed)
    assert len(receiver.requests) == 1
    refused = WebhookDelivery.objects.filter(status=WebhookDelivery.Status.FAILED)
    assert refused.count() == 6 and all(d.attempts == 1 for d in refused)
    errors = sorted(Webhook.objects.values_list("last_error", flat=True))
    assert "not public (127.0.0.1)" in errors[0] and errors[1].startswith("refused: `url` must use https")
    assert all(hook.failures == 3 for hook in Webhook.objects.all())


@pytest.mark.parametrize(
    ("address", "public"),
    [("8.8.8.8", True), ("2606:4700:4700::1111", True), ("127.0.0.1", False), ("::1", False),
     ("10.0.0.1", False), ("172.16.5.4", False), ("192.168.1.1", False), ("169.254.1.1", False),
     ("fe80::1", False), ("fc00::1", False), ("224.0.0.251", False), ("ff02::1", False),
     ("0.0.0.0", False), ("::", False), ("240.0.0.1", False), ("100.64.0.1", False),
     ("::ffff:10.0.0.1", False), ("::ffff:8.8.8.8", True)],
)
def test_which_addresses_production_may_reach(settings: Any, address: str, public: bool) -> None:
    import ipaddress

    settings.WEBHOOK_ALLOW_LOOPBACK = False
    assert allowed_address(ipaddress.ip_address(address)) is public


def test_a_chat_line_is_delivered(users: list[User], client_for: ClientFor, receiver: Receiver,
                                  django_capture_on_commit_callbacks: Any) -> None:
    from games import services

    game = started_game(users)
    post(client_for(users[0]), game.pk, {"url": receiver.url, "format": "json", "events": ["chat"]})
    lines = ["Ahoy!", "@everyone look <https://evil.example|here>", "**bold** move"]
    for text in lines:
        with django_capture_on_commit_callbacks(execute=True):
            services.chat_post(game=game, user=users[1], text=text)
    assert [b["message"] for b in receiver.bodies("chat")] == lines
    assert all(b["author"] == users[1].username for b in receiver.bodies())
