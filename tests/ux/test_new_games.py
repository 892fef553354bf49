"""A new game you invite people to is private unless you say otherwise; its
creator is emailed when the last seat is taken; it can start by itself when full."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games import services
from games.models import Game, Notification, Outbox
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db

FORM = {"title": "", "rules": "pirates", "players": "3", "bot_seats": "0", "bot_kind": "greedy",
        "move_time": "48h", "timeout_policy": "bot"}


@pytest.fixture(autouse=True)
def _mail(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def _create(client: Client, **fields: str) -> Game:
    response = client.post("/games/new/", {**FORM, **fields})
    assert response.status_code == 302, response.content.decode()[:2000]
    return Game.objects.order_by("-pk").first()  # type: ignore[return-value]


def test_inviting_makes_the_game_private_by_default() -> None:
    client = Client()
    client.force_login(make_user("anne"))
    assert 'value="auto" selected' in client.get("/games/new/").content.decode()
    assert _create(client, title="Friends", invite="bob@example.test").is_public is False
    assert _create(client, title="Strangers").is_public is True
    assert _create(client, title="Open", invite="cat@example.test", visibility="public").is_public is True
    assert _create(client, title="Closed", visibility="private").is_public is False


def _relay_minutes_later(minutes: int, capture: Any) -> int:
    """Run the outbox relay as if ``minutes`` had passed: publishes the rows due by then."""
    from datetime import timedelta

    from django.utils import timezone

    from games import outbox

    with capture(execute=True):
        return outbox.relay(up_to=timezone.now() + timedelta(minutes=minutes))


def _seats_filled_rows(game: Game) -> int:
    return Outbox.objects.filter(game=game, kind=Outbox.Kind.SEATS_FILLED).count()


def test_creator_is_emailed_when_the_last_seat_fills(
    django_capture_on_commit_callbacks: Any,
) -> None:
    anne, bob, cat = make_user("anne"), make_user("bob"), make_user("cat")
    game = services.game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")
    services.seat_join(game_id=game.pk, user=bob)
    assert _seats_filled_rows(game) == 0  # a seat is still free
    services.seat_join(game_id=game.pk, user=cat)
    # Owed in the joining transaction, but not at once: a creator at the lobby usually starts
    # the game right away.
    assert _seats_filled_rows(game) == 1
    assert _relay_minutes_later(0, django_capture_on_commit_callbacks) == 0
    assert _relay_minutes_later(5, django_capture_on_commit_callbacks) == 1
    to_anne = [m for m in mail.outbox if m.to == ["anne@example.test"]]
    assert len(to_anne) == 1 and "Every seat of Skull Bay is taken" in to_anne[0].subject
    assert Game.objects.get(pk=game.pk).status == Game.Status.LOBBY
    assert Notification.objects.filter(user=anne, kind=Notification.Kind.SEATS_FILLED).count() == 1
    # A seat left and taken again owes the email again, and it still goes once.
    services.seat_leave(game_id=game.pk, user=cat)
    services.seat_join(game_id=game.pk, user=cat)
    assert _seats_filled_rows(game) == 2
    _relay_minutes_later(5, django_capture_on_commit_callbacks)
    assert len([m for m in mail.outbox if m.to == ["anne@example.test"]]) == 1


def test_no_email_when_the_creator_started_it(django_capture_on_commit_callbacks: Any) -> None:
    anne, bob, cat = make_user("anne"), make_user("bob"), make_user("cat")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    services.seat_join(game_id=game.pk, user=bob)
    services.seat_join(game_id=game.pk, user=cat)
    services.game_start(game_id=game.pk, by=anne)
    _relay_minutes_later(5, django_capture_on_commit_callbacks)
    assert [m.subject for m in mail.outbox if "seat" in m.subject or "has started" in m.subject] == []
    assert Outbox.objects.get(game=game, kind=Outbox.Kind.SEATS_FILLED).status == Outbox.Status.DONE


def test_no_email_when_a_seat_was_left_again(django_capture_on_commit_callbacks: Any) -> None:
    anne, bob, cat = make_user("anne"), make_user("bob"), make_user("cat")
    game = services.game_create(creator=anne, rules_id="pirates", players=3)
    services.seat_join(game_id=game.pk, user=bob)
    services.seat_join(game_id=game.pk, user=cat)
    services.seat_leave(game_id=game.pk, user=bob)
    _relay_minutes_later(5, django_capture_on_commit_callbacks)
    assert [m for m in mail.outbox if m.to == ["anne@example.test"]] == []


def test_auto_start_when_full(django_capture_on_commit_callbacks: Any) -> None:
    anne, bob = make_user("anne"), make_user("bob")
    game = services.game_create(creator=anne, rules_id="pirates", players=3, bot_seats=1, auto_start=True)
    seat = services.seat_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert seat.position == game.seats.get(user=bob).position
    _relay_minutes_later(5, django_capture_on_commit_callbacks)
    to_anne = [m for m in mail.outbox if m.to == ["anne@example.test"] and "has started" in m.subject]
    assert len(to_anne) == 1


def test_new_game_form_offers_auto_start() -> None:
    client = Client()
    client.force_login(make_user("anne"))
    game = _create(client, title="Quick", auto_start="on")
    assert game.auto_start is True
