"""P-TURN-1 through the services: a seat whose only legal action is to pass passes at once,
as the system (``settle`` asks the rule set's ``forced_action``), and the game moves on."""

from __future__ import annotations

import pytest
from django.db import transaction

from games.models import Event, Game
from games.services.play import lock_game, settle
from tests.engine.pirates_support import situation
from tests.services.support import make_users, started_game


@pytest.mark.django_db
def test_p_turn_1_seats_with_only_pass_pass_as_the_system() -> None:
    game = started_game(make_users(3))
    # Each seat controls its own 5 pirates and only ships needing 6 or 7 show: nobody can do
    # anything, so all pass in turn as the system and the full round of passes ends the game.
    parties = [[f"{s}.2", f"{s}.3", f"{s}.4", f"{s}.5", f"{s}.Q"] for s in range(3)]
    state = situation(3, parties=parties, display=["S11", "S12", "S13", "R06"], active=1)
    with transaction.atomic():
        settle(lock_game(game.pk), state)
    game.refresh_from_db()
    passes = list(Event.objects.filter(game=game, kind=Event.Kind.AUTO_PASS).order_by("seq"))
    assert [(e.seat, e.actor, e.payload["action"]) for e in passes] == [
        (1, "system:pass", {"type": "pass"}),
        (2, "system:pass", {"type": "pass"}),
        (0, "system:pass", {"type": "pass"}),
    ]
    assert passes[0].payload["text"] == "Blue has no possible action and passes."
    assert game.status == Game.Status.FINISHED and game.to_act == []


@pytest.mark.django_db
def test_p_turn_1_no_forced_pass_while_the_seat_to_act_has_a_move() -> None:
    game = started_game(make_users(3))
    seq = game.seq
    with transaction.atomic():
        settle(lock_game(game.pk), situation(3, active=1))
    game.refresh_from_db()
    assert game.seq == seq and game.to_act == [1]
    assert not Event.objects.filter(game=game, kind=Event.Kind.AUTO_PASS).exists()
