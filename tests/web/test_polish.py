"""Small wording and markup fixes, each checked in the HTML or text a person gets."""

from __future__ import annotations

import random
import re
import secrets
from html import unescape

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.test import Client
from pytest_django.fixtures import Settings as SettingsWrapper

from games import selectors, services, side_effects
from games.models import Game, Invitation, Seat
from games.read.state import load_state, rules_for
from games.seat_names import Sitter, seat_names
from games.services import game_create
from games.tables import table_for
from tests.web.helpers import logged_in, make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("rules_id", "title"),
    [
        ("captain-lucky", "Captain Lucky (2024)"),
        ("pirates-classic", "Pirates (classic)"),
        ("libertalia", "Libertalia"),
    ],
)
def test_invitation_names_the_game_by_its_title_not_its_rules_id(
    rules_id: str, title: str, django_capture_on_commit_callbacks: object
) -> None:
    anne = make_user("anne")
    game = game_create(creator=anne, rules_id=rules_id, players=2 if rules_id != "pirates-classic" else 3)
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        invitation = Invitation.objects.create(
            game=game, email="newcomer@example.test", token=secrets.token_urlsafe(16), invited_by=anne
        )
        side_effects.after_invitations([invitation])
    (message,) = [m for m in mail.outbox if isinstance(m, EmailMultiAlternatives)]
    html = next(str(content) for content, kind in message.alternatives if kind == "text/html")
    assert f"a game of {title} on Pirates by Mail" in str(message.body)
    assert f"a game of {title} on Pirates by Mail" in html.replace("&#x27;", "'")
    assert f"a game of {rules_id} " not in str(message.body) + html


def _play_to_the_end(game: Game, rng: random.Random) -> Game:
    """The creator picks from her legal moves; random bots play the other seats (eager Celery)."""
    for _ in range(2000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        mine = Seat.objects.get(game=game, user=game.created_by).position
        legal = rules_for(game).legal_actions(load_state(game), mine)
        services.action_submit(
            game_id=game.pk, user=game.created_by, action=rng.choice(legal), expected_seq=game.seq
        )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


@pytest.mark.django_db(transaction=True)  # the bots move from on-commit callbacks
def test_pirates_majorities_column_has_no_dangling_comma(settings: SettingsWrapper) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    anne = make_user("anne")
    game = services.game_create(
        creator=anne, rules_id="pirates", players=3, bot_seats=2, bot_kind=Seat.BotKind.RANDOM
    )
    game = _play_to_the_end(services.game_start(game_id=game.pk, by=anne), random.Random("majorities"))
    view = rules_for(game).view(load_state(game), None)
    # The kinds that scored nothing come last for one seat and in between for another: both
    # used to leave a comma behind.
    view["scoring"][0]["majority"] = {"saber": 4, "rum": 2, "chest": 0}
    view["scoring"][1]["majority"] = {"saber": 0, "rum": 3, "chest": 0, "relics": 1}
    view["scoring"][2]["majority"] = {"saber": 0, "rum": 0}
    board = table_for("pirates").board(view, selectors.seats_summary(game))
    html = render_to_string("tables/pirates/result.html", {"board": board})
    cells = re.findall(r'<td data-label="Majorities"><span>(.*?)</span></td>', html)
    assert cells == ["saber +4, rum +2", "rum +3, relics +1", "–"]


def test_signup_from_an_invitation_prefills_the_invited_address(client: Client) -> None:
    anne = make_user("anne")
    game = game_create(creator=anne, rules_id="pirates", players=3, is_public=False)
    (invitation,) = services.invitation_create(game_id=game.pk, by=anne, emails=["newcomer@example.test"])
    to_signup = client.get(f"/invite/{invitation.token}/")
    assert to_signup.status_code == 302
    page = client.get(to_signup["Location"]).content.decode()
    (email_input,) = re.findall(r'<input[^>]*name="email"[^>]*>', page)
    assert 'value="newcomer@example.test"' in email_input
    # No prefill from a link that is not a valid invitation's, nor from another page.
    for next_path in ("/invite/not-a-token/", "/games/", f"/games/{game.pk}/"):
        page = client.get("/accounts/signup/", {"next": next_path}).content.decode()
        (email_input,) = re.findall(r'<input[^>]*name="email"[^>]*>', page)
        assert "value=" not in email_input, (next_path, email_input)


@pytest.mark.django_db(transaction=True)  # the bot chooses from an on-commit callback
def test_libertalia_sunrise_says_the_shared_preview_once(settings: SettingsWrapper) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0
    anne = make_user("anne")
    game = services.game_create(
        creator=anne, rules_id="libertalia", players=2, bot_seats=1, bot_kind=Seat.BotKind.RANDOM
    )
    game = services.game_start(game_id=game.pk, by=anne)
    page = logged_in(anne).get(f"/games/{game.pk}/").content.decode()
    buttons = re.findall(
        r'data-preview="([^"]*)"[^>]*>\s*<span class="lib-choice-label">[^<]*</span>\s*'
        r'(?:<span class="lib-choice-text small move-preview">([^<]*)</span>)?',
        page,
    )
    assert len(buttons) >= 9, page  # a hand of nine (or more) cards at the first Sunrise
    (shared,) = re.findall(r'<div class="lib-shared small" id="shared-preview">(.*?)</div>', page, re.S)
    shared_text = unescape(re.sub(r"<[^>]+>", " ", shared))
    visible = unescape(re.sub(r'data-preview="[^"]*"', "", page))
    for repeated in ("revealed when everyone has chosen", "acts after every lower rank", "Your hand keeps"):
        assert visible.count(repeated) == 1, repeated
        assert repeated in shared_text
    for full, own in buttons:
        full, own = unescape(full), unescape(own)
        assert full.startswith("You choose the ")  # the whole preview stays for the confirm step
        # At least the sentences every pick shares (some 150 characters) are gone from the card.
        assert own and len(full) - len(own) >= 100, (own, full)
        # What the card leaves out is said above the cards.
        for sentence in re.split(r"(?<=[.;])\s+", full):
            assert sentence.rstrip(";.") in own or sentence.rstrip(";.")[1:] in shared_text, sentence


def test_a_game_of_bots_says_bots_are_playing_and_names_each_bot_kind() -> None:
    anne, bob = make_user("anne"), make_user("bob")
    game = game_create(creator=anne, rules_id="pirates", players=3, bot_seats=2, bot_kind=Seat.BotKind.RANDOM)
    services.game_start(game_id=game.pk, by=anne)

    def status(client: Client) -> str:
        page = client.get(f"/games/{game.pk}/").content.decode()
        (found,) = re.findall(r'<p class="status-main" id="waiting-for">(.*?)</p>', page, re.S)
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found)).strip()

    # Anne still plays: the table waits for whoever is to move.
    assert status(logged_in(bob)).startswith("Waiting for ")
    services.seat_resign(game_id=game.pk, user=anne)
    # The bots move from on-commit callbacks, which this test does not run: nobody has moved yet.
    for client in (logged_in(anne), logged_in(bob), Client()):
        text = status(client)
        assert text.startswith("Bots playing: every seat is played by a bot now. Next to move: "), text
        assert "Waiting" not in text
    # Each bot is named by its level wherever seats are listed, numbered when a level sits
    # twice; the seat anne left is hers, played by a bot.
    page = logged_in(anne).get(f"/games/{game.pk}/").content.decode()
    assert "Random bot 1" in page and "Random bot 2" in page and "Greedy bot" not in page
    lobby = logged_in(anne).get("/games/").content.decode()
    assert lobby.count("Random bot") == 2 and "Greedy bot" not in lobby
    assert "anne (bot)" in lobby and "Random bot 1" in lobby and "Random bot 2" in lobby
    greedy = game_create(
        creator=anne, rules_id="pirates", players=3, bot_seats=2, bot_kind=Seat.BotKind.GREEDY
    )
    services.game_start(game_id=greedy.pk, by=anne)
    page = logged_in(anne).get(f"/games/{greedy.pk}/").content.decode()
    assert "Greedy bot 1" in page and "Greedy bot 2" in page and "Random bot" not in page


def test_seats_are_named_by_person_or_bot_level_numbered_only_when_a_level_repeats() -> None:
    names = seat_names([
        Sitter(3, None, "strong"), Sitter(0, "Anne", None), Sitter(1, None, "strong"),
        Sitter(2, None, "greedy"), Sitter(4, "Bob", "strong"), Sitter(5, None, None),
    ])
    # An unrecorded level is the greedy bot's (it was the only one): greedy twice, numbered.
    assert names == {0: "Anne", 1: "Strong bot 1", 2: "Greedy bot 1", 3: "Strong bot 2", 4: "Bob (bot)",
                     5: "Greedy bot 2"}
    assert seat_names([Sitter(0, "Anne", None), Sitter(1, None, "random")]) == {0: "Anne", 1: "Random bot"}


def test_no_template_comment_shows_on_the_table() -> None:
    """A {# … #} comment may not span lines: the table showed one as text."""
    anne = make_user("anne")
    game = game_create(creator=anne, rules_id="libertalia", players=2, bot_seats=1)
    services.game_start(game_id=game.pk, by=anne)
    page = logged_in(anne).get(f"/games/{game.pk}/").content.decode()
    assert "{#" not in page and "#}" not in page
