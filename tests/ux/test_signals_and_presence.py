"""Turn signals (the tab title, the navigation's count, the lobby
that updates itself) and turn emails only for players who are not at the table."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from engine.bots import choose_action
from games import outbox, presence, services, tasks
from games.models import Game, Notification, Outbox, PlayerProfile, Seat
from games.read.state import load_state, rules_for
from tests.web.helpers import logged_in, make_user, started_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _mail(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.BOT_MOVE_DELAY_SECONDS = 0


def _clients(users: list[Any]) -> list[Client]:
    return [logged_in(user) for user in users]


def _title(page: str) -> str:
    found = re.search(r"<title>(.*?)</title>", page, re.S)
    assert found is not None
    return found.group(1).strip()


def test_tab_title_and_navigation_count_games_waiting() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    game.title = "Skull Bay"
    game.save(update_fields=["title"])
    second = started_game(users)
    anne, bob, _cat = _clients(users)
    assert game.to_act == [0] and second.to_act == [0]
    page = anne.get(f"/games/{game.pk}/").content.decode()
    assert _title(page) == "(2) Your move · Skull Bay · Pirates by Mail"
    assert 'id="nav-waiting"' in page and ">2</span>" in page
    assert 'data-title-prefix="(2) Your move · "' in page
    other = bob.get(f"/games/{game.pk}/").content.decode()
    assert _title(other) == "Skull Bay · Pirates by Mail" and 'id="nav-waiting"' not in other
    lobby = anne.get("/games/").content.decode()
    assert _title(lobby).startswith("(2) Your games")


def test_lobby_updates_itself() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    _anne, bob, _cat = _clients(users)
    lobby = bob.get("/games/").content.decode()
    assert 'hx-get="/games/live/?v=' in lobby
    version = re.search(r'id="lobby-live" data-version="([^"]+)"', lobby)
    assert version is not None
    assert bob.get(f"/games/live/?v={version.group(1)}").status_code == 204
    # Anne moves: the lobby's fragment changes (Bob's move now).
    rules = rules_for(game)
    action = rules.legal_actions(load_state(game), 0)[0]
    services.action_submit(game_id=game.pk, user=users[0], action=action, expected_seq=game.seq)
    game.refresh_from_db()
    fresh = bob.get(f"/games/live/?v={version.group(1)}")
    if game.to_act == [1]:
        assert fresh.status_code == 200 and b"Your move" in fresh.content
        assert b'data-waiting="1"' in fresh.content


def test_the_live_poll_records_presence() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    anne, _bob, _cat = _clients(users)
    assert Seat.objects.get(game=game, user=users[0]).last_seen_at is None
    before = timezone.now()
    anne.get(f"/games/{game.pk}/live/?v=x")
    after = timezone.now()
    seen = Seat.objects.get(game=game, user=users[0]).last_seen_at
    assert seen is not None and before <= seen <= after
    assert Seat.objects.get(game=game, user=users[1]).last_seen_at is None


def _play_to_end(
    on_commit: Any, game: Game, users: list[Any], clients: list[Client] | None, present: set[int]
) -> list[int]:
    """Every move through the services, its side effects (bots, emails) run after it commits;
    before each, the players in ``present`` poll the table (as their open tab does). Returns
    the seat of each move made, in order."""
    rng = random.Random(3)
    rules = rules_for(game)
    movers: list[int] = []
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        if clients is not None:
            for index in present:
                clients[index].get(f"/games/{game.pk}/live/?v=x")
        seat = game.to_act[0]
        action = choose_action(rules, load_state(game), seat, "random", rng)
        with on_commit(execute=True):
            services.action_submit(game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq)
        movers.append(seat)
    return movers


def test_a_game_played_at_the_table_sends_no_turn_emails(
    django_capture_on_commit_callbacks: Any,
) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    clients = _clients(users)
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(users)
    # The first turn email went out before anyone opened the table.
    mail.outbox.clear()
    for client in clients:
        client.get(f"/games/{game.pk}/")
    moves = _play_to_end(django_capture_on_commit_callbacks, game, users, clients, present={0, 1, 2})
    assert len(moves) > 20
    assert [m.subject for m in mail.outbox if "Your turn" in m.subject] == []
    assert not Notification.objects.filter(game=game, kind=Notification.Kind.TURN).exclude(key="1").exists()


def test_a_player_away_gets_one_email_per_turn(django_capture_on_commit_callbacks: Any) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    clients = _clients(users)
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(users)
    mail.outbox.clear()
    movers = _play_to_end(django_capture_on_commit_callbacks, game, users, clients, present={0, 1})
    game.refresh_from_db()
    to_cat = [m for m in mail.outbox if m.to == ["cat@example.test"] and "Your turn" in m.subject]
    # A turn of Cat's is a run of her moves (a ransom's placement follows it at once).
    cat_turns = sum(1 for i, seat in enumerate(movers) if seat == 2 and (i == 0 or movers[i - 1] != 2))
    # Several turns, so "one email each" is seen more than once (the seed is drawn afresh:
    # five turns of hers is a short game, not a broken one).
    assert cat_turns >= 3 and len(to_cat) == cat_turns
    noted = Notification.objects.filter(game=game, user=users[2], kind=Notification.Kind.TURN)
    assert noted.count() == cat_turns
    others = [m for m in mail.outbox if m.to != ["cat@example.test"] and "Your turn" in m.subject]
    assert others == []


def test_every_turn_choice_emails_even_at_the_table(
    django_capture_on_commit_callbacks: Any,
) -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    PlayerProfile.objects.create(user=users[1], notify=PlayerProfile.Notify.EACH_TURN)
    clients = _clients(users)
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(users)
    _play_to_end(django_capture_on_commit_callbacks, game, users, clients, present={0, 1, 2})
    assert any(m.to == ["bob@example.test"] for m in mail.outbox)
    assert not any(m.to == ["anne@example.test"] and "Your turn" in m.subject for m in mail.outbox[1:])


def test_a_player_who_leaves_without_moving_is_emailed_later(settings: SettingsWrapper) -> None:
    settings.PRESENCE_SECONDS = 60
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    seat = Seat.objects.get(game=game, position=game.to_act[0])
    game.refresh_from_db()
    now = timezone.now()
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
    mail.outbox.clear()
    Notification.objects.all().delete()
    # Her turn's row ran while she sat at the table: no email, and the row waits for her.
    outbox.relay()
    assert mail.outbox == []
    row = Outbox.objects.get(game=game, kind=Outbox.Kind.TURN, key=game.seq)
    assert row.status == Outbox.Status.PENDING and row.attempts == 0
    assert row.due_at == now + timedelta(seconds=60)
    # Still at the table: nothing overdue yet.
    assert presence.overdue_turn_emails(now + timedelta(seconds=30)) == []
    # Gone for longer than PRESENCE_SECONDS: the deferred row is due (the relay publishes it),
    # so the sweep has nothing to add; with the row done by hand, the sweep finds her.
    later = now + timedelta(seconds=90)
    assert presence.overdue_turn_emails(later) == []
    Outbox.objects.filter(pk=row.pk).update(status=Outbox.Status.DONE)
    assert presence.overdue_turn_emails(later) == [(game.pk, game.seq)]
    # For real: the player was last seen 61 seconds ago; the beat task re-arms the row.
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=timezone.now() - timedelta(seconds=61))
    assert tasks.turn_emails_for_leavers() == 1
    assert outbox.relay() == 1
    assert [m.to for m in mail.outbox] == [[seat.user.email]]  # type: ignore[union-attr]
    assert tasks.turn_emails_for_leavers() == 0
    assert Outbox.objects.get(pk=row.pk).status == Outbox.Status.DONE
