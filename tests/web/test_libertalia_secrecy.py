"""L-SUN-1 (secret Sunrise choices), L-ZONE-1: two games of Libertalia with the same
fixed deal, in which only seat 0's choice differs, look the same to every other seat until the
reveal, through every channel: the API's game and events feed and replay frames, the HTML
table, its log, the live-update fragment, the replay page, and the turn and reminder emails.

Fixed deals are for private games, and a private game shows nothing to a spectator (404):
the main test compares seats 1, 2 and 3 only. The last test compares a spectator's view of
the same two games opened to the public afterwards (a shortcut through the ORM for the test
only: the spectator's view of a public game is drawn by the same code)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from games import tasks
from games.models import Game
from tests.web.helpers import make_user
from tests.web.libertalia_support import DEAL4, libertalia_game, play, seat_users

pytestmark = pytest.mark.django_db

OnCommit = Callable[..., AbstractContextManager[list[Callable[[], Any]]]]
NAMES = ("xanthe", "yorick", "zebedee", "quillon")
SEAT0_PICKS = (2, 29)  # the Monkey or the Captain: the one secret that differs
LATER_PICKS = {1: 14, 2: 23}  # the same in both games


class Game2:
    """One of the two games, with what differs between any two games (ids, the seed, the
    seating drawn from it, times) replaced by the same placeholders."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.users = seat_users(game)
        # An actor is "user:<id>" or, as the feeds show it, "user:<name>".
        self.seat_of = {str(key): seat for seat, user in self.users.items()
                        for key in (user.pk, user.get_username())}

    def text(self, text: str) -> str:
        text = text.replace(self.game.title, "Libertalia Bay")
        text = re.sub(rf"/games/{self.game.pk}/", "/games/N/", text)
        text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "csrf", text)
        text = re.sub(r'<code class="seed"[^>]*>.*?</code>', "seed", text)
        text = re.sub(r'deadline in <span title="[^"]*">[^<]*</span>', "deadline", text)
        text = re.sub(r"https?://[^\s\"'<>]+", "link", text)
        text = re.sub(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d \w+ \d{4}, \d\d:\d\d \w+", "date", text)
        for seat, user in self.users.items():
            text = re.sub(rf"\b{user.get_username()}\b", f"P{seat}", text)
        return text

    def data(self, body: Any) -> Any:
        if isinstance(body, list):
            return [self.data(item) for item in body]
        if not isinstance(body, dict):
            return self.text(body) if isinstance(body, str) else body
        out = {}
        for key, value in body.items():
            # The seating is drawn from the seed: the creator (who started the game) sits
            # anywhere.
            started = body.get("kind") == "game_started" and key == "actor"
            if key in ("id", "created_at", "deadline", "seed_sha256", "created_by") or started:
                out[key] = "…"
            elif key == "actor" and isinstance(value, str) and value.startswith("user:"):
                out[key] = f"user:P{self.seat_of[value[5:]]}"
            else:
                out[key] = self.data(value)
        return out

    def seen_by(self, seat: int | None, viewer: User | None = None) -> dict[str, Any]:
        """Everything ``seat`` (None: ``viewer`` without a seat) may read of the game now."""
        user = self.users[seat] if seat is not None else viewer
        api, web = APIClient(), Client()
        if user is not None:
            api.force_authenticate(user)
            web.force_login(user)
        pk, seq = self.game.pk, self.game.seq

        def get(client: Any, path: str) -> Any:
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)
            return response

        page = get(web, f"/games/{pk}/").content.decode()
        seen = {
            "api game": self.data(get(api, f"/api/games/{pk}/").json()),
            "api events": self.data(get(api, f"/api/games/{pk}/events/").json()),
            "page": self.text(page),
            "log": self.text(re.search(r'<section class="panel log".*?</section>', page, re.S).group(0)),  # type: ignore[union-attr]
            "live": self.text(get(web, f"/games/{pk}/live/").content.decode()),
        }
        if seat is not None:  # a running game's replay is its players' own, from their seat
            seen["api replay"] = self.data(get(api, f"/api/games/{pk}/replay/{seq}/").json())
            seen["replay"] = self.text(get(web, f"/games/{pk}/replay/").content.decode())
        return seen

    def mail_to(self, seat: int) -> list[tuple[str, str, str]]:
        """The turn emails and reminders of this game to ``seat``."""
        address = self.users[seat].email
        messages = [
            m for m in mail.outbox
            if m.to == [address] and isinstance(m, EmailMultiAlternatives) and self.game.title in m.subject
            and str(m.subject).startswith(("Your turn", "Reminder"))
        ]
        return [
            (self.text(str(m.subject)), self.text(str(m.body)), self.text(str(m.alternatives[0][0])))
            for m in messages
        ]


def _games(on_commit: OnCommit) -> list[Game2]:
    """The two games, seat 0 having made its choice in each (the Monkey, the Captain)."""
    people = [make_user(name) for name in NAMES]
    games = []
    for name, rank in zip(("Libertalia Bay A", "Libertalia Bay B"), SEAT0_PICKS, strict=True):
        # The turn emails of the start are held back, as by a slow worker: the seats still to
        # choose are emailed after seat 0's choice, with it in their summary. (One game after
        # the other: the side effects of a commit go out for every game.)
        with on_commit(execute=False):
            g = Game2(libertalia_game(people, DEAL4, title=name))
        with on_commit(execute=True):
            play(g.game, g.users[0], {"type": "play", "rank": rank})
        assert g.game.to_act == [1, 2, 3]
        games.append(g)
    return games


def test_other_seats_cannot_tell_which_card_seat_0_chose_until_the_reveal(
    django_capture_on_commit_callbacks: OnCommit,
) -> None:
    games = _games(django_capture_on_commit_callbacks)

    def compare(seats: list[int]) -> None:
        for seat in seats:
            first, second = (g.seen_by(seat) for g in games)
            for channel in first:
                assert first[channel] == second[channel], f"seat {seat} tells them apart by its {channel}"

    compare([1, 2, 3])
    # The channels say that seat 0 has chosen, and nothing of what.
    feed = games[0].seen_by(1)["api events"]
    assert feed[-1]["action"] == {"type": "play"} and feed[-1]["text"].startswith("Yellow has chosen a card")
    page = games[0].seen_by(2)["page"]
    assert "Yellow: has chosen" in page and "Yellow's Monkey" not in page and "Yellow's Captain" not in page

    # Turn emails: one to each seat still to choose, identical in both games.
    for seat in (1, 2, 3):
        first, second = (g.mail_to(seat) for g in games)
        assert len(first) == 1 and first[0][0] == "Your turn in Libertalia Bay"
        assert "Yellow has chosen a card; waiting for Red, Blue, Green." in first[0][1]
        assert first == second, f"seat {seat}'s turn email tells the games apart"
    assert not games[0].mail_to(0) and not games[1].mail_to(0)

    # Reminders go to the seats that have not chosen, the same in both games.
    mail.outbox.clear()
    for g in games:
        Game.objects.filter(pk=g.game.pk).update(reminder_at=timezone.now() - timedelta(minutes=1))
        with django_capture_on_commit_callbacks(execute=True):
            tasks.sweep.delay().get()
    for seat in (1, 2, 3):
        first, second = (g.mail_to(seat) for g in games)
        assert len(first) == 1 and first[0][0].startswith("Reminder")
        assert first == second
    assert not games[0].mail_to(0)

    # Seats 1 and 2 choose the same cards in both games: still nothing tells them apart.
    for seat, rank in LATER_PICKS.items():
        for g in games:
            with django_capture_on_commit_callbacks(execute=True):
                play(g.game, g.users[seat], {"type": "play", "rank": rank})
        compare([1, 2, 3])
    assert not [m for m in mail.outbox if m.subject.startswith("Your turn")]

    # The last choice reveals the ship: now the games differ, for everyone.
    for g in games:
        with django_capture_on_commit_callbacks(execute=True):
            play(g.game, g.users[3], {"type": "play", "rank": 5})
    after = [g.seen_by(3) for g in games]
    assert after[0]["api events"] != after[1]["api events"]
    pages = [html.unescape(seen["page"]) for seen in after]
    assert "Yellow's Monkey (2)" in pages[0] and "Yellow's Captain (29)" in pages[1]


def test_a_private_game_shows_nothing_to_a_spectator(django_capture_on_commit_callbacks: OnCommit) -> None:
    games = _games(django_capture_on_commit_callbacks)
    stranger = make_user("stranger")
    for g in games:
        for viewer in (None, stranger):
            api, web = APIClient(), Client()
            if viewer is not None:
                api.force_authenticate(viewer)
                web.force_login(viewer)
            assert web.get(f"/games/{g.game.pk}/").status_code == 404
            assert api.get(f"/api/games/{g.game.pk}/events/").status_code == 404


def test_a_spectator_cannot_tell_the_games_apart_either(django_capture_on_commit_callbacks: OnCommit) -> None:
    games = _games(django_capture_on_commit_callbacks)
    for g in games:
        Game.objects.filter(pk=g.game.pk).update(is_public=True)
        g.game.refresh_from_db()
    stranger: User = make_user("stranger")
    for viewer in (None, stranger):
        first, second = (g.seen_by(None, viewer) for g in games)
        assert first == second
        assert '<section class="panel lib-hand"' not in first["page"]
        assert json.dumps(first["api game"]["view"]["hand"]) == "null"
