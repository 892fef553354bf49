"""Times in the player's zone (guessed at sign-up), table talk at the
table and in the turn email, and resigning from a running game (a bot takes the seat)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games import services
from games.emails import send_turn_emails
from games.models import ChatMessage, Event, Game, PlayerProfile, Seat
from tests.web.helpers import PASSWORD, logged_in, make_user, started_game

pytestmark = pytest.mark.django_db


def test_chat_at_the_table_and_in_the_turn_email(settings: SettingsWrapper) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    PlayerProfile.objects.create(user=users[1], display_name="Bonny Bob")
    game = started_game(users)
    bob = logged_in(users[1])
    before = bob.get(f"/games/{game.pk}/live/?v=x").content.decode()
    version = before.split('data-version="', 1)[1].split('"', 1)[0]
    response = bob.post(f"/games/{game.pk}/chat/", {"text": "  Arr,   mind the   monster!  "})
    assert response.status_code == 302
    assert ChatMessage.objects.get(game=game).text == "Arr, mind the monster!"
    # The table's live version changes, so every open table shows the new line.
    fresh = logged_in(users[2]).get(f"/games/{game.pk}/live/?v={version}")
    assert fresh.status_code == 200
    page = fresh.content.decode()
    assert "Table talk" in page and "Bonny Bob" in page and "Arr, mind the monster!" in page
    # A stranger cannot talk at the table.
    stranger = logged_in(make_user("dan"))
    stranger.post(f"/games/{game.pk}/chat/", {"text": "hello"})
    assert ChatMessage.objects.filter(game=game).count() == 1
    # The turn email to the player to move carries the table talk since their last move.
    mail.outbox.clear()
    send_turn_emails(game_id=game.pk, seq=game.seq)
    to_anne = [m for m in mail.outbox if m.to == ["anne@example.test"]]
    assert to_anne and "Table talk" in str(to_anne[0].body) and "Bonny Bob: Arr, mind the monster!" in str(
        to_anne[0].body
    )


def test_resigning_hands_the_seat_to_a_bot(
    settings: SettingsWrapper, django_capture_on_commit_callbacks: Any
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    anne = logged_in(users[0])
    assert 'id="resign"' in anne.get(f"/games/{game.pk}/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = anne.post(f"/games/{game.pk}/resign/")
    assert response.status_code == 302
    seat = Seat.objects.get(game=game, user=users[0])
    assert seat.replaced_by_bot
    event = Event.objects.filter(game=game, kind=Event.Kind.SEAT_TO_BOT).get()
    assert "left the game" in event.payload["text"]
    game.refresh_from_db()
    # Anne was to move: the bot moved for her at once (eager tasks).
    assert game.seq > event.seq and Event.objects.filter(game=game, kind=Event.Kind.BOT).exists()
    assert 'id="resign"' not in anne.get(f"/games/{game.pk}/").content.decode()
    with pytest.raises(services.Conflict):
        services.seat_resign(game_id=game.pk, user=users[0])


def test_signup_guesses_the_zone_and_pages_show_local_times() -> None:
    client = Client()
    form = client.get("/accounts/signup/").content.decode()
    assert 'name="timezone"' in form and "data-guess-timezone" in form and "js/timezone.js" in form
    response = client.post("/accounts/signup/", {
        "username": "sam_salt", "display_name": "Salty Sam", "email": "sam@example.test",
        "password1": PASSWORD, "password2": PASSWORD, "timezone": "Asia/Tokyo",
    })
    assert response.status_code == 302
    profile = PlayerProfile.objects.get(user__username="sam_salt")
    assert profile.timezone == "Asia/Tokyo"
    users = [profile.user, make_user("bob"), make_user("cat")]
    game = started_game(users)
    game.refresh_from_db()
    assert game.deadline is not None
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "JST" in page  # the deadline in Tokyo time
    # A zone the browser made up falls back to UTC.
    other = Client()
    other.post("/accounts/signup/", {
        "username": "x", "email": "x@example.test", "password1": PASSWORD, "password2": PASSWORD,
        "timezone": "Mars/Olympus",
    })
    assert PlayerProfile.objects.get(user__username="x").timezone == "UTC"


def test_profile_offers_common_zones_first() -> None:
    page = logged_in(make_user("anne")).get("/accounts/profile/").content.decode()
    common = page.index('<optgroup label="Common time zones">')
    everything = page.index('<optgroup label="All time zones">')
    assert common < page.index('value="Europe/London"') < everything
    assert 'name="confirm_moves"' in page


def test_chat_is_not_in_the_log_or_the_replay() -> None:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    seq = Game.objects.get(pk=game.pk).seq
    services.chat_post(game=game, user=users[1], text="hello")
    assert Game.objects.get(pk=game.pk).seq == seq


@pytest.mark.parametrize("path", ["take-back", "resign", "chat"])
def test_a_private_game_does_not_exist_for_an_outsider_posting_to_it(path: str) -> None:
    """Take-back, resign and table talk answer someone outside a private game as they answer an
    unknown id (404), and change nothing; the services say "no such game" too, not "no seat"."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    outsider = make_user("dan")
    client = logged_in(outsider)
    events = Event.objects.filter(game=game).count()
    data = {"expected_seq": str(game.seq), "text": "ahoy"}
    private = client.post(f"/games/{game.pk}/{path}/", data)
    unknown = client.post(f"/games/{game.pk + 1000}/{path}/", data)
    assert private.status_code == unknown.status_code == 404
    assert Event.objects.filter(game=game).count() == events and not ChatMessage.objects.exists()
    assert not Seat.objects.filter(game=game, replaced_by_bot=True).exists()
    for call in (
        lambda: services.seat_resign(game_id=game.pk, user=outsider),
        lambda: services.move_take_back(game_id=game.pk, user=outsider, expected_seq=game.seq),
    ):
        with pytest.raises(services.NotFound):
            call()
