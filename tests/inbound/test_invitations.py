"""Replying "join" to an invitation takes the seat for an address
with an account; any other address gets the link to sign up; anyone else gets nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail

from games.emails.addresses import InvitationAddress, read_address
from games.models import Game, Invitation, Seat
from games.services import game_create, invitation_create
from tests.inbound.helpers import OnCommit, answers_to, client_reply, deliver, people, reply_address, sent

pytestmark = pytest.mark.django_db


def _invite(email: str, on_commit: OnCommit) -> tuple[Game, Invitation]:
    (anne,) = people("anne")
    game = game_create(creator=anne, rules_id="pirates", players=3, title="Skull Bay")
    mail.outbox.clear()
    # The invitation email goes out through the outbox, once the invitation is committed.
    with on_commit(execute=True):
        (invitation,) = invitation_create(game_id=game.pk, by=anne, emails=email)
    return game, invitation


def _invitation_email(email: str) -> object:
    (message,) = [m for m in sent() if m.to == [email]]
    return message


def test_the_invitation_email_carries_a_signed_reply_address_and_says_reply_join(
    on_commit: OnCommit,
) -> None:
    _game, invitation = _invite("bart@example.test", on_commit)
    (message,) = sent()
    assert message.subject == "anne invites you to Skull Bay"
    assert read_address(reply_address(message)) == InvitationAddress(invitation.pk)
    assert "reply to this email with the word join" in str(message.body)


def test_replying_join_from_an_account_takes_the_seat(on_commit: OnCommit) -> None:
    (bart,) = people("bart")
    game, invitation = _invite(bart.email, on_commit)
    (message,) = sent()
    mail.outbox.clear()
    raw = client_reply(message, "join")
    outcome = deliver(on_commit, raw)
    assert (outcome.status, outcome.answer) == ("joined", "joined")
    assert Seat.objects.filter(game=game, user=bart).exists()
    invitation.refresh_from_db()
    assert invitation.accepted_by == bart
    (answer,) = answers_to(bart)
    assert "You have taken your seat in Skull Bay (2 of 3 seats taken)." in str(answer.body)
    # Delivered twice: one seat, one answer.
    deliver(on_commit, raw)
    assert Seat.objects.filter(game=game).count() == 2 and len(answers_to(bart)) == 1


def test_a_reply_that_is_not_join_says_how_to_join(on_commit: OnCommit) -> None:
    (bart,) = people("bart")
    game, _invitation = _invite(bart.email, on_commit)
    (message,) = sent()
    mail.outbox.clear()
    assert deliver(on_commit, client_reply(message, "yes please")).status == "join_refused"
    assert not Seat.objects.filter(game=game, user=bart).exists()
    (answer,) = answers_to(bart)
    assert "To take your seat, reply with the word join (we read “yes please”)." in str(answer.body)


def test_an_address_without_an_account_gets_the_link_to_sign_up(
    on_commit: OnCommit,
) -> None:
    game, invitation = _invite("newcomer@example.test", on_commit)
    (message,) = sent()
    mail.outbox.clear()
    raw = client_reply(message, "join")
    outcome = deliver(on_commit, raw)
    assert outcome.status == "sign_up"
    assert Seat.objects.filter(game=game).count() == 1
    (answer,) = sent()
    assert answer.to == ["newcomer@example.test"]
    assert f"/invite/{invitation.token}/" in str(answer.body)
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied"
    deliver(on_commit, raw)
    assert len(sent()) == 1  # answered once


def test_join_from_another_address_changes_nothing_and_is_not_answered(
    on_commit: OnCommit,
) -> None:
    (bart,) = people("bart")
    game, _invitation = _invite("cleo@example.test", on_commit)
    (message,) = sent()
    mail.outbox.clear()
    outcome = deliver(on_commit, client_reply(message, "join", sender=bart.email))
    assert (outcome.status, outcome.answer) == ("not_the_invited", "")
    assert Seat.objects.filter(game=game).count() == 1 and mail.outbox == []


def test_join_after_the_game_started_says_why_not(on_commit: OnCommit) -> None:
    bart, cleo, dave = people("bart", "cleo", "dave")
    game, _invitation = _invite(dave.email, on_commit)
    (message,) = sent()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ACTIVE)
    mail.outbox.clear()
    assert deliver(on_commit, client_reply(message, "join")).status == "join_refused"
    (answer,) = answers_to(dave)
    assert "We could not give you a seat in Skull Bay." in str(answer.body)
    assert not Seat.objects.filter(game=game, user=dave).exists()
    assert User.objects.filter(pk__in=[bart.pk, cleo.pk]).count() == 2
