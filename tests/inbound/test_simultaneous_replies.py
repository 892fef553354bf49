"""Replies at Libertalia's Sunrise: the reply handler only translates the number; the service
decides whether the email's position still counts. Other players' secret picks since the email
do not make a reply stale (the README's promise); the player's own pick, or the reveal, does,
and such a reply is answered "moved on" whatever it says."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail

from games.emails.replies import numbered_moves
from games.models import Event, Game, Seat
from games.services import action_submit
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    deliver,
    latest_turn_email,
    people,
    start_game,
)

pytestmark = pytest.mark.django_db


def _seated(game: Game) -> dict[int, User]:
    seats = Seat.objects.filter(game=game).select_related("user")
    return {seat.position: seat.user for seat in seats if seat.user is not None}


def test_sunrise_replies_count_until_the_players_own_pick(on_commit: OnCommit) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"), rules_id="libertalia")
    seq = game.seq
    a, b, c = sorted(game.to_act)
    users = _seated(game)
    emails = {seat: latest_turn_email(users[seat]) for seat in (a, b, c)}

    # A picks on the site; B's email, written before, is still B's choice.
    with on_commit(execute=True):
        action_submit(game_id=game.pk, user=users[a], action=numbered_moves(game, a, seq).moves[0].action,
                      expected_seq=seq)
    assert deliver(on_commit, client_reply(emails[b], "2")).status == "played"
    played = Event.objects.get(game=game, seq=seq + 2)
    assert (played.seat, played.action) == (b, numbered_moves(game, b, seq).number(2).action)  # type: ignore[union-attr]

    # A wrong number from C is a mistake in the reply, not an older position.
    mail.outbox.clear()
    assert deliver(on_commit, client_reply(emails[c], "999")).status == "problem"
    (answer,) = answers_to(users[c])
    assert "There is no move 999" in str(answer.body)
    assert deliver(on_commit, client_reply(emails[c], "1")).status == "played"  # the reveal
    game.refresh_from_db()
    after_reveal = game.seq

    # B's second thought, and anything A sends to the email of the Sunrise: the game moved on.
    for seat, text in ((b, "1"), (a, "1"), (a, "999"), (a, "maybe")):
        mail.outbox.clear()
        assert deliver(on_commit, client_reply(emails[seat], text)).status == "stale", (seat, text)
        (answer,) = answers_to(users[seat])
        assert "Your reply was not played" in str(answer.body)
    game.refresh_from_db()
    assert game.seq == after_reveal
