"""No input gives a server error, on any page.

Hypothesis sends generated text (control characters and NULs, huge strings, odd Unicode,
numbers in other scripts, JSON fragments and deep nesting, URLs) to every HTML form, every
query parameter and every path token of the site, as an anonymous visitor, a player and a
logged-in outsider, and asserts that every answer is below 500. Schemathesis does the same for
the API (tests/api/test_schema.py). CI runs the whole suite against PostgreSQL, where a NUL
that reaches a query is a server error rather than a stored string.

``TARGETS`` lists the forms and parameters; ``test_every_form_and_query_parameter_is_fuzzed``
crawls the site's pages and fails on a form field or a query parameter the list misses, so a
new form is fuzzed from the day it appears.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pytest_django import Settings

from games import services
from games.emails import unsubscribe_token
from games.links import login_token
from games.models import CrewGame, Game
from games.services.accounts import verification_token
from games.services.crews import crew_create, crew_invitation_accept, crew_invite
from games.services.rematch import answer_token, rematch_create
from games.services.webhooks import crew_webhook_create, webhook_create
from tests.module_rows import module_rows
from tests.services.support import (
    PASSWORD,
    make_user,
    play_one,
    started_game,
    user_to_act,
)

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Target:
    """One way into the site: a method, a path (``{name}`` stands for a path token) and the
    form fields or query parameters it reads, each with a value the page accepts. Each example
    spoils some of them and keeps the others valid, so it gets past the form to the service
    behind it. GETs also get parameters of random names."""

    method: str
    path: str
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(self.path)) + "$")

    def path_with(self, fuzzed: dict[str, str | None]) -> str:
        """The path with fuzzed tokens put in (URL-quoted); ``None`` keeps the real token but
        adds a NUL after it; the other ``{name}`` stay for ``World.resolve``."""

        def token(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in fuzzed:
                return match.group(0)
            value = fuzzed[name]
            return match.group(0) + "%00" if value is None else quote(value, safe="")

        return re.sub(r"\{(\w+)\}", token, self.path)

    def __str__(self) -> str:
        return f"{self.method} {self.path}"


NEW_PASSWORD = "brand-new-shanty-7"
NEW_GAME = {
    "title": "Tortuga",
    "rules": "pirates",
    "players": "3",
    "bot_seats": "1",
    "bot_kind": "greedy",
    "move_time": "48h",
    "timeout_policy": "bot",
    "visibility": "auto",
    "auto_start": "on",
    "options": "{}",
    "invite": "dora@example.com",
}
SIGNUP = {
    "username": "newbie",
    "display_name": "New",
    "email": "anne@example.com",
    "password1": NEW_PASSWORD,
    "password2": NEW_PASSWORD,
    "timezone": "Europe/Berlin",
    "next": "/games/",
}
LOG_IN = {"username": "anne", "password": PASSWORD, "next": "/games/"}
PROFILE = {
    "email": "anne@example.test",
    "display_name": "Anne",
    "notify": "each_turn",
    "confirm_moves": "on",
    "rate_private_games": "on",
    "timezone": "UTC",
    "away_until": "",
}
CHANGE = {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
TARGETS = (
    Target("GET", "/"),
    Target("GET", "/healthz"),
    Target("GET", "/accounts/signup/", {"next": "/games/"}),
    Target("POST", "/accounts/signup/", SIGNUP),
    Target("GET", "/accounts/login/", {"next": "/games/"}),
    Target("POST", "/accounts/login/", LOG_IN),
    Target("GET", "/accounts/login-link/", {"next": "/games/"}),
    Target("POST", "/accounts/login-link/", {"email": "anne@example.com", "next": "/games/"}),
    Target("GET", "/accounts/password_reset/"),
    Target("POST", "/accounts/password_reset/", {"email": "anne@example.com"}),
    Target("GET", "/accounts/reset/{uid}/{reset_token}/"),
    Target(
        "POST",
        "/accounts/reset/{uid}/set-password/",
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    ),
    Target("GET", "/accounts/password_change/"),
    Target("POST", "/accounts/password_change/", CHANGE),
    Target("GET", "/accounts/profile/"),
    Target("POST", "/accounts/profile/", PROFILE),
    Target("GET", "/accounts/verify/{verify_token}/"),
    Target("POST", "/accounts/verify-again/", {"next": "/games/"}),
    Target("POST", "/accounts/logout/"),
    Target("GET", "/games/"),
    Target("GET", "/games/live/", {"v": "3"}),
    Target("GET", "/games/new/"),
    Target("POST", "/games/new/", NEW_GAME),
    Target("GET", "/games/{game}/"),
    Target("GET", "/games/{game}/live/", {"v": "1.active.3.3"}),
    Target("POST", "/games/{game}/act/", {"action": '{"type": "pass"}', "expected_seq": "4", "key": "k-1"}),
    Target("POST", "/games/{game}/take-back/", {"expected_seq": "4"}),
    Target("POST", "/games/{game}/chat/", {"text": "Ahoy, Tortuga!"}),
    Target("POST", "/games/{game}/resign/"),
    Target(
        "POST", "/games/{game}/webhooks/",
        {"url": "https://hooks.example.com/x", "format": "json", "events": "turn"},
    ),
    Target("POST", "/games/{game}/webhooks/{hook}/delete/"),
    Target("GET", "/games/{game}/replay/", {"seq": "2"}),
    Target("GET", "/games/{game}/replay/{seq}/"),
    Target("POST", "/games/{lobby}/join/"),
    Target("POST", "/games/{lobby}/leave/"),
    Target("POST", "/games/{lobby}/fill/", {"kind": "greedy"}),
    Target("POST", "/games/{lobby}/start/"),
    Target("POST", "/games/{lobby}/abort/"),
    Target("POST", "/games/{lobby}/invite/", {"emails": "eve@example.com"}),
    Target("GET", "/invite/{invite_token}/"),
    Target("POST", "/invite/{invite_token}/"),
    Target("GET", "/unsubscribe/{unsubscribe_token}/"),
    Target("POST", "/unsubscribe/{unsubscribe_token}/", {"List-Unsubscribe": "One-Click"}),
    Target("GET", "/l/{login_token}/"),
    Target("GET", "/rules/{rules}/"),
    Target("GET", "/dev/outbox/"),
    Target("GET", "/dev/outbox/{outbox_name}/"),
    Target("GET", "/dev/outbox/{outbox_name}/html/"),
    Target("GET", "/admin/login/", {"next": "/admin/"}),
    Target("POST", "/admin/login/", LOG_IN),
    Target("GET", "/players/{username}/"),
    Target("GET", "/ratings/"),
    Target("GET", "/ratings/{rules}/"),
    # Rematches and crews.
    Target("GET", "/games/{finished}/rematch/"),
    Target("POST", "/games/{finished}/rematch/"),
    Target("POST", "/games/{rematch}/answer/", {"answer": "in"}),
    Target("GET", "/rematch/{answer_token}/{answer}/"),
    Target("POST", "/rematch/{answer_token}/{answer}/"),
    Target("GET", "/crews/"),
    Target("POST", "/crews/", {"name": "Black Gulls"}),
    Target("GET", "/crews/{crew}/"),
    Target("POST", "/crews/{crew}/invite/", {"emails": "eve@example.com"}),
    Target(
        "POST", "/crews/{crew}/webhooks/",
        {"url": "https://hooks.example.com/x", "format": "json", "events": "turn"},
    ),
    Target("POST", "/crews/{crew}/webhooks/{crew_hook}/delete/"),
    Target(
        "POST", "/crews/{crew}/new-game/", {"rules": "pirates", "bot_seats": "1", "visibility": "private"}
    ),
    Target("GET", "/crews/join/{crew_token}/"),
    Target("POST", "/crews/join/{crew_token}/"),
)

# Values that broke, or could break, a page: control characters and NULs, digits that are not
# ASCII, bidi and zero-width marks, JSON fragments and deep nesting, URLs and paths.
SPECIAL = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "\r\n",
    "Port\nRoyal",
    "\x1b[31m",
    "²",
    "٣",
    "１",
    "-1",
    "0",
    "1e999",
    "NaN",
    "9" * 5000,
    "null",
    "[]",
    "{}",
    '{"type": "pass"}',
    '{"first_seat": 0}',
    '{"card_set": {"id": "x", "cards": [{"kind": ["ship"]}], "majority_bonus": {}}}',
    "[" * 5000,
    '{"a":' * 2000,
    "%00",
    "%ff%fe",
    "../../etc/passwd",
    "//evil.example/",
    "http://[",
    "javascript:alert(1)",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "\u202egnp.exe",
    "\ufeff\u200b",
    "\U0001f3f4\u200d\u2620\ufe0f",
    "x" * 300 + ".eml",
)
# NULs come from SPECIAL and from one value in six (see _request), not from every character
# drawn: one NUL anywhere makes the whole request a 400, and nothing else would be tested.
ANY = st.characters(exclude_characters="\x00")
CONTROL = st.characters(max_codepoint=0x9F, categories=["Cc"], exclude_characters="\x00")
ODD = st.characters(categories=["Mn", "Cf", "Zs", "Nd", "No", "Co"])
_TEXTS = (
    st.sampled_from(SPECIAL),
    st.text(ANY, max_size=40),
    st.text(alphabet=st.one_of(CONTROL, ODD), max_size=20),
    # Digits of other scripts and superscripts: str.isdigit() says yes, int() may say no.
    st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=3),
    st.integers().map(str),
    st.integers(min_value=1_000, max_value=400_000).map(lambda n: "x" * n),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(ANY, max_size=10),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(ANY, max_size=5), inner, max_size=3)
        ),
        max_leaves=8,
    ).map(json.dumps),
)
# SPECIAL holds what once broke a page: drawn about a third of the time.
TEXT = st.one_of(*_TEXTS, st.sampled_from(SPECIAL), st.sampled_from(SPECIAL), st.sampled_from(SPECIAL))


@dataclass
class World:
    clients: dict[str, Client]
    tokens: dict[str, str]

    def resolve(self, path: str) -> str:
        """The real ids and tokens for the ``{name}`` left in ``path``."""
        return re.sub(r"\{(\w+)\}", lambda m: self.tokens[m.group(1)], path)


@dataclass(frozen=True)
class Rows:
    anne: Any
    outsider: Any
    game: Game
    lobby: Game
    invitation_token: str
    finished: Game
    rematch: Any
    crew: Any
    crew_token: str
    hook: Any
    crew_hook: Any


@pytest.fixture(scope="module")
def world_rows(django_db_setup: None, django_db_blocker: Any) -> Iterator[Rows]:
    """A running game with a few moves, a public game in the lobby, an invitation; a crew with a
    finished game, its rematch and an invitation; a hook on the game and one on the crew. Made
    once for the module's tests (tests/module_rows.py)."""
    with module_rows(django_db_blocker):
        anne, bob, cat = (make_user(name) for name in ("anne", "bob", "cat"))
        outsider = make_user("olga")
        game = started_game([anne, bob, cat])
        for _ in range(3):
            play_one(game, random.Random(3))
        lobby = services.game_create(creator=anne, rules_id="pirates", players=4, title="Open table")
        (invitation,) = services.invitation_create(game_id=lobby.pk, by=anne, emails=["dora@example.com"])
        # A finished game of the crew of anne, bob and cat, with the rematch bob asked for.
        crew = crew_create(by=anne, name="Black Gulls")
        for person in (bob, cat):
            (crew_invitation,) = crew_invite(crew_id=crew.pk, by=anne, emails=[person.email])
            crew_invitation_accept(token=crew_invitation.token, user=person)
        (crew_invitation,) = crew_invite(crew_id=crew.pk, by=anne, emails=["dora@example.com"])
        finished = started_game([anne, bob, cat])
        Game.objects.filter(pk=finished.pk).update(
            status=Game.Status.FINISHED, result={"scores": [3, 2, 1], "winners": [0]}
        )
        CrewGame.objects.create(crew=crew, game=finished)
        rematch, _ = rematch_create(game_id=finished.pk, by=bob)
        # A hook on the game and one on the crew, so that their delete forms show and are fuzzed.
        hook, _secret = webhook_create(
            game_id=game.pk, user=anne, url="https://hooks.example.com/g", format="json", events=["turn"]
        )
        crew_hook, _secret = crew_webhook_create(
            crew_id=crew.pk, user=anne, url="https://hooks.example.com/c", format="slack", events=["turn"]
        )
        yield Rows(anne, outsider, game, lobby, invitation.token, finished, rematch, crew,
                   crew_invitation.token, hook, crew_hook)


@pytest.fixture
def world(db: None, settings: Settings, tmp_path: Path, world_rows: Rows) -> World:
    """``world_rows`` and the links of the emails; an anonymous visitor, a player and an
    outsider, each logged in as such (before the links are made: logging in changes some)."""
    settings.EMAIL_OUTBOX_DIR = tmp_path / "outbox"
    rows = world_rows
    anne, outsider = rows.anne, rows.outsider
    clients = {"anonymous": Client()}
    for name, user in (("player", anne), ("outsider", outsider)):
        clients[name] = Client()
        clients[name].force_login(user)
    return World(
        clients=clients,
        tokens={
            "game": str(rows.game.pk),
            "lobby": str(rows.lobby.pk),
            "seq": "2",
            "uid": urlsafe_base64_encode(force_bytes(anne.pk)),
            "reset_token": default_token_generator.make_token(anne),
            "invite_token": rows.invitation_token,
            "unsubscribe_token": unsubscribe_token(anne),
            "login_token": login_token(anne, "/games/"),
            "verify_token": verification_token(outsider, "/games/"),
            "rules": "pirates",
            "outbox_name": "none.eml",
            "username": anne.get_username(),
            "finished": str(rows.finished.pk),
            "rematch": str(rows.rematch.pk),
            "answer_token": answer_token(rows.rematch.pk, anne.pk),
            "answer": "in",
            "crew": str(rows.crew.pk),
            "crew_token": rows.crew_token,
            "hook": str(rows.hook.pk),
            "crew_hook": str(rows.crew_hook.pk),
        },
    )


def _request(draw: Any, target: Target) -> tuple[str, str, dict[str, Any], bool]:
    """Who asks, the path, the data (form fields or query parameters) and whether a POST body
    is URL-encoded (else multipart)."""
    # The player sees most (the table's forms, a running game's replay): asked most often.
    who = draw(st.sampled_from(["player", "player", "anonymous", "outsider"]))
    fuzzed: dict[str, str | None] = {}
    for name in re.findall(r"\{(\w+)\}", target.path):
        how = draw(st.sampled_from(["valid", "valid", "valid", "spoiled", "with-nul"]))
        if how == "spoiled":
            fuzzed[name] = draw(TEXT)
        elif how == "with-nul":  # the real token and a NUL: it gets as far as the query
            fuzzed[name] = None
    data: dict[str, Any] = {}
    for name, valid in target.fields.items():
        how = draw(st.sampled_from(["valid", "valid", "spoiled", "spoiled", "repeated", "missing"]))
        if how == "valid":
            data[name] = valid
        elif how == "spoiled":
            data[name] = draw(TEXT)
        elif how == "repeated":
            data[name] = draw(st.lists(TEXT, min_size=2, max_size=3))
    data.update(draw(st.dictionaries(st.text(ANY, min_size=1, max_size=10), TEXT, max_size=1)))
    # A NUL in one value in about six examples (one is enough for the database to refuse).
    if data and draw(st.sampled_from([False, False, False, False, False, True])):
        name = draw(st.sampled_from(sorted(data)))
        data[name] = f"{data[name]}\x00" if isinstance(data[name], str) else [*data[name], "\x00"]
    return who, target.path_with(fuzzed), data, draw(st.booleans())


def _urlencoded(fields: dict[str, Any]) -> str:
    return "&".join(
        f"{quote(str(key), safe='')}={quote(str(value), safe='')}"
        for key, values in fields.items()
        for value in (values if isinstance(values, list) else [values])
    )


def _fuzz(target: Target) -> Any:
    @hypothesis_settings(
        max_examples=40,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def run(world: World, data: st.DataObject) -> None:
        who, path, fields, urlencoded = _request(data.draw, target)
        _send(world, target, who, path, fields, urlencoded)

    return run


def _send(
    world: World, target: Target, who: str, path: str, fields: dict[str, Any], urlencoded: bool
) -> None:
    path = world.resolve(path)
    client = world.clients[who]
    if target.method == "GET":
        response = client.get(path, fields)
    elif urlencoded:
        response = client.post(path, _urlencoded(fields), content_type="application/x-www-form-urlencoded")
    else:
        response = client.post(path, fields)
    assert response.status_code < 500, (str(target), who, path, fields)


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_no_input_gives_a_server_error(target: Target, world: World) -> None:
    _fuzz(target)(world)


# The values behind the server errors once seen, tried in every field and token of every
# target with the other fields valid, so the pass finds each of them whatever Hypothesis draws.
KNOWN = ("²", "0", "Port\nRoyal", "[" * 5000, "a\x00b")


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_known_bad_values_in_every_field(target: Target, world: World) -> None:
    for name in target.fields:
        for value in KNOWN:
            _send(world, target, "player", target.path, {**target.fields, name: value}, urlencoded=False)
    for name in re.findall(r"\{(\w+)\}", target.path):
        for spoiled in (*((name, value) for value in KNOWN), (name, None)):
            path = target.path_with(dict([spoiled]))
            _send(world, target, "player", path, dict(target.fields), urlencoded=True)


class _Forms(HTMLParser):
    """The forms of a page (method, action, field names) and every same-site URL it names."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, str, set[str]]] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.forms.append((a.get("method", "get").upper(), a.get("action", ""), set()))
        elif tag in ("input", "select", "textarea", "button") and self.forms and a.get("name"):
            self.forms[-1][2].add(a["name"])
        for key in ("href", "action", "hx-get", "hx-post", "data-frame-url"):
            if a.get(key, "").startswith("/"):
                self.urls.append(a[key])


def _crawl(client: Client, seeds: list[str], limit: int = 80) -> Iterator[tuple[str, str, set[str]]]:
    """(method, path, field or parameter names) of every form and link reachable from seeds."""
    seen: set[str] = set()
    queue = list(seeds)
    while queue and len(seen) < limit:
        url = queue.pop(0)
        path = urlsplit(url).path
        if path in seen or path.startswith(("/static/", "/api/", "/accounts/logout/")):
            continue
        seen.add(path)
        response = client.get(url, follow=True)
        final = response.request["PATH_INFO"]
        parser = _Forms()
        parser.feed(response.content.decode(errors="replace"))
        for method, action, fields in parser.forms:
            yield method, urlsplit(action).path or final, fields - {"csrfmiddlewaretoken"}
        for link in parser.urls:
            parts = urlsplit(link)
            if parts.query:
                yield (
                    "GET",
                    parts.path,
                    {name for name, _value in parse_qsl(parts.query, keep_blank_values=True)},
                )
            if not link.startswith("/admin/"):  # the admin's own pages, past its log-in, are Django's
                queue.append(link)


def test_every_form_and_query_parameter_is_fuzzed(world: World) -> None:
    tokens = world.tokens
    seeds = [
        "/",
        "/games/",
        "/games/new/",
        f"/games/{tokens['game']}/",
        f"/games/{tokens['lobby']}/",
        f"/games/{tokens['game']}/replay/",
        "/accounts/signup/",
        "/accounts/login-link/",
        "/accounts/password_reset/",
        "/accounts/password_change/",
        "/accounts/profile/",
        f"/accounts/reset/{tokens['uid']}/{tokens['reset_token']}/",
        f"/invite/{tokens['invite_token']}/",
        f"/unsubscribe/{tokens['unsubscribe_token']}/",
        "/admin/login/",
        f"/players/{tokens['username']}/",
        "/ratings/pirates/",
        "/crews/",
        f"/crews/{tokens['crew']}/",
        f"/crews/join/{tokens['crew_token']}/",
        f"/games/{tokens['finished']}/",
        f"/games/{tokens['finished']}/rematch/",
        f"/games/{tokens['rematch']}/",
        f"/rematch/{tokens['answer_token']}/in/",
        f"/rematch/{tokens['answer_token']}/out/",
    ]
    mover = Client()  # whoever is to move sees the move forms
    mover.force_login(user_to_act(Game.objects.get(pk=int(tokens["game"]))))
    found: set[tuple[str, str, str]] = set()
    for client in (world.clients["player"], world.clients["anonymous"], mover):
        for method, path, fields in _crawl(client, seeds):
            found.update((method, path, name) for name in fields or {""})
    assert ("POST", f"/games/{tokens['game']}/act/", "action") in found  # the crawl reached the table
    missing = sorted(
        f"{method} {path} {name!r}"
        for method, path, name in found
        if not any(
            t.method == method and t.pattern.match(path) and (not name or name in t.fields) for t in TARGETS
        )
    )
    assert not missing, f"forms or parameters the fuzz pass does not cover: {missing}"
