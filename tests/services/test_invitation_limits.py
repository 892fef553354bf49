"""Invitations go to an address once per game, and one account sends at most
INVITATIONS_PER_DAY a day; concurrent requests cannot slip past either (real threads, real
PostgreSQL row locks)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from pytest_django import Settings

from games import services
from games.models import Invitation
from tests.services.support import make_users
from tests.services.test_concurrency import run_at_once


@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_a_second_invitation_to_the_same_address_sends_nothing() -> None:
    (anne,) = make_users(1)
    game = services.game_create(creator=anne, rules_id="pirates", players=4)
    services.invitation_create(game_id=game.pk, by=anne, emails="bob@example.test")
    with pytest.raises(services.Conflict, match=r"Already invited to this game: bob@example.test"):
        services.invitation_create(game_id=game.pk, by=anne, emails="cat@example.test, Bob@Example.test")
    assert [m.to for m in mail.outbox] == [["bob@example.test"]]
    # Another game may invite the same address.
    other = services.game_create(creator=anne, rules_id="pirates", players=4)
    assert len(services.invitation_create(game_id=other.pk, by=anne, emails="bob@example.test")) == 1


@pytest.mark.django_db(transaction=True)  # the emails go out on commit, through the outbox
def test_the_daily_cap_counts_over_a_rolling_day(settings: Settings) -> None:
    settings.INVITATIONS_PER_DAY = 3
    (anne,) = make_users(1)
    game = services.game_create(creator=anne, rules_id="pirates", players=5)
    services.invitation_create(game_id=game.pk, by=anne, emails="a@example.test, b@example.test")
    with pytest.raises(services.Throttled) as refused:
        services.invitation_create(game_id=game.pk, by=anne, emails="c@example.test, d@example.test")
    assert refused.value.status == 429 and "1 left" in refused.value.detail
    assert 23 * 3600 < refused.value.wait <= 24 * 3600
    assert len(services.invitation_create(game_id=game.pk, by=anne, emails="c@example.test")) == 1
    with pytest.raises(services.InvalidInput, match="at most 3 invitations a day"):
        services.invitation_create(game_id=game.pk, by=anne, emails="w@x.test, x@x.test, y@x.test, z@x.test")
    Invitation.objects.filter(email="a@example.test").update(
        created_at=Invitation.objects.get(email="a@example.test").created_at - timedelta(hours=24, seconds=1)
    )
    assert len(services.invitation_create(game_id=game.pk, by=anne, emails="d@example.test")) == 1
    assert len(mail.outbox) == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_invitations_of_one_address_make_one() -> None:
    anne, bob = make_users(2)
    game = services.game_create(creator=anne, rules_id="pirates", players=5)
    services.seat_join(game_id=game.pk, user=bob)
    results = run_at_once(
        8,
        lambda i: services.invitation_create(
            game_id=game.pk, by=(anne, bob)[i % 2], emails="cat@example.test"
        ),
    )
    assert sum(isinstance(r, list) for r in results) == 1
    assert all(isinstance(r, services.Conflict) for r in results if not isinstance(r, list))
    assert Invitation.objects.filter(game=game, email="cat@example.test").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_invitations_stay_under_the_daily_cap(settings: Settings) -> None:
    settings.INVITATIONS_PER_DAY = 5
    (anne,) = make_users(1)
    games = [services.game_create(creator=anne, rules_id="pirates", players=5) for _ in range(8)]
    results = run_at_once(
        8,
        lambda i: services.invitation_create(
            game_id=games[i].pk, by=anne, emails=f"x{i}@example.test, y{i}@example.test"
        ),
    )
    assert sum(isinstance(r, list) for r in results) == 2
    assert all(isinstance(r, services.Throttled) for r in results if not isinstance(r, list))
    assert Invitation.objects.filter(invited_by=anne).count() == 4
