"""Every move option says what it will do before it is made, moves are
confirmed (a per-player setting switches that off), and a move can be taken back until the
next player acts unless it revealed something. The take-back is an event of its own; every
way of rebuilding the game (load_state, replay from the start, replay_check, the engine's
log replay) leaves the taken-back move out."""

from __future__ import annotations

import html
import json
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from engine import gamelog
from games import selectors, services
from games.models import Event, Game, PlayerProfile, Snapshot
from games.read.state import cache_clear, load_state, replay_from_start, rules_for
from games.tables import table_for
from tests.web.helpers import logged_in, make_user, started_game

pytestmark = pytest.mark.django_db

FORM_RE = re.compile(r'<form method="post" action="/games/\d+/act/" class="move-form" data-label="([^"]*)" '
                     r'data-preview="([^"]*)"[^>]*>.*?name="action" value="([^"]+)"', re.S)


def _forms(page: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (html.unescape(a), html.unescape(b), json.loads(html.unescape(c)))
        for a, b, c in FORM_RE.findall(page)
    ]


@pytest.fixture
def trio() -> tuple[Game, list[Any], list[Client]]:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    return game, users, [logged_in(user) for user in users]


def _to_act(game: Game, users: list[Any]) -> int:
    game.refresh_from_db()
    return game.to_act[0]


def _move(game: Game, users: list[Any], prefer: str = "assemble") -> Event:
    game.refresh_from_db()
    seat = game.to_act[0]
    actions = selectors.game_detail(game, users[seat])["legal_actions"]
    action = next((a for a in actions if a["type"] == prefer), actions[0])
    submitted = services.action_submit(
        game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq
    )
    return submitted.event


def test_every_move_button_carries_its_preview(trio: tuple[Game, list[Any], list[Client]]) -> None:
    game, users, clients = trio
    seat = _to_act(game, users)
    page = clients[seat].get(f"/games/{game.pk}/").content.decode()
    forms = _forms(page)
    legal = selectors.game_detail(game, users[seat])["legal_actions"]
    assert sorted(json.dumps(a, sort_keys=True) for _, _, a in forms) == sorted(
        json.dumps(a, sort_keys=True) for a in legal
    )
    for label, preview, action in forms:
        assert label and preview, action
        if action["type"] in ("capture", "mutiny"):
            # Cost, ducats afterwards and what happens to the card.
            assert "Costs" in preview and "ducats" in preview
            assert "keep the card" in preview or "discard the card" in preview
    assert 'data-confirm="1"' in page and 'id="confirm-move"' in page


def test_preview_of_a_mutiny_says_what_it_costs_and_the_ducats_after() -> None:
    """The mutiny that cost 44 ducats in one click: the preview names the cost, the ducats
    before and after, and the black spot, from the engine's own arithmetic."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    rules = rules_for(game)
    table = table_for("pirates")
    # Play until someone may mutiny; then compare the preview with the move's real effect.
    for _ in range(200):
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE
        seat = game.to_act[0]
        state = load_state(game)
        actions = rules.legal_actions(state, seat)
        mutiny = next((a for a in actions if a["type"] == "mutiny"), None)
        if mutiny is not None:
            view = rules.view(state, seat)
            said = table.preview(mutiny, view, rules=rules, state=state, seat=seat)
            after = rules.apply(state, seat, mutiny)
            assert f"{state.treasury[seat]} → {after.treasury[seat]}" in said
            assert "double" in said or "Costs nothing" in said
            assert "black spot" in said
            return
        capture = next((a for a in actions if a["type"] in ("assemble",)), actions[0])
        services.action_submit(game_id=game.pk, user=users[seat], action=capture, expected_seq=game.seq)
    pytest.fail("no mutiny came up")


def test_generic_table_previews_with_the_action_label() -> None:
    """A rule set whose ``Rules.preview`` has nothing to say: the button's label stands in."""
    from games.tables.base import Table
    from tests.platform.toy import ToyRules

    rules = ToyRules()
    state = rules.new_game(2, "s")
    action = rules.legal_actions(state, 0)[0]
    assert rules.preview(state, 0, action) is None
    table = Table("a-rule-set-without-a-table")
    assert table.preview(action, {}, rules=rules, state=state, seat=0) == table.action_label(action, {})


def test_confirm_can_be_switched_off_in_the_profile(
    trio: tuple[Game, list[Any], list[Client]]
) -> None:
    game, users, clients = trio
    seat = _to_act(game, users)
    response = clients[seat].post("/accounts/profile/", {
        "display_name": "", "notify": "each_turn", "timezone": "UTC", "away_until": "",
    })
    assert response.status_code == 302
    assert PlayerProfile.objects.get(user=users[seat]).confirm_moves is False
    page = clients[seat].get(f"/games/{game.pk}/").content.decode()
    assert 'data-confirm="0"' in page


def test_take_back_until_the_next_player_acts(trio: tuple[Game, list[Any], list[Client]]) -> None:
    game, users, clients = trio
    seat = _to_act(game, users)
    before_state = rules_for(game).dump(load_state(game))
    moved = _move(game, users, "assemble")
    game.refresh_from_db()
    page = clients[seat].get(f"/games/{game.pk}/").content.decode()
    assert 'id="take-back"' in page
    # The others get no take-back button.
    other = next(i for i in range(3) if i != seat)
    assert 'id="take-back"' not in clients[other].get(f"/games/{game.pk}/").content.decode()
    response = clients[seat].post(f"/games/{game.pk}/take-back/", {"expected_seq": game.seq})
    assert response.status_code == 302
    game.refresh_from_db()
    last = Event.objects.get(game=game, seq=game.seq)
    assert last.kind == Event.Kind.TAKE_BACK and last.payload["takes_back"] == moved.seq
    assert game.to_act == [seat]
    assert rules_for(game).dump(load_state(game)) == before_state
    cache_clear()
    assert rules_for(game).dump(load_state(game)) == before_state
    assert rules_for(game).dump(replay_from_start(game)) == before_state
    # Once more is not possible: the last event is the take-back itself.
    with pytest.raises(services.Conflict):
        services.move_take_back(game_id=game.pk, user=users[seat], expected_seq=game.seq)


def test_no_take_back_after_the_next_player_acted(
    trio: tuple[Game, list[Any], list[Client]]
) -> None:
    game, users, _clients = trio
    first = _to_act(game, users)
    moved = _move(game, users)
    _move(game, users)
    game.refresh_from_db()
    with pytest.raises(services.ServiceError):
        services.move_take_back(game_id=game.pk, user=users[first], expected_seq=moved.seq)
    with pytest.raises(services.Conflict):
        services.move_take_back(game_id=game.pk, user=users[first], expected_seq=game.seq)


def test_no_take_back_of_a_move_that_drew_cards() -> None:
    """A capture that empties the display draws four new cards from the deck (P-CAP-8): the
    rule set says such a move is final, and the refusal says why."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = started_game(users)
    rules = rules_for(game)
    for _ in range(400):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        seat = game.to_act[0]
        state = load_state(game)
        actions = rules.legal_actions(state, seat)
        action = next((a for a in actions if a["type"] == "capture"), actions[0])
        event = services.action_submit(game_id=game.pk, user=users[seat], action=action,
                                       expected_seq=game.seq).event
        game.refresh_from_db()
        if event.seq != game.seq or game.status != Game.Status.ACTIVE:
            continue
        drew = rules.dump(load_state(game, event.seq - 1))["deck"] != rules.dump(load_state(game))["deck"]
        check = services.take_back_check(game, event, game.seats.get(position=seat))
        assert check.allowed is not drew
        if drew:
            assert check.reason == "That move is final: it turns up the next cards of the deck."
            return
    pytest.fail("no capture drew cards")


def test_take_back_after_a_snapshot_and_replay_check(
    settings: SettingsWrapper, trio: tuple[Game, list[Any], list[Client]]
) -> None:
    """A snapshot written right after the move that is taken back includes that move:
    rebuilding starts from an earlier one. replay_check and the engine's log replay agree."""
    settings.SNAPSHOT_EVERY = 3
    game, users, _clients = trio
    for _ in range(20):
        game.refresh_from_db()
        if (game.seq + 1) % 3 == 0:
            break
        _move(game, users)
    seat = _to_act(game, users)
    before = rules_for(game).dump(load_state(game))
    moved = _move(game, users)
    game.refresh_from_db()
    if moved.seq != game.seq:
        pytest.skip("the move was followed by a forced pass")
    assert Snapshot.objects.filter(game=game, seq=moved.seq).exists()
    services.move_take_back(game_id=game.pk, user=users[seat], expected_seq=game.seq)
    game.refresh_from_db()
    cache_clear()
    assert rules_for(game).dump(load_state(game)) == before
    out = StringIO()
    call_command("replay_check", stdout=out)
    assert "differ" not in out.getvalue() and "fails" not in out.getvalue(), out.getvalue()
    rows = [
        {"seq": e.seq, "kind": e.kind, "seat": e.seat, "payload": e.payload, "actor": e.actor, "hash": e.hash}
        for e in Event.objects.filter(game=game).order_by("seq")
    ]
    log = gamelog.parse([json.dumps(row) for row in rows])
    assert moved.seq not in [a.seq for a in log.actions]
    assert rules_for(game).dump(gamelog.replay(log)) == before
    # The replay's frames: the move shows at its own seq, and is gone after the take-back.
    player = Client()
    player.force_login(users[seat])
    text = player.get(f"/games/{game.pk}/replay/").content.decode()
    found = re.search(r'<script id="chart-series" type="application/json">(.*?)</script>', text)
    assert found is not None
    series = json.loads(found.group(1))
    assert series[game.seq - 1] == series[moved.seq - 2]
    assert "takes back that move" in text
