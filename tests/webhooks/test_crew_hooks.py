"""A crew's webhooks: made by its members (API and crew page), they hear every game of the crew
(a CrewGame row links it) with the game named, nothing of any other game, exactly what a game's
own hook of the same format hears; outsiders of the crew are told there is no such crew."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.test import Client

from games.models import Crew, CrewGame, CrewMember, Game, Webhook, WebhookDelivery
from tests.api.conftest import ClientFor
from tests.services.support import make_user, started_game
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


def crew_of(users: list[User], *games: Game) -> Crew:
    crew = Crew.objects.create(name="Black Gulls", created_by=users[0])
    for user in users:
        CrewMember.objects.create(crew=crew, user=user)
    for game in games:
        CrewGame.objects.create(crew=crew, game=game)
    return crew


def add_crew_hook(client_for: ClientFor, user: User, crew: Crew, url: str, **fields: Any) -> dict[str, Any]:
    response = client_for(user).post(
        f"/api/crews/{crew.pk}/webhooks/", {"url": url, "format": "json", **fields}, format="json"
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def test_a_crew_hook_hears_each_crew_game_named_and_no_other_game(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    first, second, elsewhere = started_game(users), started_game(users), started_game(users)
    crew = crew_of(users, first, second)
    hook = add_crew_hook(client_for, users[2], crew, f"{receiver.url}crew", events=["move", "turn"])
    assert len(hook["secret"]) == 64
    # A game hook of the same format beside it: the crew's hears the same words.
    client_for(users[0]).post(
        f"/api/games/{first.pk}/webhooks/", {"url": f"{receiver.url}game", "format": "json",
                                             "events": ["move", "turn"]}, format="json",
    )

    for round_ in range(3):
        move(first, round_)
        move(second, 10 + round_)
        move(elsewhere, 20 + round_)

    crew_bodies = [r.json for r in receiver.requests if r.path == "/hook/crew"]
    game_bodies = [r.json for r in receiver.requests if r.path == "/hook/game"]
    named = {body["game"]["id"] for body in crew_bodies}
    assert named == {first.pk, second.pk}  # the game outside the crew sent it nothing
    for game in (first, second):
        game.refresh_from_db()
        heard = [b for b in crew_bodies if b["game"]["id"] == game.pk]
        assert [b["event"] for b in heard] == ["move", "turn"] * 3
        assert all(b["game"]["title"] == game.display_name for b in heard)
        assert heard[-1]["seq"] == game.seq
    # Exactly what the game's own hook heard, but for the delivery ids.
    of_first = [b for b in crew_bodies if b["game"]["id"] == first.pk]
    for body in (*of_first, *game_bodies):
        body.pop("delivery_id")
    assert of_first == game_bodies
    # Deliveries are keyed per game, so the same seq in two games is two deliveries.
    keys = set(WebhookDelivery.objects.filter(hook_id=hook["id"]).values_list("event_key", flat=True))
    assert f"g{first.pk}:move:{first.seq}" in keys and f"g{second.pk}:move:{second.seq}" in keys
    assert len(keys) == len(crew_bodies)


def test_a_disabled_crew_hook_and_a_game_with_no_hook_owe_nothing(
    users: list[User], client_for: ClientFor, receiver: Receiver, move: Any
) -> None:
    from games.models import Outbox

    game = started_game(users)
    crew = crew_of(users, game)
    hook = add_crew_hook(client_for, users[0], crew, receiver.url, events=["move"])
    Webhook.objects.filter(pk=hook["id"]).update(disabled_at="2026-01-01T00:00:00Z")
    for seed in range(2):
        move(game, seed)
    assert receiver.requests == []
    assert not Outbox.objects.filter(game=game, kind=Outbox.Kind.WEBHOOK).exists()


def test_a_failing_crew_hook_is_disabled_with_one_email_naming_the_crew(
    users: list[User], client_for: ClientFor, receiver: Receiver, settings: Any, move: Any
) -> None:
    from django.core import mail

    settings.WEBHOOK_MAX_RETRIES = 1
    settings.WEBHOOK_DISABLE_AFTER = 4
    game = started_game(users)
    crew = crew_of(users, game)
    hook = add_crew_hook(client_for, users[1], crew, receiver.url, events=["move"])
    receiver.script = [503] * 100
    for seed in range(4):
        move(game, seed)
    assert len(receiver.requests) == 4  # two moves, a try and a retry each; then it is off
    assert Webhook.objects.get(pk=hook["id"]).disabled_at is not None
    (email,) = [m for m in mail.outbox if "turned off" in m.subject]
    assert email.to == [users[1].email] and "Black Gulls" in email.subject
    assert f"/crews/{crew.pk}/" in email.body and "/hook/" not in email.body


def test_only_members_add_list_and_delete_a_crews_hooks(
    users: list[User], client_for: ClientFor, anonymous: Any
) -> None:
    crew = crew_of(users[:2])
    outsider = users[2]
    hook = add_crew_hook(client_for, users[0], crew, "https://hooks.example/a")
    listed = client_for(users[1]).get(f"/api/crews/{crew.pk}/webhooks/").json()["webhooks"]
    assert [h["id"] for h in listed] == [hook["id"]] and "secret" not in listed[0]

    url = f"/api/crews/{crew.pk}/webhooks/"
    assert client_for(outsider).get(url).status_code == 404
    made = client_for(outsider).post(url, {"url": "https://hooks.example/b", "format": "json"}, format="json")
    assert made.status_code == 404
    assert client_for(outsider).delete(f"{url}{hook['id']}/").status_code == 404
    assert anonymous.get(url).status_code in (401, 403)
    assert list(Webhook.objects.values_list("pk", flat=True)) == [hook["id"]]
    # A game's hook is not the crew's to delete, nor a crew's hook the game's.
    game = started_game(users)
    game_hook = client_for(users[0]).post(
        f"/api/games/{game.pk}/webhooks/", {"url": "https://hooks.example/g", "format": "json"}, format="json"
    ).json()
    assert client_for(users[0]).delete(f"{url}{game_hook['id']}/").status_code == 404
    assert client_for(users[0]).delete(f"/api/games/{game.pk}/webhooks/{hook['id']}/").status_code == 404
    assert Webhook.objects.count() == 2
    # A member deletes it.
    assert client_for(users[1]).delete(f"{url}{hook['id']}/").status_code == 204
    assert list(Webhook.objects.values_list("pk", flat=True)) == [game_hook["id"]]


def test_bad_input_and_the_cap_are_refused_and_change_nothing(
    users: list[User], client_for: ClientFor, settings: Any
) -> None:
    settings.WEBHOOK_MAX_PER_CREW = 2
    crew = crew_of(users)
    url = f"/api/crews/{crew.pk}/webhooks/"
    for body in (
        {"url": "ftp://x.example/", "format": "json"}, {"url": "https://x.example/", "format": "fax"},
        {"url": "https://x.example/", "format": "json", "events": ["lunch"]},
        {"url": "https://10.0.0.1/", "format": "json"},
    ):
        response = client_for(users[0]).post(url, body, format="json")
        assert response.status_code == 400, body
        assert response.json()["detail"]
    assert not Webhook.objects.exists()
    for n in range(2):
        add_crew_hook(client_for, users[n], crew, f"https://hooks.example/{n}")
    full = client_for(users[2]).post(url, {"url": "https://hooks.example/9", "format": "json"}, format="json")
    assert full.status_code == 409 and "at most 2" in full.json()["detail"]
    assert Webhook.objects.count() == 2


def test_a_hook_has_exactly_one_owner(users: list[User]) -> None:
    game = started_game(users)
    crew = crew_of(users)
    for owner in ({}, {"game": game, "crew": crew}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Webhook.objects.create(created_by=users[0], url="https://x.example/", format="json", secret="s",
                                   **owner)


def test_the_crew_page_form_adds_shows_the_secret_once_and_deletes(users: list[User]) -> None:
    crew = crew_of(users[:2])
    client = Client()
    client.force_login(users[1])
    page = client.get(f"/crews/{crew.pk}/").content.decode()
    assert 'id="webhook-form"' in page and "No webhooks yet." in page
    response = client.post(f"/crews/{crew.pk}/webhooks/", {
        "url": "https://discord.com/api/webhooks/1/abc", "format": "discord", "events": ["turn", "move"],
    })
    assert response.status_code == 302 and response["Location"].endswith(f"/crews/{crew.pk}/#webhooks")
    hook = Webhook.objects.get()
    assert hook.crew == crew and hook.game is None and hook.events == ["turn", "move"]
    first = client.get(f"/crews/{crew.pk}/").content.decode()
    assert hook.secret in first and f"/crews/{crew.pk}/webhooks/{hook.pk}/delete/" in first
    assert hook.secret not in client.get(f"/crews/{crew.pk}/").content.decode()
    # Bad input: a message, nothing made.
    bad = {"url": "ftp://x.example/", "format": "json"}
    shown = client.post(f"/crews/{crew.pk}/webhooks/", bad, follow=True)
    assert "must start with https" in shown.content.decode() and Webhook.objects.count() == 1
    # Someone outside the crew changes nothing.
    outsider = Client()
    outsider.force_login(make_user("outsider"))
    assert outsider.get(f"/crews/{crew.pk}/").status_code == 404
    outsider.post(f"/crews/{crew.pk}/webhooks/{hook.pk}/delete/")
    outsider.post(f"/crews/{crew.pk}/webhooks/", {"url": "https://x.example/", "format": "json"})
    assert list(Webhook.objects.values_list("pk", flat=True)) == [hook.pk]
    response = client.post(f"/crews/{crew.pk}/webhooks/{hook.pk}/delete/")
    assert response.status_code == 302 and not Webhook.objects.exists()


def test_the_move_paths_webhook_check_finds_what_live_for_finds(users: list[User]) -> None:
    """``games.rows.webhook_since`` (one raw query on every move) and ``Webhook.live_for`` (the
    deliveries' query) say the same of each game: its own hook, its crew's, a disabled one, and
    another game's; and the latest webhook row's key before the seq asked about."""
    from django.utils import timezone

    from games import rows
    from games.models import Outbox

    own, crewed, disabled, plain = (started_game(users) for _ in range(4))
    crew = crew_of(users, crewed)

    def hook(**owner: Any) -> Webhook:
        return Webhook.objects.create(created_by=users[0], url="https://x.example/", format="json",
                                      secret="s", **owner)

    hook(game=own)
    hook(crew=crew)
    Webhook.objects.filter(pk=hook(game=disabled).pk).update(disabled_at=timezone.now())
    hook(game=started_game(users))  # another game's hook says nothing of these
    seen = {game.pk: rows.webhook_since(game.pk, 5, Outbox.Kind.WEBHOOK)[0]
            for game in (own, crewed, disabled, plain)}
    assert seen == {game.pk: Webhook.live_for(game.pk).exists() for game in (own, crewed, disabled, plain)}
    assert seen == {own.pk: True, crewed.pk: True, disabled.pk: False, plain.pk: False}

    now = timezone.now()
    for key in (2, 4, 7):
        Outbox.objects.create(game=own, kind=Outbox.Kind.WEBHOOK, key=key, due_at=now, created_at=now)
    assert rows.webhook_since(own.pk, 5, Outbox.Kind.WEBHOOK) == (True, 4)
    assert rows.webhook_since(own.pk, 2, Outbox.Kind.WEBHOOK) == (True, None)
