"""Move numbers are fixed when the email is written: a reply "2" plays the move the email
showed as 2, even when a deploy changed the table's grouping in between; every later email for
the same position lists them the same way; and the handler reads the list back instead of
computing the moves again."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from games.emails import replies
from games.models import Event, ListedMoves
from games.read import seat_table
from games.tables import MoveGroup, table_for
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    deliver,
    latest_turn_email,
    numbered,
    people,
    seat_to_act,
    start_game,
)

pytestmark = pytest.mark.django_db


def _regroup_in_reverse(monkeypatch: pytest.MonkeyPatch, rules_id: str) -> None:
    """A deploy that changes the table's grouping: groups and their moves in reverse order."""
    table = table_for(rules_id)
    original = table.move_groups

    def reversed_groups(legal: list[dict[str, Any]], view: dict[str, Any],
                        previews: list[str] | None = None) -> list[MoveGroup]:
        groups = original(legal, view, previews)
        for group in groups:
            group.moves.reverse()
        return list(reversed(groups))

    monkeypatch.setattr(table, "move_groups", reversed_groups)


@pytest.mark.parametrize("rules_id", ["pirates", "libertalia"])
def test_a_reply_plays_the_move_the_email_showed_after_the_grouping_changed(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch, rules_id: str
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"), rules_id=rules_id)
    seat = seat_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    shown = numbered(str(email.body))
    before = game.seq
    listed = replies.numbered_moves(game, seat.position, before)
    assert {m.number: m.label for m in listed.moves} == shown
    assert ListedMoves.objects.filter(game=game, position=seat.position, seq=before).count() == 1

    _regroup_in_reverse(monkeypatch, rules_id)
    now = seat_table(game, seat.position).moves
    # The read model numbers differently now: move 1 is another move than the email's 1.
    assert len(now) > 1 and now.number(1).action != listed.number(1).action  # type: ignore[union-attr]
    mail.outbox.clear()

    outcome = deliver(on_commit, client_reply(email, "1"))

    assert (outcome.status, outcome.answer) == ("played", "played")
    event = Event.objects.get(game=game, seq=before + 1)
    assert event.seat == seat.position
    assert event.action == listed.number(1).action  # type: ignore[union-attr]


def test_every_email_for_one_position_lists_the_moves_as_the_first_did(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    shown = numbered(str(email.body))
    _regroup_in_reverse(monkeypatch, game.rules_id)
    mail.outbox.clear()

    # A reply with no move in it is answered with the moves again, for the same position.
    outcome = deliver(on_commit, client_reply(email, "999"))

    assert outcome.status == "problem"
    (answer,) = answers_to(seat.user)
    assert numbered(str(answer.body)) == shown
    # ... and a reply to that answer plays what it showed.
    assert deliver(on_commit, client_reply(answer, "2")).status == "played"
    event = Event.objects.get(game=game, seq=game.seq + 1)
    again = replies.numbered_moves(game, seat.position, game.seq)
    assert event.action == again.number(2).action  # type: ignore[union-attr]


def test_the_reply_handler_reads_the_listed_moves_back_and_computes_them_at_most_once(
    on_commit: OnCommit, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    seq = game.seq
    tables: list[Any] = []
    real = replies.seat_table

    def counting(*args: Any, **kwargs: Any) -> Any:
        table = real(*args, **kwargs)
        tables.append(table)
        return table

    monkeypatch.setattr(replies, "seat_table", counting)
    # Stored when the email was written: the handler builds no table at all.
    assert deliver(on_commit, client_reply(email, "999")).status == "problem"
    assert [t for t in tables if t.seq == seq] == []
    # An email from before the moves were stored: numbered once, from the read model (the
    # answer to a played move may list the next position's moves: not counted here).
    ListedMoves.objects.filter(game=game).delete()
    assert deliver(on_commit, client_reply(email, "1")).status == "played"
    assert len([t for t in tables if t.seq == seq]) == 1
