"""Taking back a move through the service (games/services/takeback.py): allowed exactly when
the rule set says the move revealed nothing (``Rules.reveals``, asked of the state before
it), refused with the rule set's reason otherwise; and after a take-back the game's state is
the state before the move, generator included, however it is rebuilt."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import User

import engine
from games import services
from games.models import Event, Game
from games.read.state import cache_clear, load_state, replay_from_start, rules_for
from tests.services.support import make_users

pytestmark = pytest.mark.django_db

MOVES = 70
# A rule set may reveal rarely (classic Pirates only on the refill after the last face-up ship
# is boarded), and the deal is random: play on past MOVES until both paths were taken.
MAX_MOVES = 600
RULE_SETS = [rules_id for rules_id, _ in engine.available_rules()]


def started(rules_id: str, users: list[User]) -> Game:
    game = services.game_create(creator=users[0], rules_id=rules_id, players=len(users), is_public=True)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    return game


def seated(game: Game, users: list[User]) -> dict[int, User]:
    by_id = {user.pk: user for user in users}
    return {seat.position: by_id[seat.user_id] for seat in game.seats.all() if seat.user_id}


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_a_move_goes_back_exactly_when_the_rule_set_says_it_revealed_nothing(rules_id: str) -> None:
    rules = engine.get_rules(rules_id)
    players = rules.player_counts[0]
    users = make_users(players, prefix=rules_id.replace("-", ""))
    game = started(rules_id, users)
    by_seat = seated(game, users)
    rng = random.Random(rules_id)
    undone = refused = 0
    for move in range(MAX_MOVES):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or (move >= MOVES and undone and refused):
            break
        seat = rng.choice(game.to_act)
        state = load_state(game)
        before = rules.dump(state)
        action: dict[str, Any] = dict(rng.choice(rules.legal_actions(state, seat)))
        reason = rules.reveals(state, seat, action)
        event = services.action_submit(
            game_id=game.pk, user=by_seat[seat], action=action, expected_seq=game.seq
        ).event
        game.refresh_from_db()
        if event.seq != game.seq:
            continue  # the service played a forced move after it: another seat has acted
        check = services.take_back_check(game, event, game.seats.get(position=seat))
        if game.status != Game.Status.ACTIVE:  # the rule set said so: the end shows the deal
            assert reason is not None and not check.allowed
            break
        if reason is not None:
            assert not check.allowed and check.final == reason
            assert check.reason == f"That move is final: {reason}."
            with pytest.raises(services.Conflict, match="That move is final"):
                services.move_take_back(game_id=game.pk, user=by_seat[seat], expected_seq=game.seq)
            game.refresh_from_db()
            assert game.seq == event.seq, "a refused take-back changes nothing"
            refused += 1
            continue
        assert check.allowed, check.reason
        if rng.random() < 0.5:
            continue  # and play on: the move stands
        services.move_take_back(game_id=game.pk, user=by_seat[seat], expected_seq=game.seq)
        game.refresh_from_db()
        assert Event.objects.get(game=game, seq=game.seq).payload["takes_back"] == event.seq
        assert seat in game.to_act
        assert rules_for(game).dump(load_state(game)) == before
        cache_clear()
        assert rules_for(game).dump(load_state(game)) == before
        assert rules_for(game).dump(replay_from_start(game)) == before
        undone += 1
    assert undone > 0 and refused > 0, (undone, refused)


def test_libertalia_a_sunrise_pick_is_final_with_the_reason() -> None:
    """L-SUN-1: a pick is secret and final; the refusal says so in the rule set's words."""
    users = make_users(3, prefix="sun")
    game = started("libertalia", users)
    by_seat = seated(game, users)
    seat = game.to_act[0]
    action = services.rules_for(game).legal_actions(load_state(game), seat)[0]
    event = services.action_submit(
        game_id=game.pk, user=by_seat[seat], action=action, expected_seq=game.seq
    ).event
    game.refresh_from_db()
    check = services.take_back_check(game, event, game.seats.get(position=seat))
    assert not check.allowed
    assert check.reason == "That move is final: your pick is revealed with the others."


def test_classic_pirates_a_move_of_public_stacks_goes_back() -> None:
    """C-MOVE-1: moving a stack shows nothing hidden; classic Pirates used to forbid every
    take-back because its challenge questions are asked of several seats at once."""
    users = make_users(3, prefix="classic")
    game = started("pirates-classic", users)
    by_seat = seated(game, users)
    seat = game.to_act[0]
    state = load_state(game)
    before = rules_for(game).dump(state)
    action = next(a for a in rules_for(game).legal_actions(state, seat) if a["type"] == "move")
    services.action_submit(game_id=game.pk, user=by_seat[seat], action=action, expected_seq=game.seq)
    game.refresh_from_db()
    services.move_take_back(game_id=game.pk, user=by_seat[seat], expected_seq=game.seq)
    game.refresh_from_db()
    assert game.to_act == [seat]
    assert rules_for(game).dump(load_state(game)) == before


def test_a_secret_move_stays_final_even_if_a_rule_set_says_it_revealed_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service's own safety checks hold whatever ``reveals`` says: an event with a secret
    part (here a Sunrise pick's private sentence and hidden action) is never taken back."""
    users = make_users(3, prefix="careless")
    game = started("libertalia", users)
    rules = rules_for(game)
    monkeypatch.setattr(type(rules), "reveals", lambda self, state, seat, action: None)
    by_seat = seated(game, users)
    seat = game.to_act[0]
    action = rules.legal_actions(load_state(game), seat)[0]
    event = services.action_submit(
        game_id=game.pk, user=by_seat[seat], action=action, expected_seq=game.seq
    ).event
    game.refresh_from_db()
    check = services.take_back_check(game, event, game.seats.get(position=seat))
    assert not check.allowed and check.final == ""
    assert check.reason == "That move showed you something the others did not see: it is final."
    with pytest.raises(services.Conflict):
        services.move_take_back(game_id=game.pk, user=by_seat[seat], expected_seq=game.seq)
