"""Turn emails of every rule set (through its table plugin, or the generic table)
list the moves, and a reply plays one; the number's meaning is recomputed from (game, seat,
seq) alone; "pass" passes where passing is legal; in a simultaneous phase the other seats'
picks do not make a reply stale, while anything the seat could see or do changing does."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.core import mail

import engine
from games.emails.addresses import MoveAddress, read_address
from games.emails.replies import numbered_moves
from games.models import Event, Game, Seat
from games.services import load_state, rules_for
from tests.inbound.helpers import (
    OnCommit,
    answers_to,
    client_reply,
    deliver,
    latest_turn_email,
    numbered,
    people,
    reply_address,
    start_game,
)
from tests.inbound.passing_toy import PASS, passing_toy_registered

pytestmark = pytest.mark.django_db
NAMES = ("anne", "bart", "cleo", "dave", "emma", "finn")


@pytest.fixture
def passing_toy() -> Iterator[None]:
    with passing_toy_registered():
        yield


def _key(action: dict[str, object]) -> str:
    return json.dumps(action, sort_keys=True)


def _people_to_act(game: Game) -> list[Seat]:
    game.refresh_from_db()
    seats = Seat.objects.filter(game=game, position__in=game.to_act).select_related("user")
    return list(seats.order_by("position"))


@pytest.mark.parametrize("rules_id", [rules_id for rules_id, _title in engine.available_rules()])
def test_every_rule_sets_turn_email_lists_its_moves_and_a_reply_plays_one(
    on_commit: OnCommit, rules_id: str
) -> None:
    rules = engine.get_rules(rules_id)
    game = start_game(on_commit, people(*NAMES[: rules.min_players]), rules_id=rules_id)
    seats = _people_to_act(game)
    assert seats
    state = load_state(game)
    for seat in seats:
        assert seat.user is not None
        email = latest_turn_email(seat.user)
        listed = numbered(str(email.body))
        expected = numbered_moves(game, seat.position, game.seq)
        assert listed == {move.number: move.label for move in expected.moves}
        legal = rules_for(game).legal_actions(state, seat.position)
        assert sorted(map(_key, (m.action for m in expected.moves))) == sorted(map(_key, legal))
        assert read_address(reply_address(email)) == MoveAddress(game.pk, seat.position, game.seq)
    # Every seat to act replies "1" to its own email, in turn.
    for seat in seats:
        assert seat.user is not None
        email = latest_turn_email(seat.user)
        first = numbered_moves(game, seat.position, game.seq).number(1) if not rules.simultaneous else None
        outcome = deliver(on_commit, client_reply(email, "1"))
        assert outcome.status == "played", (rules_id, seat.position, outcome)
        played = Event.objects.filter(game=game, seat=seat.position, kind="action").latest("seq")
        assert played.actor == f"user:{seat.user.pk}"
        if first is not None:
            assert played.action == first.action
        game.refresh_from_db()


def test_the_numbers_are_recomputed_from_the_game_seat_and_seq_alone(
    on_commit: OnCommit,
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"))
    (seat,) = _people_to_act(game)
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    seq = game.seq
    assert deliver(on_commit, client_reply(email, "7")).status == "played"
    game.refresh_from_db()
    assert game.seq > seq
    # Long after, the numbers of the email at ``seq`` still mean what the email said.
    again = numbered_moves(game, seat.position, seq)
    assert {m.number: m.label for m in again.moves} == numbered(str(email.body))
    assert Event.objects.get(game=game, seq=seq + 1).action == again.number(7).action  # type: ignore[union-attr]


def test_pass_passes_where_passing_is_legal(on_commit: OnCommit, passing_toy: None) -> None:
    game = start_game(on_commit, people("anne", "bart"), rules_id="toy-pass")
    seat = _people_to_act(game)[0]
    assert seat.user is not None
    email = latest_turn_email(seat.user)
    assert 'Or reply "pass" to pass.' in str(email.body)
    assert deliver(on_commit, client_reply(email, "Pass.")).status == "played"
    assert Event.objects.get(game=game, seq=game.seq + 1).action == PASS


def test_in_a_simultaneous_phase_the_others_picks_do_not_make_a_reply_stale(
    on_commit: OnCommit, passing_toy: None
) -> None:
    game = start_game(on_commit, people("anne", "bart", "cleo"), rules_id="toy-pass")
    anne, bart, cleo = _people_to_act(game)
    assert anne.user is not None and bart.user is not None and cleo.user is not None
    emails = {seat.position: latest_turn_email(seat.user) for seat in (anne, bart, cleo)}  # type: ignore[arg-type]
    seq = game.seq
    assert deliver(on_commit, client_reply(emails[anne.position], "2")).status == "played"
    # Bart's email was written at ``seq``; anne's secret pick since changes nothing he sees.
    assert deliver(on_commit, client_reply(emails[bart.position], "3")).status == "played"
    picks = list(Event.objects.filter(game=game, seq__gt=seq).order_by("seq"))
    assert [(e.seat, e.action) for e in picks] == [
        (anne.position, {"type": "pick", "number": 2}), (bart.position, {"type": "pick", "number": 3})
    ]
    # Cleo's pick ends the round; then anne's old email is for an older position: her own
    # move came since.
    assert deliver(on_commit, client_reply(emails[cleo.position], "1")).status == "played"
    mail.outbox.clear()
    assert deliver(on_commit, client_reply(emails[anne.position], "1")).status == "stale"
    (answer,) = answers_to(anne.user)
    assert "It is your turn now." in str(answer.body)
