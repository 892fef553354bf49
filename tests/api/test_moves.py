"""The game detail's ``moves``: the seat asking gets its legal actions numbered, grouped and
worded exactly as its turn email lists them (one numbering, the read model's), each with its
preview; spectators and seats not to act get none; and ``moves`` gives away no other seat's
secret (two games that differ only in a secret answer another seat identically)."""

from __future__ import annotations

import json
import random
import re
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from rest_framework.test import APIClient

from engine.captain_lucky.cards import KINDS, composition
from games import services
from games.emails.turns import send_turn_emails
from games.models import Game, Seat
from games.read import seat_table
from tests.api.conftest import ClientFor
from tests.services.support import make_user, make_users

pytestmark = pytest.mark.django_db

RULE_SETS = {"pirates": 3, "pirates-classic": 3, "libertalia": 2, "captain-lucky": 2}
MOVE_LINE = re.compile(r"^\s+(\d+)\. (.*)$")


def running(users: list[User], rules_id: str, options: dict[str, Any] | None = None) -> Game:
    """A running game of ``rules_id`` with ``users`` seated: private (joined by invitation)."""
    game = services.game_create(
        creator=users[0], rules_id=rules_id, players=len(users), options=options or {}, is_public=False,
        title="A game",
    )
    for user in users[1:]:
        (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
        services.invitation_accept(token=invitation.token, user=user)
    return services.game_start(game_id=game.pk, by=users[0])


def email_moves(body: str) -> list[tuple[str, int, str]]:
    """(group, number, label) of each move a turn email's text lists."""
    listed: list[tuple[str, int, str]] = []
    text = body.split("Your moves:", 1)[1]
    group = ""
    for line in text.splitlines():
        if not line.strip() or line.startswith("Reply with"):
            if line.startswith("Reply with"):
                break
            continue
        match = MOVE_LINE.match(line)
        if match:
            listed.append((group, int(match.group(1)), match.group(2)))
        else:
            group = line.strip()
    return listed


def in_group(email_group: str, group: str) -> bool:
    """The email writes a group's hint after its label, in brackets."""
    return email_group == group or email_group.startswith(f"{group} (")


@pytest.mark.parametrize("rules_id", sorted(RULE_SETS))
def test_moves_are_numbered_and_worded_as_the_turn_email(
    rules_id: str, client_for: ClientFor
) -> None:
    """For several turns of each rule set: the API's numbers, labels and groups are the turn
    email's for the same position, and each preview is the table's for that action."""
    users = make_users(RULE_SETS[rules_id], prefix=rules_id.replace("-", ""))
    for user in users:  # emailed whether or not they read the game meanwhile
        services.profile_change(user=user, changes={"notify": "each_turn"})
    game = running(users, rules_id)
    rng = random.Random(11)
    compared = 0
    for _turn in range(24):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        mail.outbox.clear()
        send_turn_emails(game_id=game.pk, seq=game.seq)
        for position in game.to_act:
            seated = Seat.objects.get(game=game, position=position).user
            assert seated is not None
            user = seated
            emails = [m for m in mail.outbox if m.to == [user.email]]
            if not emails:  # mid-turn (its own move came last) or emailed already this turn
                continue
            listed = email_moves(str(emails[-1].body))
            detail = client_for(user).get(f"/api/games/{game.pk}/").json()
            moves = detail["moves"]
            assert [(m["number"], m["label"]) for m in moves] == [(n, label) for _g, n, label in listed]
            assert all(in_group(g, m["group"]) for (g, _n, _l), m in zip(listed, moves, strict=True))
            assert sorted(json.dumps(m["action"], sort_keys=True) for m in moves) == sorted(
                json.dumps(a, sort_keys=True) for a in detail["legal_actions"]
            )
            table = seat_table(game, position)
            previews = {json.dumps(a, sort_keys=True): p for a, p in zip(table.legal_actions, table.previews,
                                                                          strict=True)}
            assert all(m["preview"] == previews[json.dumps(m["action"], sort_keys=True)] for m in moves)
            assert all(m["preview"] for m in moves)
            compared += 1
        # Everyone else, and a spectator, is offered nothing.
        for seat in Seat.objects.filter(game=game).exclude(position__in=game.to_act):
            assert seat.user is not None
            assert client_for(seat.user).get(f"/api/games/{game.pk}/").json()["moves"] == []
        mover = Seat.objects.get(game=game, position=game.to_act[0]).user
        assert mover is not None
        detail = client_for(mover).get(f"/api/games/{game.pk}/").json()
        move = rng.choice(detail["moves"])
        answer = client_for(mover).post(
            f"/api/games/{game.pk}/actions/", {"action": move["action"], "expected_seq": detail["seq"]},
            format="json",
        )
        assert answer.status_code == 201, answer.json()
    assert compared >= 4, f"only {compared} turn emails to compare"


def test_spectators_get_no_moves(client_for: ClientFor) -> None:
    users = make_users(3)
    game = services.game_create(creator=users[0], rules_id="pirates", players=3)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    game = services.game_start(game_id=game.pk, by=users[0])
    for client in (APIClient(), client_for(make_user("watcher"))):
        detail = client.get(f"/api/games/{game.pk}/").json()
        assert detail["moves"] == [] and detail["legal_actions"] == []


# ---- indistinguishability -----------------------------------------------------------------------


def normalised(body: Any, users: list[User], game: Game) -> str:
    """A response with what differs between two games anyway blanked out: ids, user names,
    times (the games are made a moment apart)."""

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in ("id", "deadline", "created_at")}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    text = json.dumps(clean(body), sort_keys=True)
    for i, user in enumerate(users):
        text = text.replace(user.get_username(), f"player{i}")
    return text.replace(f"/games/{game.pk}/", "/games/N/")


def same_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both games draw the same seed: they differ only in the secret the test puts there."""
    monkeypatch.setattr("games.services.lobby.secrets", SimpleNamespace(token_hex=lambda n: "ab" * n))


def answers_to(client: APIClient, game: Game) -> list[Any]:
    return [
        client.get(f"/api/games/{game.pk}/").json(),
        client.get(f"/api/games/{game.pk}/events/").json(),
        client.get(f"/api/games/{game.pk}/chat/").json(),
    ]


def test_libertalia_picks_leave_the_other_seat_identical_answers(
    client_for: ClientFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """L-SUN-1: Red picks a different character in each game; Blue, still to pick, gets the
    same game detail (view, legal actions, numbered moves with previews) and events feed."""
    same_seed(monkeypatch)
    seen: dict[str, list[str]] = {"blue": [], "spectator": []}
    picks: list[dict[str, Any]] = []
    for name in ("one", "two"):
        users = make_users(2, prefix=name)
        game = services.game_create(creator=users[0], rules_id="libertalia", players=2, title="A game")
        services.seat_join(game_id=game.pk, user=users[1])
        game = services.game_start(game_id=game.pk, by=users[0])
        assert sorted(game.to_act) == [0, 1]
        red = Seat.objects.get(game=game, position=0).user
        blue = Seat.objects.get(game=game, position=1).user
        assert red is not None and blue is not None
        red_moves = client_for(red).get(f"/api/games/{game.pk}/").json()["moves"]
        pick = red_moves[0 if name == "one" else -1]["action"]
        picks.append(pick)
        answer = client_for(red).post(
            f"/api/games/{game.pk}/actions/", {"action": pick, "expected_seq": game.seq}, format="json"
        )
        assert answer.status_code == 201, answer.json()
        game.refresh_from_db()
        for key, client in (("blue", client_for(blue)), ("spectator", APIClient())):
            seen[key].append(normalised(answers_to(client, game), users, game))
        assert json.loads(seen["blue"][-1])[0]["moves"], "Blue is still to pick"
    assert picks[0] != picks[1]
    assert seen["blue"][0] == seen["blue"][1]
    assert seen["spectator"][0] == seen["spectator"][1]


def lucky_deck(players: int, seed: int = 3) -> list[str]:
    deck = [kind for kind, n in zip(KINDS, composition(players), strict=True) for _ in range(n)]
    random.Random(seed).shuffle(deck)
    return deck


def test_captain_lucky_hands_leave_another_seat_identical_answers(
    client_for: ClientFor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """K-END-4: two deals that differ only in Blue's and Green's hands (one card swapped) give
    Red, whose turn it is, the same game detail, numbered moves and previews (steal odds
    included), and the same events feed."""
    same_seed(monkeypatch)
    deck = lucky_deck(3)
    # K-SET-2: seat 0 takes cards 0-4, seat 1 cards 5-9, seat 2 cards 10-14.
    swapped = list(deck)
    j = next(j for j in range(10, 15) if deck[j] != deck[5])
    swapped[5], swapped[j] = deck[j], deck[5]
    assert sorted(swapped[5:10]) != sorted(deck[5:10])
    seen: list[str] = []
    for name, order in (("one", deck), ("two", swapped)):
        users = make_users(3, prefix=name)
        game = running(users, "captain-lucky", options={"deck": order})
        assert game.to_act == [0]
        red = Seat.objects.get(game=game, position=0).user
        assert red is not None
        answers = answers_to(client_for(red), game)
        assert answers[0]["moves"], "Red is to act"
        seen.append(normalised(answers, users, game))
    assert seen[0] == seen[1]
