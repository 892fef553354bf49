"""The game-over email's "Play again", and the seat offer of a rematch: sent once, through the
outbox, to the verified address, and not at all once the person has answered."""

from __future__ import annotations

import pytest
from django.test import Client

from games import tasks
from games.models import Game, Notification, RematchReply
from games.services.rematch import rematch_answer, rematch_create
from tests.notifications.helpers import SITE, OnCommit, clear_outbox, links, make_user, move, sent, start_game

pytestmark = pytest.mark.django_db


def test_game_over_email_offers_play_again(
    django_capture_on_commit_callbacks: OnCommit, client: Client
) -> None:
    anne, bart = make_user("anne"), make_user("bart")
    game = start_game(django_capture_on_commit_callbacks, [anne, bart], bots=1)
    while game.status == Game.Status.ACTIVE:
        move(django_capture_on_commit_callbacks, game)
    over = next(m for m in sent() if m.subject == "Game over: Skull Bay" and m.to == [anne.email])
    assert "Play again" in over.body
    again = [url for url in links(over) if url.startswith(f"{SITE}/l/")]
    followed = [client.get(url.removeprefix(SITE)) for url in again]
    assert any(r.status_code == 302 and r["Location"] == f"/games/{game.pk}/rematch/" for r in followed)
    page = client.get(f"/games/{game.pk}/rematch/")
    assert page.status_code == 200 and 'id="play-again"' in page.content.decode()

    # The rematch: bart is offered his seat once, the bot seat is a bot again.
    clear_outbox()
    with django_capture_on_commit_callbacks(execute=True):
        new, made = rematch_create(game_id=game.pk, by=anne)
    offers = [m for m in sent() if m.subject == f"anne asks you to a rematch: {new.display_name}"]
    assert made and [m.to for m in offers] == [[bart.email]]
    assert "I'm in" in offers[0].body and "Not this time" in offers[0].body
    assert offers[0].extra_headers["List-Unsubscribe"].startswith(f"<{SITE}/unsubscribe/")
    assert tasks.send_rematch.delay(new.pk, bart.pk).get() is False  # sent already: once
    rematch_answer(game_id=new.pk, user=bart, accept=True)
    assert RematchReply.objects.get(rematch__game=new, user=bart).answer == "in"
    assert Notification.objects.filter(kind=Notification.Kind.REMATCH, user=bart).count() == 1


def test_no_offer_once_answered(django_capture_on_commit_callbacks: OnCommit) -> None:
    anne, bart, cora = make_user("anne"), make_user("bart"), make_user("cora")
    game = start_game(django_capture_on_commit_callbacks, [anne, bart, cora])
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, result={"scores": [1, 2, 3], "winners": [2]}
    )
    # The offers are owed (outbox rows) but bart answers before they go out.
    new, _ = rematch_create(game_id=game.pk, by=anne)
    rematch_answer(game_id=new.pk, user=bart, accept=False)
    assert tasks.send_rematch.delay(new.pk, bart.pk).get() is False
    assert tasks.send_rematch.delay(new.pk, cora.pk).get() is True
    assert [m.to for m in sent() if "rematch" in m.subject] == [[cora.email]]
