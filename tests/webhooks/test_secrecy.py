"""Webhooks carry only what every player may read. Tested by indistinguishability with a real
receiver: two games that differ only in a secret (a Libertalia pick, a Captain Lucky hand),
played by the same people with the same public moves, give byte-identical deliveries in every
format once the game's own id is set aside (and the JSON's delivery id, which is per delivery)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import Game, Webhook
from games.services import lobby, webhooks
from tests.engine.captain_lucky_support import shuffled_deck
from tests.engine.test_captain_lucky_secrecy import first_difference, swap
from tests.services.support import make_users, seat_user
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db

FORMATS = ("json", "discord", "slack")
SEED = "0123456789abcdef0123456789abcdef"


def start(
    rules_id: str, users: list[User], receiver: Receiver, monkeypatch: pytest.MonkeyPatch,
    on_commit: Any, *, options: dict[str, Any] | None = None, path: str,
) -> Game:
    """A game of ``users`` (seated in this order, same seed every time) with a hook of each
    format, every event, at ``receiver`` under ``path``; started."""
    private = bool(options)
    game = services.game_create(
        creator=users[0], rules_id=rules_id, players=len(users), options=options, is_public=not private
    )
    for user in users[1:]:
        if private:
            (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
            services.invitation_accept(token=invitation.token, user=user)
        else:
            services.seat_join(game_id=game.pk, user=user)
    for fmt in FORMATS:
        webhooks.webhook_create(
            game_id=game.pk, user=users[0], url=f"{receiver.url}{path}/{fmt}", format=fmt,
            events=list(Webhook.EVENTS),
        )
    with monkeypatch.context() as patch, on_commit(execute=True):
        patch.setattr(lobby.secrets, "token_hex", lambda _n: SEED)
        services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    return game


def deliveries(receiver: Receiver, game: Game, path: str) -> list[str]:
    """What the game's hooks received, in order, with its id (and the JSON delivery id) blanked."""
    out = []
    for request in receiver.requests:
        if not request.path.startswith(f"/hook/{path}/"):
            continue
        body = request.json
        body.pop("delivery_id", None)
        text = json.dumps(body, sort_keys=True).replace(f"/games/{game.pk}/", "/games/ID/")
        text = text.replace(f"Game #{game.pk}", "Game #ID").replace(f'"id": {game.pk}', '"id": "ID"')
        fmt = request.path.removeprefix(f"/hook/{path}/")
        out.append(f"{fmt} {request.headers['x-pirates-event']} {text}")
    return out


def act(on_commit: Any, game: Game, seat: int, action: dict[str, Any]) -> None:
    game.refresh_from_db()
    with on_commit(execute=True):
        services.action_submit(
            game_id=game.pk, user=seat_user(game, seat), action=action, expected_seq=game.seq
        )


def test_libertalia_picks_never_reach_a_webhook(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """Each round: the first seat to pick picks one card in game a and another in game b, the
    next seat the same card in both; every delivery until the last pick reveals them is the same."""
    on_commit: Callable[..., Any] = django_capture_on_commit_callbacks
    compared = 0
    for round_ in range(3):
        users = make_users(3, prefix=f"lib{round_}-")
        receiver.requests.clear()
        a = start("libertalia", users, receiver, monkeypatch, on_commit, path="a")
        b = start("libertalia", users, receiver, monkeypatch, on_commit, path="b")
        first, second = a.to_act[0], a.to_act[1]
        rules = services.rules_for(a)
        legal = rules.legal_actions(services.load_state(a), first)
        rng = random.Random(round_)
        pick_a, pick_b = rng.sample(legal, 2)
        act(on_commit, a, first, pick_a)
        act(on_commit, b, first, pick_b)
        state_a = services.load_state(Game.objects.get(pk=a.pk))
        state_b = services.load_state(Game.objects.get(pk=b.pk))
        assert rules.view(state_a, first) != rules.view(state_b, first), "the secret differs"
        legal_b = rules.legal_actions(state_b, second)
        common = [x for x in rules.legal_actions(state_a, second) if x in legal_b]
        act(on_commit, a, second, common[0])
        act(on_commit, b, second, common[0])
        seen_a, seen_b = deliveries(receiver, a, "a"), deliveries(receiver, b, "b")
        assert seen_a == seen_b
        events = [line.split(" ")[1] for line in seen_a]
        assert events.count("move") == 2 * len(FORMATS) and "turn" in events and "game_started" in events
        compared += len(seen_a)
    assert compared >= 3 * 4 * len(FORMATS)


def test_captain_lucky_hands_never_reach_a_webhook(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    """Green and Yellow hold one card each the other way round (a fixed deal); the same public
    moves are played in both games for as long as both allow them (draws included, which the
    drawer alone reads): the hooks hear the same."""
    on_commit: Callable[..., Any] = django_capture_on_commit_callbacks
    moves = 0
    for round_ in range(2):
        deck_a = shuffled_deck(4, round_)
        green = first_difference(deck_a, 10, 15, 15)
        deck_b = swap(deck_a, green, 15)
        users = make_users(4, prefix=f"cl{round_}-")
        receiver.requests.clear()
        a = start("captain-lucky", users, receiver, monkeypatch, on_commit,
                  options={"deck": deck_a}, path="a")
        b = start("captain-lucky", users, receiver, monkeypatch, on_commit,
                  options={"deck": deck_b}, path="b")
        rules = services.rules_for(a)
        rng = random.Random(f"hooks:{round_}")
        for _ in range(18):
            a.refresh_from_db()
            b.refresh_from_db()
            if a.status != Game.Status.ACTIVE:
                break
            (seat,) = a.to_act
            assert b.to_act == [seat]
            legal_b = rules.legal_actions(services.load_state(b), seat)
            common = [x for x in rules.legal_actions(services.load_state(a), seat) if x in legal_b]
            if not common:
                break
            action = rng.choice(common)
            act(on_commit, a, seat, action)
            act(on_commit, b, seat, action)
            moves += 1
        hands_a = rules.dump(services.load_state(a))
        assert hands_a != rules.dump(services.load_state(b)), "the secret differs"
        seen_a, seen_b = deliveries(receiver, a, "a"), deliveries(receiver, b, "b")
        assert seen_a == seen_b
        assert sum(" move " in line for line in seen_a) >= 4 * len(FORMATS)
        assert not any("(1 " in line and "draws" in line for line in seen_a if " move " in line)
    assert moves >= 10
