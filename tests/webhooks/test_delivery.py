"""Deliveries to a real HTTP receiver on 127.0.0.1: signed JSON, one delivery id per event
kept across retries after 500s and timeouts, never delivered twice, disabled after repeated
failures with one email to whoever set the hook up."""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail

from games import tasks, webhooks
from games.models import Game, Outbox, Webhook, WebhookDelivery
from tests.api.conftest import ClientFor
from tests.services.support import seat_user, started_game
from tests.webhooks.receiver import HANG, Receiver

pytestmark = pytest.mark.django_db


def add_hook(client_for: ClientFor, user: User, game: Game, url: str, **fields: Any) -> dict[str, Any]:
    response = client_for(user).post(
        f"/api/games/{game.pk}/webhooks/", {"url": url, "format": "json", **fields}, format="json"
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def test_a_move_is_delivered_signed_with_the_secret_shown_once(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    game = started_game(users)
    hook = add_hook(client_for, users[1], game, receiver.url, events=["move", "turn"])
    assert len(hook["secret"]) == 64
    listed = client_for(users[0]).get(f"/api/games/{game.pk}/webhooks/").json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]

    move(game, 1)

    game.refresh_from_db()
    assert [r.headers["x-pirates-event"] for r in receiver.requests] == ["move", "turn"]
    for request in receiver.requests:
        expected = "sha256=" + hmac.new(hook["secret"].encode(), request.body, hashlib.sha256).hexdigest()
        assert request.headers["x-pirates-signature"] == expected
        assert request.headers["content-type"] == "application/json"
        assert request.json["delivery_id"] == request.headers["x-pirates-delivery"]
        assert request.json["game"] == {
            "id": game.pk, "title": game.display_name, "rules": "pirates",
            "url": f"https://pirates.example/games/{game.pk}/",
        }
    moved, turn = receiver.bodies()
    assert moved["event"] == "move" and moved["seq"] == game.seq and moved["text"]
    to_act = seat_user(game, game.to_act[0]).username
    assert turn["to_act"] == [to_act] and turn["text"] == f"Waiting for {to_act}"
    # A tampered body does not match the signature.
    forged = receiver.requests[0].body.replace(b"move", b"mave")
    assert receiver.requests[0].headers["x-pirates-signature"] != (
        "sha256=" + hmac.new(hook["secret"].encode(), forged, hashlib.sha256).hexdigest()
    )


def test_500s_are_retried_with_the_same_delivery_id_and_delivered_once(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    game = started_game(users)
    add_hook(client_for, users[0], game, receiver.url, events=["move"])
    for round_ in range(3):
        receiver.requests.clear()
        receiver.script = [500, 503, 502]
        move(game, round_)
        assert len(receiver.requests) == 4  # three failures, then the 204
        ids = {r.headers["x-pirates-delivery"] for r in receiver.requests}
        assert len(ids) == 1
        delivery = WebhookDelivery.objects.get(delivery_id=ids.pop())
        assert delivery.status == WebhookDelivery.Status.DELIVERED and delivery.attempts == 4
        assert Webhook.objects.get().failures == 0  # a success ends the run of failures
    game.refresh_from_db()
    # Run again by hand (a relay's duplicate): nothing is delivered twice.
    receiver.requests.clear()
    tasks.deliver_webhooks.apply(args=(game.pk, game.seq, game.seq - 1)).get()
    assert receiver.requests == []
    assert Outbox.objects.filter(kind=Outbox.Kind.WEBHOOK, status=Outbox.Status.PENDING).count() == 0


def test_timeouts_are_retried_with_the_same_delivery_id(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    game = started_game(users)
    add_hook(client_for, users[0], game, receiver.url, events=["turn"])
    receiver.script = [HANG, HANG, HANG]
    move(game, 2)
    assert len(receiver.requests) == 4
    assert len({r.headers["x-pirates-delivery"] for r in receiver.requests}) == 1
    (delivery,) = WebhookDelivery.objects.all()
    assert delivery.status == WebhookDelivery.Status.DELIVERED and delivery.attempts == 4


def test_a_receiver_that_keeps_failing_is_given_up_then_disabled_with_one_email(
    users: list[User], client_for: ClientFor, receiver: Receiver, settings: Any, move: Any
) -> None:
    settings.WEBHOOK_MAX_RETRIES = 2
    settings.WEBHOOK_DISABLE_AFTER = 5
    game = started_game(users)
    hook = add_hook(client_for, users[1], game, receiver.url, events=["move"])
    receiver.script = [500] * 100
    move(game, 3)
    # One try and two retries, then that delivery is given up; the hook lives on.
    assert len(receiver.requests) == 3
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.FAILED
    assert Webhook.objects.get().disabled_at is None
    move(game, 4)
    # Failures four and five: the fifth in a row disables it, and nothing more is tried.
    assert len(receiver.requests) == 5
    disabled = Webhook.objects.get()
    assert disabled.disabled_at is not None and disabled.last_error == "HTTP 500"
    (email,) = turned_off()
    assert email.to == [users[1].email]
    assert "/hook/" not in email.body  # the path may carry a token: not repeated in mail
    move(game, 5)
    assert len(receiver.requests) == 5
    assert len(turned_off()) == 1
    listed = client_for(users[0]).get(f"/api/games/{game.pk}/webhooks/").json()["webhooks"]
    assert listed[0]["id"] == hook["id"] and listed[0]["disabled"] is True


def turned_off() -> list[Any]:
    return [m for m in mail.outbox if "webhook" in m.subject and "turned off" in m.subject]


def test_a_redirect_is_not_followed(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    game = started_game(users)
    add_hook(client_for, users[0], game, receiver.url, events=["move"])
    for round_ in range(3):
        receiver.requests.clear()
        receiver.script = [302]
        move(game, round_)
        # Not followed and not retried: a redirect is the receiver's error, not a hiccup.
        assert [r.path for r in receiver.requests] == ["/hook/"]
    assert WebhookDelivery.objects.filter(status=WebhookDelivery.Status.FAILED).count() == 3
    assert Webhook.objects.get().failures == 3


def test_the_json_body_is_what_the_receiver_got(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    game = started_game(users)
    add_hook(client_for, users[0], game, receiver.url, events=["move"])
    move(game, 6)
    (request,) = receiver.requests
    hook = Webhook.objects.get()
    game.refresh_from_db()
    notice = webhooks.position_notices(game, game.seq, game.seq - 1)[0]
    assert request.body == webhooks.body(hook, game, notice, request.headers["x-pirates-delivery"])


def test_failed_deliveries_back_off_doubling_up_to_the_cap(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any, settings: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = started_game(users)
    add_hook(client_for, users[0], game, receiver.url, events=["move"])
    receiver.script = [500, 500, 500]
    with caplog.at_level(logging.INFO, logger="games.tasks"):
        move(game, 0)
    said = (re.search(r"retry \d+ in (\d+)s", record.getMessage()) for record in caplog.records)
    waits = [int(m.group(1)) for m in said if m]
    base = settings.WEBHOOK_RETRY_BASE_SECONDS
    assert waits == [base, 2 * base, 4 * base]
    settings.WEBHOOK_RETRY_BASE_SECONDS, settings.WEBHOOK_RETRY_MAX_SECONDS = 15, 600
    assert [tasks.webhook_countdown(n) for n in range(8)] == [15, 30, 60, 120, 240, 480, 600, 600]
