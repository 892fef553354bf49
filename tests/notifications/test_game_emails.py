"""Game over, the daily digest, invitations and one-click unsubscribe."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from pytest_django.fixtures import Settings as SettingsWrapper

from games import side_effects, tasks
from games.emails import unsubscribe_token
from games.models import Event, Game, Invitation, Notification, PlayerProfile, Seat
from games.services import game_create
from tests.notifications.helpers import (
    SITE,
    OnCommit,
    clear_outbox,
    html_of,
    links,
    make_user,
    move,
    person_to_act,
    sent,
    start_game,
)

pytestmark = pytest.mark.django_db


def test_game_over_sends_final_scores_and_replay_link_once(
    django_capture_on_commit_callbacks: OnCommit, client: Client
) -> None:
    anne = make_user("anne")
    bart = make_user("bart", PlayerProfile.Notify.NONE)
    game = start_game(django_capture_on_commit_callbacks, [anne, bart], bots=1)
    while game.status == Game.Status.ACTIVE:
        move(django_capture_on_commit_callbacks, game)
    assert game.result is not None

    over = [m for m in sent() if m.subject == "Game over: Skull Bay"]
    assert [m.to for m in over] == [[anne.email]]  # bart chose no emails
    body = over[0].body
    scores = game.result["scores"]
    for position, score in enumerate(scores):
        seat = Seat.objects.get(game=game, position=position)
        assert f"{seat.label}" in body and f": {score}" in body
    assert "(winner)" in body
    replay = next(url for url in links(over[0]) if url.startswith(f"{SITE}/l/"))
    assert replay in html_of(over[0])
    response = client.get(replay.removeprefix(SITE))
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/replay/"

    assert tasks.notify_game_over.delay(game.pk).get() == 0
    assert len([m for m in sent() if m.subject.startswith("Game over")]) == 1
    # No turn email after the end.
    last_turn = Notification.objects.filter(kind=Notification.Kind.TURN).order_by("-created_at").first()
    assert last_turn is None or int(last_turn.key) < game.seq


def test_daily_digest_once_a_day_for_those_who_chose_it(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    anne = make_user("anne", PlayerProfile.Notify.DAILY_DIGEST)
    bart = make_user("bart", PlayerProfile.Notify.DAILY_DIGEST)
    cleo = make_user("cleo", PlayerProfile.Notify.NONE)
    game = start_game(django_capture_on_commit_callbacks, [anne, bart, cleo], title="Tortuga Run")
    other = start_game(django_capture_on_commit_callbacks, [bart, anne, cleo], title="Nassau Night")
    assert sent() == []
    waiting = [(person_to_act(g).user_id, g) for g in (game, other)]

    with django_capture_on_commit_callbacks(execute=True):
        queued = tasks.daily_digest.delay().get()
    digests = sent()
    waiting_people = {uid for uid, _ in waiting if uid != cleo.pk}
    assert queued == len(waiting_people)
    assert sorted(m.to[0] for m in digests) == sorted(
        u.email for u in (anne, bart) if u.pk in waiting_people
    )
    for message in digests:
        user = anne if message.to == [anne.email] else bart
        mine = [g for uid, g in waiting if uid == user.pk]
        assert message.subject.startswith(f"Pirates by Mail: {len(mine)} game")
        for g in mine:
            assert g.display_name in message.body and g.display_name in html_of(message)
            assert "The game started with 3 players." in message.body
        assert "List-Unsubscribe" in message.extra_headers
        key = timezone.now().strftime("%Y%m%d")
        assert Notification.objects.get(user=user, kind=Notification.Kind.DIGEST).key == key

    with django_capture_on_commit_callbacks(execute=True):
        tasks.daily_digest.delay().get()
    assert len(sent()) == len(digests)


def test_digest_skips_people_with_nothing_waiting() -> None:
    anne = make_user("anne", PlayerProfile.Notify.DAILY_DIGEST)
    assert tasks.daily_digest.delay().get() == 0
    assert tasks.send_digest.delay(anne.pk, timezone.now().date().isoformat()).get() is False
    assert sent() == []


def test_invitation_email_with_join_link(django_capture_on_commit_callbacks: OnCommit) -> None:
    anne = make_user("anne")
    game = game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")
    with django_capture_on_commit_callbacks(execute=True):
        invitation = Invitation.objects.create(game=game, email="newcomer@example.test",
                                               token=secrets.token_urlsafe(16), invited_by=anne)
        side_effects.after_invitations([invitation])
    messages = sent()
    expected = [(["newcomer@example.test"], "anne invites you to Skull Bay")]
    assert [(m.to, m.subject) for m in messages] == expected
    join = f"{SITE}/invite/{invitation.token}/"
    assert join in messages[0].body and join in html_of(messages[0])
    assert "List-Unsubscribe" not in messages[0].extra_headers  # no account: nothing to unsubscribe from


def test_invitation_to_an_existing_player_is_sent_once(django_capture_on_commit_callbacks: OnCommit) -> None:
    anne = make_user("anne")
    bart = make_user("bart", PlayerProfile.Notify.NONE)
    game = game_create(creator=anne, rules_id="pirates", players=3)
    invitation = Invitation.objects.create(game=game, email=bart.email, token="tok-bart", invited_by=anne)
    with django_capture_on_commit_callbacks(execute=True):
        side_effects.after_invitations([invitation])
        side_effects.after_invitations([invitation])
    assert [m.to for m in sent()] == [[bart.email]]  # invitations go even with "none"
    assert sent()[0].extra_headers["List-Unsubscribe"].startswith(f"<{SITE}/unsubscribe/")


def test_unsubscribe_get_confirms_post_turns_emails_off() -> None:
    anne = make_user("anne")
    url = f"/unsubscribe/{unsubscribe_token(anne)}/"
    client = Client(enforce_csrf_checks=True)
    page = client.get(url)
    assert page.status_code == 200 and b"<form method=\"post\"" in page.content
    assert not PlayerProfile.objects.filter(user=anne).exists()  # a GET changes nothing

    done = client.post(url)
    assert done.status_code == 200
    assert PlayerProfile.objects.get(user=anne).notify == PlayerProfile.Notify.NONE


def test_one_click_unsubscribe_post_rfc8058() -> None:
    anne = make_user("anne", PlayerProfile.Notify.DAILY_DIGEST)
    client = Client(enforce_csrf_checks=True)
    response = client.post(f"/unsubscribe/{unsubscribe_token(anne)}/", data="List-Unsubscribe=One-Click",
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200
    assert PlayerProfile.objects.get(user=anne).notify == PlayerProfile.Notify.NONE


def test_unsubscribe_refuses_a_forged_token() -> None:
    anne = make_user("anne")
    forged = unsubscribe_token(anne)[:-2] + "xx"
    client = Client()
    assert client.post(f"/unsubscribe/{forged}/").status_code == 404
    assert client.get("/unsubscribe/not-a-token/").status_code == 404
    assert not PlayerProfile.objects.filter(user=anne, notify=PlayerProfile.Notify.NONE).exists()


def test_unsubscribed_player_gets_no_more_turn_emails(
    django_capture_on_commit_callbacks: OnCommit, settings: SettingsWrapper
) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    message = sent()[0]
    link = next(url for url in links(message) if url.startswith(f"{SITE}/unsubscribe/"))
    assert Client().post(link.removeprefix(SITE)).status_code == 200
    first = person_to_act(game)
    clear_outbox()
    # Play round the table until the unsubscribed player is to act again: no email for them.
    move(django_capture_on_commit_callbacks, game)
    while person_to_act(game).position != first.position:
        move(django_capture_on_commit_callbacks, game)
    assert first.user is not None
    assert all(m.to != [first.user.email] for m in sent())
    assert len(sent()) == 2


def test_timeout_email_names_the_late_player(django_capture_on_commit_callbacks: OnCommit) -> None:
    people = [make_user("anne"), make_user("bart"), make_user("cleo")]
    game = start_game(django_capture_on_commit_callbacks, people)
    late = person_to_act(game)
    assert late.user is not None
    clear_outbox()
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    with django_capture_on_commit_callbacks(execute=True):
        tasks.sweep.delay().get()
    timeout = Event.objects.get(game=game, kind=Event.Kind.TIMEOUT)
    mails = {m.to[0]: m for m in sent() if m.subject.startswith("Timeout")}
    assert set(mails) == {p.email for p in people}
    assert mails[late.user.email].subject == "Timeout in Skull Bay: you ran out of time"
    other = next(p for p in people if p.pk != late.user.pk)
    assert mails[other.email].subject == f"Timeout in Skull Bay: {late.user.username} ran out of time"
    assert timeout.payload["text"] in mails[other.email].body
