"""A repeated idempotency key returns the first result and appends nothing, whatever seq it
is sent with. Keys are per player: one player's key never stops another player's move."""

from __future__ import annotations

import pytest

from games import selectors, services
from games.models import Event
from tests.services.support import make_users, started_game, user_to_act


def _first_legal(game_id: int) -> tuple[dict[str, object], int]:
    game = selectors.visible_game(game_id, None)
    mover = user_to_act(game)
    detail = selectors.game_detail(selectors.visible_game(game_id, mover), mover)
    return detail["legal_actions"][0], detail["seq"]


@pytest.mark.django_db
def test_repeated_key_with_the_stale_seq_returns_the_first_event() -> None:
    game = started_game(make_users(3))
    mover = user_to_act(game)
    action, seq = _first_legal(game.pk)
    first = services.action_submit(
        game_id=game.pk, user=mover, action=action, expected_seq=seq, idempotency_key="k"
    )
    again = services.action_submit(
        game_id=game.pk, user=mover, action=action, expected_seq=seq, idempotency_key="k"
    )
    assert first.created and not again.created
    assert again.event.pk == first.event.pk
    assert Event.objects.filter(game=game).count() == seq + 1


@pytest.mark.django_db
def test_repeated_key_sent_with_the_current_seq_appends_nothing() -> None:
    """The unique (game, idempotency_key) catches a reused key on the happy path."""
    game = started_game(make_users(3))
    mover = user_to_act(game)
    action, seq = _first_legal(game.pk)
    first = services.action_submit(
        game_id=game.pk, user=mover, action=action, expected_seq=seq, idempotency_key="k"
    )
    count = Event.objects.filter(game=game).count()
    game.refresh_from_db()
    next_mover = user_to_act(game)
    next_action, next_seq = _first_legal(game.pk)
    if next_mover.pk == mover.pk:  # the same player again (a forced pass came between)
        pytest.skip("the deal gave the same player two turns in a row")
    # The first player reuses their key with the current seq: the first result, nothing new.
    reused = services.action_submit(
        game_id=game.pk, user=mover, action=next_action, expected_seq=next_seq, idempotency_key="k"
    )
    assert not reused.created and reused.event.pk == first.event.pk
    assert Event.objects.filter(game=game).count() == count
    # The next player may use the same key for their own move (keys are per
    # player, so nobody can squat another player's key).
    theirs = services.action_submit(
        game_id=game.pk, user=next_mover, action=next_action, expected_seq=next_seq, idempotency_key="k"
    )
    assert theirs.created and theirs.event.seq == next_seq + 1
    assert Event.objects.filter(game=game, idempotency_key="k").count() == 2
