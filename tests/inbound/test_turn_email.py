"""Numbered and grouped as the table groups them, with
the instruction, and a signed Reply-To naming the game, the seat and the event."""

from __future__ import annotations

import pytest

from games.emails.addresses import MoveAddress, read_address
from games.services import load_state, rules_for
from games.tables import table_for
from tests.inbound.helpers import (
    OnCommit,
    html_of,
    latest_turn_email,
    numbered,
    people,
    reply_address,
    seat_to_act,
    start_game,
)

pytestmark = pytest.mark.django_db


def test_turn_email_lists_the_moves_numbered_in_the_tables_groups(
    on_commit: OnCommit,
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    seat = seat_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    text = str(email.body)
    print(text)
    moves = numbered(text)
    state = load_state(game)
    rules = rules_for(game)
    legal = rules.legal_actions(state, seat.position)
    groups = table_for("pirates").move_groups(legal, rules.view(state, seat.position))
    labels = [move.label for group in groups for move in group.moves]
    # 1..n in the grouped order, every legal action once, each under its group's heading.
    assert moves == {number: label for number, label in enumerate(labels, start=1)}
    assert len(moves) == len(legal)
    for group in groups:
        assert f"\n{group.label}" in text
    assert "Reply with the number of your move." in text
    html = html_of(email)
    assert "Reply with the number of your move." in html
    assert all(label.replace("'", "&#x27;") in html for label in labels[:3])

    address = reply_address(email)
    assert read_address(address) == MoveAddress(game.pk, seat.position, game.seq)
