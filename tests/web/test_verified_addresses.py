"""Verified addresses: an account's address counts (game mail, replies by email, invitations)
only once its owner followed the link sent to it; sign-up is throttled per client address and
per inbox.

The squatter story: someone signs up with the address a private game's invitation went to. The
invitation, answered by a "join" reply or followed as a link, must seat the account that verified
the address, never the squatter's, and the squatter must not see the game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from django.utils import timezone
from pytest_django import Settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services
from games.emails.digest import send_digest
from games.emails.turns import send_turn_emails
from games.inbound.compose import reply_to
from games.inbound.handle import receive
from games.inbound.parse import parse
from games.links import login_token
from games.models import Game, Invitation, PlayerProfile, Seat
from games.services import accounts
from tests.accounts import make_unverified, unverified_user
from tests.realservers import redis_url
from tests.throttle_support import retry_after, set_rates
from tests.web.helpers import PASSWORD, logged_in, make_user

pytestmark = pytest.mark.django_db

OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]
SITE = "http://pirates.test"
VICTIM = "victim@example.test"
VERIFY_LINK = re.compile(r"https?://\S+/accounts/verify/\S+/")


@pytest.fixture(autouse=True)
def _mail_settings(settings: Settings) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = SITE
    settings.REPLY_DOMAIN = "reply.pirates.test"
    settings.BOT_MOVE_DELAY_SECONDS = 0
    set_rates(settings, inbound_mail=None)


def _path(url: str) -> str:
    return urlsplit(url).path


def _sign_up(client: Client, username: str, email: str, next_path: str = "/games/", **extra: Any) -> Any:
    return client.post(
        "/accounts/signup/",
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD,
         "next": next_path},
        **extra,
    )


def _mails_to(address: str) -> list[Any]:
    return [m for m in mail.outbox if m.to == [address]]


def _verify_link(address: str) -> str:
    links = [found.group(0) for m in _mails_to(address) if (found := VERIFY_LINK.search(str(m.body)))]
    assert links, f"no verification link was emailed to {address}"
    return _path(links[-1])


def _private_game_inviting(
    anne: User, address: str, on_commit: OnCommit, title: str
) -> tuple[Game, Invitation]:
    game = services.game_create(creator=anne, rules_id="pirates", players=3, is_public=False, title=title)
    with on_commit(execute=True):
        (invitation,) = services.invitation_create(game_id=game.pk, by=anne, emails=address)
    return game, invitation


def _invitation_email(invitation: Invitation) -> EmailMultiAlternatives:
    found = [m for m in _mails_to(invitation.email) if f"/invite/{invitation.token}/" in str(m.body)]
    assert len(found) == 1
    message = found[0]
    assert isinstance(message, EmailMultiAlternatives)
    return message


def _reply(on_commit: OnCommit, message: EmailMultiAlternatives, text: str, sender: str) -> str:
    """A reply as a mail client writes it, delivered the way the MTA pipe delivers it."""
    raw = reply_to(parse(message.message().as_bytes()), text, sender=sender)
    with on_commit(execute=True):
        return receive(raw).status


def test_the_squatter_gets_no_seat_and_cannot_see_the_private_game(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    on_commit = django_capture_on_commit_callbacks
    anne = make_user("anne")
    by_reply, reply_invitation = _private_game_inviting(anne, VICTIM, on_commit, "Skull Bay")
    by_link, link_invitation = _private_game_inviting(anne, VICTIM, on_commit, "Dead Man's Chest")

    # The squatter signs up first, with the invitee's address: the account is unverified.
    squatter_client = Client()
    assert _sign_up(squatter_client, "squatter", VICTIM).status_code == 302
    squatter = User.objects.get(username="squatter")
    assert not accounts.address_verified(squatter)
    # The real invitee signs up too and follows the link that reached their inbox.
    invitee_client = Client()
    assert _sign_up(invitee_client, "invitee", VICTIM).status_code == 302
    invitee = User.objects.get(username="invitee")
    assert squatter.pk < invitee.pk  # the squatter's account is the older one
    assert invitee_client.get(_verify_link(VICTIM)).status_code == 302
    assert accounts.address_verified(invitee) and not accounts.address_verified(squatter)

    # "join" by email, through the real inbound path: the seat is the verified account's.
    assert _reply(on_commit, _invitation_email(reply_invitation), "join", VICTIM) == "joined"
    seated = set(Seat.objects.filter(game=by_reply).values_list("user__username", flat=True))
    assert seated == {"anne", "invitee"}
    reply_invitation.refresh_from_db()
    assert reply_invitation.accepted_by == invitee

    # The link: the squatter (had it leaked) is told to verify and seated nowhere ...
    invite_path = f"/invite/{link_invitation.token}/"
    refused = squatter_client.post(invite_path)
    assert refused.status_code == 403 and b"not verified yet" in refused.content
    assert b"Send the link again" in refused.content
    assert not Seat.objects.filter(user=squatter).exists()
    # ... and the verified invitee takes the seat.
    assert invitee_client.post(invite_path)["Location"] == f"/games/{by_link.pk}/"
    link_invitation.refresh_from_db()
    assert link_invitation.accepted_by == invitee

    # The squatter sees neither private game, on the site or through the API.
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=squatter).key}")
    for game in (by_reply, by_link):
        assert squatter_client.get(f"/games/{game.pk}/").status_code == 404
        assert api.get(f"/api/games/{game.pk}/").status_code == 404
        assert invitee_client.get(f"/games/{game.pk}/").status_code == 200
    listed = api.get("/api/games/").json()
    assert {g["id"] for g in listed["mine"] + listed["open"]}.isdisjoint({by_reply.pk, by_link.pk})


def test_a_join_reply_from_an_address_only_unverified_accounts_use_seats_nobody(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    on_commit = django_capture_on_commit_callbacks
    anne = make_user("anne")
    game, invitation = _private_game_inviting(anne, VICTIM, on_commit, "Skull Bay")
    unverified_user("squatter", VICTIM)
    message = _invitation_email(invitation)
    mail.outbox.clear()
    assert _reply(on_commit, message, "join", VICTIM) == "sign_up"
    assert Seat.objects.filter(game=game).count() == 1
    (answer,) = _mails_to(VICTIM)
    assert "has not verified it yet" in str(answer.body)
    assert f"/invite/{invitation.token}/" in str(answer.body)


def test_an_unverified_account_gets_no_game_email_and_its_replies_play_nothing(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    on_commit = django_capture_on_commit_callbacks
    anne, bart, cleo = (make_user(name) for name in ("anne", "bart", "cleo"))
    # Bart (seat 0 of a fixed deal) moves first.
    game = services.game_create(creator=bart, rules_id="pirates", players=3, options={"first_seat": 0},
                                is_public=False)
    for person in (anne, cleo):
        (invitation,) = services.invitation_create(game_id=game.pk, by=bart, emails=[person.email])
        services.invitation_accept(token=invitation.token, user=person)
    make_unverified(bart)
    mail.outbox.clear()
    with on_commit(execute=True):
        services.game_start(game_id=game.pk, by=bart)
    game.refresh_from_db()
    bart_seat = Seat.objects.get(game=game, user=bart)
    assert game.to_act == [bart_seat.position]
    # Bart must move, but his address is unverified: no turn email.
    assert _mails_to(bart.email) == []
    # No log-in link either, and no daily digest.
    assert services.login_link_send(email=bart.email) is False
    PlayerProfile.objects.filter(user=bart).update(notify=PlayerProfile.Notify.DAILY_DIGEST)
    assert send_digest(user_id=bart.pk, day=timezone.now().date()) is False
    assert _mails_to(bart.email) == []
    # Verified, Bart's turn email goes out; unverified again, a reply to it plays nothing.
    PlayerProfile.objects.filter(user=bart).update(notify=PlayerProfile.Notify.EACH_TURN)
    accounts.mark_verified(bart)
    with on_commit(execute=True):
        assert send_turn_emails(game_id=game.pk, seq=game.seq) == 1
    (turn,) = _mails_to(bart.email)
    assert isinstance(turn, EmailMultiAlternatives)
    make_unverified(bart)
    assert _reply(on_commit, turn, "1", bart.email) == "not_the_player"
    game.refresh_from_db()
    assert game.to_act == [bart_seat.position] and len(_mails_to(bart.email)) == 1


def test_the_verification_link_works_once_and_cannot_log_in(client: Client) -> None:
    assert _sign_up(client, "newbie", "newbie@example.test").status_code == 302
    newbie = User.objects.get(username="newbie")
    page = client.get("/games/")
    assert b'id="verify-banner"' in page.content and b"newbie@example.test" in page.content
    link = _verify_link("newbie@example.test")
    token = link.rstrip("/").rsplit("/", 1)[1]
    # A verification token is not a log-in link: it logs nobody in.
    stranger = Client()
    assert stranger.get(f"/l/{token}/")["Location"].startswith("/accounts/login/")
    assert "_auth_user_id" not in stranger.session
    # Followed once, it verifies (without logging in whoever follows it) ...
    assert stranger.get(link).status_code == 302
    assert "_auth_user_id" not in stranger.session
    assert accounts.address_verified(newbie)
    assert b'id="verify-banner"' not in client.get("/games/").content
    # ... and never again.
    with pytest.raises(services.InvalidInput, match="used already"):
        accounts.address_verify(token)
    # A log-in token is no verification token.
    make_unverified(newbie)
    with pytest.raises(services.InvalidInput, match="not valid"):
        accounts.address_verify(login_token(newbie, "/games/"))
    assert not accounts.address_verified(newbie)


class _Clock:
    """``time`` for django.core.signing only, moved on by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def signing_clock() -> Iterator[_Clock]:
    import time

    clock = _Clock(time.time())
    with mock.patch("django.core.signing.time", clock):
        yield clock


def test_the_verification_link_expires(settings: Settings, signing_clock: _Clock) -> None:
    settings.EMAIL_VERIFICATION_MAX_AGE = 3600
    user = unverified_user("late", "late@example.test")
    token = accounts.verification_token(user)
    signing_clock.now += 3601
    with pytest.raises(services.InvalidInput, match="expired"):
        accounts.address_verify(token)
    assert not accounts.address_verified(user)
    signing_clock.now -= 2
    accounts.address_verify(token)
    assert accounts.address_verified(user)


def test_changing_the_address_unverifies_it_and_voids_older_links(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    anne = make_user("anne")
    assert accounts.address_verified(anne)
    client = logged_in(anne)
    form = {"email": "anne@new.example", "display_name": "", "notify": "each_turn", "timezone": "UTC",
            "confirm_moves": "on", "away_until": ""}
    assert client.post("/accounts/profile/", form).status_code == 302
    anne.refresh_from_db()
    assert anne.email == "anne@new.example" and not accounts.address_verified(anne)
    page = client.get("/accounts/profile/").content
    assert b"not verified" in page and b"anne@example.test" in page  # mail still goes to the old one
    assert accounts.mail_address(anne) == "anne@example.test"
    first_link = _verify_link("anne@new.example")
    # The address changes again before the first link is followed: that link is void.
    assert client.post("/accounts/profile/", {**form, "email": "anne@newer.example"}).status_code == 302
    void = client.get(first_link, follow=True)
    assert b"an address your account no longer uses" in void.content
    anne.refresh_from_db()
    assert not accounts.address_verified(anne) and accounts.mail_address(anne) == "anne@example.test"
    assert client.get(_verify_link("anne@newer.example")).status_code == 302
    assert accounts.address_verified(anne) and accounts.mail_address(anne) == "anne@newer.example"
    # An invitation to the old address no longer speaks for her.
    bart = make_user("bart")
    game, invitation = _private_game_inviting(
        bart, "anne@example.test", django_capture_on_commit_callbacks, "X"
    )
    with pytest.raises(services.AddressNotVerified):
        services.invitation_accept(token=invitation.token, user=anne)
    assert not Seat.objects.filter(game=game, user=anne).exists()


def test_a_bad_address_on_the_profile_changes_nothing() -> None:
    anne = make_user("anne")
    client = logged_in(anne)
    form = {"email": "not an address", "display_name": "Changed", "notify": "each_turn", "timezone": "UTC",
            "away_until": ""}
    page = client.post("/accounts/profile/", form)
    assert page.status_code == 200 and b"errorlist" in page.content
    anne.refresh_from_db()
    assert anne.email == "anne@example.test" and accounts.address_verified(anne)
    assert services.profile_for(anne).display_name == ""
    assert mail.outbox == []


def test_send_the_link_again(client: Client) -> None:
    user = unverified_user("newbie", "newbie@example.test")
    client.force_login(user)
    response = client.post("/accounts/verify-again/", {"next": "/games/"})
    assert response.status_code == 302 and response["Location"] == "/games/"
    assert client.get(_verify_link("newbie@example.test")).status_code == 302
    assert accounts.address_verified(user)
    # Verified already: nothing more is sent.
    sent = len(mail.outbox)
    client.post("/accounts/verify-again/", {"next": "/games/"})
    assert len(mail.outbox) == sent


class RefusingBackend:
    """An email backend whose mail server refuses every connection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def send_messages(self, messages: Any) -> int:
        raise ConnectionRefusedError("the mail server is down")


def test_a_mail_server_that_is_down_at_sign_up_is_said_and_the_link_can_be_sent_later(
    client: Client, settings: Settings
) -> None:
    settings.EMAIL_BACKEND = f"{__name__}.RefusingBackend"
    response = _sign_up(client, "newbie", "newbie@example.test")
    assert response.status_code == 302
    page = client.get(response["Location"]).content.decode()
    assert "could not send the link" in page and 'id="verify-banner"' in page
    newbie = User.objects.get(username="newbie")
    assert not accounts.address_verified(newbie)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert client.post("/accounts/verify-again/", {"next": "/games/"}).status_code == 302
    assert client.get(_verify_link("newbie@example.test")).status_code == 302
    assert accounts.address_verified(newbie)


def test_the_profile_shows_whether_the_address_is_verified() -> None:
    user = unverified_user("newbie", "newbie@example.test")
    client = logged_in(user)
    page = client.get("/accounts/profile/").content.decode()
    assert "newbie@example.test" in page and "not verified" in page and 'id="verify-again"' in page
    accounts.mark_verified(user)
    page = client.get("/accounts/profile/").content.decode()
    assert "is <strong>verified</strong>" in page and 'id="verify-again"' not in page


# --- Sign-up throttles ----------------------------------------------------------------------


def _limit(settings: Settings, scope: str) -> int:
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]
    return int(str(rate).split("/")[0])


def _redis_cache() -> dict[str, Any]:
    redis = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": redis_url(),
        "KEY_PREFIX": "pbm",
        "OPTIONS": {"socket_timeout": 0.5, "socket_connect_timeout": 0.5},
    }
    # The throttles count in the "limits" cache (every process's), Redis when configured.
    return {"default": redis, "limits": redis}


@pytest.fixture(params=["default", pytest.param("real", marks=[pytest.mark.postgres, pytest.mark.redis])])
def servers(request: pytest.FixtureRequest, settings: Settings) -> str:
    """Each throttle test runs on the default cache and database, and on Redis and PostgreSQL."""
    if request.param == "real":
        settings.CACHES = _redis_cache()
        from django.core.cache import caches

        for alias in ("default", "limits"):
            caches[alias].close()
            del caches[alias]
    return str(request.param)


def test_sign_ups_from_one_client_address_are_throttled(settings: Settings, servers: str) -> None:
    limit = _limit(settings, "signup")
    client = Client()
    for i in range(limit):
        response = _sign_up(client, f"sailor{i}", f"sailor{i}@example.test", REMOTE_ADDR="10.9.8.7")
        assert response.status_code == 302
        client.post("/accounts/logout/")
    refused = _sign_up(client, "one-more", "one-more@example.test", REMOTE_ADDR="10.9.8.7")
    wait = retry_after(refused)
    assert wait <= 3600
    text = refused.content.decode()
    assert "Too many sign-ups" in text and "Try again in" in text
    assert not User.objects.filter(username="one-more").exists()
    assert User.objects.filter(username__startswith="sailor").count() == limit
    # Another client address is not held back.
    response = _sign_up(Client(), "elsewhere", "elsewhere@example.test", REMOTE_ADDR="10.9.8.8")
    assert response.status_code == 302


def test_sign_ups_with_one_inbox_are_throttled(settings: Settings, servers: str) -> None:
    limit = _limit(settings, "signup_address")
    for i in range(limit):
        response = _sign_up(Client(), f"twin{i}", "Shared@Example.test", REMOTE_ADDR=f"10.7.0.{i + 1}")
        assert response.status_code == 302
    refused = _sign_up(Client(), "one-more", " shared@example.test", REMOTE_ADDR="10.7.1.1")
    assert retry_after(refused) <= 3600 and "Try again in" in refused.content.decode()
    assert not User.objects.filter(username="one-more").exists()
    # Each sign-up that went through emailed one verification link, and no more went out.
    assert len([m for m in mail.outbox if "Verify your address" in m.subject]) == limit


# --- Existing accounts ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_verifies_an_address_only_its_one_active_account_uses() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    names = {
        "solo": "solo@example.test",
        "twin1": "twin@example.test",
        "twin2": "Twin@Example.test",  # the same inbox, spelled otherwise
        "retired": "kept@example.test",
        "keeper": "kept@example.test",
        "nobody": "",
    }
    users = {name: User.objects.create_user(name, email) for name, email in names.items()}
    User.objects.filter(pk=users["retired"].pk).update(is_active=False)
    executor = MigrationExecutor(connection)
    try:
        executor.migrate([("games", "0012_listed_moves")])
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes("games"))
    verified = {name: accounts.mail_address(User.objects.get(pk=user.pk)) for name, user in users.items()}
    assert verified == {
        "solo": "solo@example.test",
        "twin1": "",  # shared: neither counts until one verifies it
        "twin2": "",
        "retired": "",
        "keeper": "kept@example.test",  # the other account with it is inactive
        "nobody": "",
    }
    # A shared address's accounts see the banner that sends the link.
    page = logged_in(users["twin1"]).get("/games/")
    assert b'id="verify-banner"' in page.content and b"Send the link again" in page.content
