"""The Captain Lucky table: the board shows the middle, every collection, captains,
hand sizes, the pile and the discard pile, the viewer's own hand and the dice of the latest
roll; its controls submit exactly the legal actions in every phase; the replay steps action
by action and charts points; and no other seat's hand (K-END-4) reaches a seat or a spectator
through the HTML table, its live fragment, the replay or the API, during or after the game."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from engine.captain_lucky.cards import KINDS, composition
from games import selectors, services
from games.models import Event, Game, Seat
from games.tables import table_for
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db

ACTION_RE = re.compile(r'name="action" value="([^"]+)"')
HAND_RE = re.compile(r'data-hand="(\d+)"')
DIE_RE = re.compile(r'<li class="cl-die (head|blank)[^"]*"><svg[^>]*role="img" aria-label="([^"]+)"')
MAX_ACTIONS = 600

Chooser = Callable[[list[dict[str, Any]]], dict[str, Any]]


def fixed_deck(players: int, seed: int = 14) -> list[str]:
    """A shuffled deck of the right packs, for the ``deck`` option (a fixed deal)."""
    deck = [kind for kind, n in zip(KINDS, composition(players), strict=True) for _ in range(n)]
    random.Random(seed).shuffle(deck)
    return deck


def lucky_game(users: list[User], *, bots: int = 0, options: dict[str, Any] | None = None) -> Game:
    """A running game of Captain Lucky with ``users`` seated (and ``bots`` bot seats)."""
    fixed = bool(options)  # only a private game may fix its deal; it is joined by invitation
    game = services.game_create(
        creator=users[0], rules_id="captain-lucky", players=len(users) + bots, bot_seats=bots,
        options=options or {}, is_public=not fixed,
    )
    for user in users[1:]:
        if fixed:
            (invitation,) = services.invitation_create(game_id=game.pk, by=users[0], emails=[user.email])
            services.invitation_accept(token=invitation.token, user=user)
        else:
            services.seat_join(game_id=game.pk, user=user)
    game = services.game_start(game_id=game.pk, by=users[0])
    if fixed:
        # These tests are about what a spectator sees of a fixed deal, so the game is opened
        # to spectators behind the lobby's back (the lobby keeps fixed deals private).
        Game.objects.filter(pk=game.pk).update(is_public=True)
        game.refresh_from_db()
    return game


def clients(users: list[User]) -> dict[int, Client]:
    """A logged-in client per user, by the seat the user got."""
    found = {}
    for seat in Seat.objects.filter(user__in=users).select_related("user"):
        client = Client()
        assert seat.user is not None
        client.force_login(seat.user)
        found[seat.position] = client
    return found


def offered(page: bytes) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(raw)) for raw in ACTION_RE.findall(page.decode())]


def quick(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A move that ends the game soon: place as many cards as possible, steal the first set,
    re-roll while possible (every re-roll discards cards, which are drawn again)."""
    places = [a for a in actions if a["type"] == "place"]
    if places:
        return max(places, key=lambda a: a["count"])
    return next((a for a in actions if a["type"] == "reroll"), actions[0])


def play_one(game: Game, choose: Chooser = quick) -> tuple[int, dict[str, Any]]:
    game.refresh_from_db()
    seat = Seat.objects.select_related("user").get(game=game, position=game.to_act[0])
    assert seat.user is not None
    actions = selectors.game_detail(game, seat.user)["legal_actions"]
    action = choose(actions)
    services.action_submit(game_id=game.pk, user=seat.user, action=action, expected_seq=game.seq)
    game.refresh_from_db()
    return seat.position, action


def play_until(game: Game, done: Callable[[Game], bool], choose: Chooser = quick) -> None:
    for _ in range(MAX_ACTIONS):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or done(game):
            return
        play_one(game, choose)
    raise AssertionError("the game went on for too long")


def view_of(game: Game, seat: int | None) -> dict[str, Any]:
    rules = services.rules_for(game)
    return rules.view(services.load_state(game), seat)


def board_html(text: str) -> str:
    start = text.index('id="board"')
    return text[start:text.index('<aside class="table-side">', start)]


@pytest.fixture
def trio() -> tuple[Game, list[User]]:
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    return lucky_game(users), users


# ---------------------------------------------------------------------------------------------
# The board


def test_board_shows_the_middle_collections_captains_hands_and_piles(trio: tuple[Game, list[User]]) -> None:
    """K-END-4's public parts all show: the middle's sets, collections, captains (and whether the
    bonus is used), hand sizes, the discard pile and the pile's size; the viewer's hand too."""
    game, users = trio
    # Play until someone has collected a set and someone has discarded (a paid re-roll).
    play_until(game, lambda g: bool(view_of(g, None)["discard"])
               and any(s["collection"] for s in view_of(g, None)["seats"]))
    by_seat = clients(users)
    view = view_of(game, None)
    for seat, client in by_seat.items():
        page = client.get(f"/games/{game.pk}/").content.decode()
        own = view_of(game, seat)
        for s in view["middle"]:
            assert f'data-set="{s["id"]}"' in page
        for other in view["seats"]:
            for s in other["collection"]:
                assert f'data-set="{s["id"]}"' in page
            assert f'{other["hand_count"]} card{"s" if other["hand_count"] != 1 else ""} in hand' in page \
                or other["seat"] == seat
        assert f"<strong>{view['pile_count']}</strong> card" in page and "in the pile" in page
        assert f"<strong>{len(view['discard'])}</strong> card" in page and "Discard pile" in page
        assert "Captain Heart" in page and ("bonus unused (+1)" in page or "bonus used" in page)
        # The viewer's own hand, kind by kind, in the game's words.
        hand = own["seats"][seat]["hand"]
        assert HAND_RE.findall(page) == [str(seat)]
        for kind in own["kinds"]:
            count = hand[kind["id"]]
            if count:
                word = kind["name"] if count == 1 else kind["plural"]
                assert f"{count} {word}" in page
    assert "Points over time" not in page  # the chart belongs to the replay


def test_captain_bonus_shows_as_used(trio: tuple[Game, list[User]]) -> None:
    """K-TURN-5: once a seat turns its captain card over, the table says so."""
    game, _users = trio

    def bonus_first(actions: list[dict[str, Any]]) -> dict[str, Any]:
        return next((a for a in actions if a["type"] == "captain_bonus"), quick(actions))

    play_until(game, lambda g: any(s["captain_bonus_used"] for s in view_of(g, None)["seats"]), bonus_first)
    view = view_of(game, None)
    used = [s["seat"] for s in view["seats"] if s["captain_bonus_used"]]
    page = Client().get(f"/games/{game.pk}/").content.decode()
    for seat in used:
        panel = page[page.index(f'data-seat="{seat}"'):]
        panel = panel[:panel.index("</article>")]
        assert "bonus used" in panel and "bonus unused" not in panel


def test_dice_of_the_latest_roll_show_as_dice_with_text(trio: tuple[Game, list[User]]) -> None:
    """K-END-4: dice are public; each is drawn (a skull for a pirate head) with a text alternative."""
    game, _users = trio
    play_until(game, lambda g: view_of(g, None)["last_roll"] is not None)
    roll = view_of(game, None)["last_roll"]
    page = Client().get(f"/games/{game.pk}/").content.decode()
    dice = DIE_RE.findall(page)
    assert [face for face, _label in dice] == roll["dice"]
    assert all(label.startswith("pirate head" if face == "head" else "blank") for face, label in dice)
    assert page.count('class="cl-skull"') == roll["dice"].count("head")
    spoken = re.search(r'<ul class="cl-dice" aria-label="Dice: ([^"]+)"', page)
    assert spoken is not None and ("all heads" in spoken.group(1) or "blank" in spoken.group(1))
    assert f"steals {roll['set']}" in page


# ---------------------------------------------------------------------------------------------
# The controls


def test_controls_submit_exactly_the_legal_actions_in_every_phase(trio: tuple[Game, list[User]]) -> None:
    """K-ACT: place (kind and count), steal (which set), re-roll, captain bonus, stop — the
    buttons are the legal actions, in their order, each once; the others get no controls."""
    game, users = trio
    by_seat = clients(users)
    seen: set[str] = set()
    for _ in range(MAX_ACTIONS):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or seen >= {"place", "steal", "roll"}:
            break
        seat = game.to_act[0]
        page = by_seat[seat].get(f"/games/{game.pk}/")
        legal = services.rules_for(game).legal_actions(services.load_state(game), seat)
        buttons = offered(page.content)
        assert buttons == legal
        phase = view_of(game, seat)["phase"]
        seen.add(phase)
        text = page.content.decode()
        if phase == "place":
            assert 'data-group="place-' in text
        if phase == "roll":
            assert "Stop: the steal of" in text and 'class="cl-roll-now"' in text
        for other, client in by_seat.items():
            if other != seat:
                assert offered(client.get(f"/games/{game.pk}/").content) == []
        # The move goes in through the page's own form.
        choice = quick(buttons)
        response = by_seat[seat].post(
            f"/games/{game.pk}/act/", {"action": json.dumps(choice), "expected_seq": game.seq}
        )
        assert response.status_code == 302
        assert Event.objects.get(game=game, seq=game.seq + 1).action == choice
    assert seen >= {"place", "steal", "roll"}


def test_move_groups_number_every_legal_action_once_in_words(trio: tuple[Game, list[User]]) -> None:
    """The moves for emails: every legal action once, with its index, in the game's words."""
    game, _users = trio
    table = table_for("captain-lucky")
    phases: set[str] = set()
    for _ in range(MAX_ACTIONS):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or len(phases) == 3:
            break
        seat = game.to_act[0]
        view = view_of(game, seat)
        legal = services.rules_for(game).legal_actions(services.load_state(game), seat)
        moves = [m for g in table.move_groups(legal, view) for m in g.moves]
        assert sorted(m.index for m in moves) == list(range(len(legal)))
        assert [json.loads(m.action) for m in sorted(moves, key=lambda m: m.index)] == legal
        for move in moves:
            action = legal[move.index]
            if action["type"] == "place":
                assert move.label.startswith(f"Place {action['count']} ")
            elif action["type"] == "steal":
                cards = next(s["cards"] for s in [*view["middle"], *(c for x in view["seats"]
                             for c in x["collection"])] if s["id"] == action["set"])
                dice = f"roll {cards} {'die' if cards == 1 else 'dice'}"
                assert move.label.startswith(f"Steal {action['set']} (") and dice in move.label
            elif action["type"] == "reroll":
                assert move.label.startswith("Re-roll the ") and "discard" in move.label
            elif action["type"] == "captain_bonus":
                assert move.label.startswith("Captain bonus: re-roll")
            else:
                assert move.label.startswith("Stop: the steal of ")
        phases.add(str(view["phase"]))
        play_one(game)
    assert phases == {"place", "steal", "roll"}


# ---------------------------------------------------------------------------------------------
# Secrecy: hands (K-END-4), during and after the game


def _private_sentences(game: Game) -> dict[int, list[str]]:
    """Every sentence meant for one seat only (the kinds it drew), by seat."""
    found: dict[int, list[str]] = {}
    for event in Event.objects.filter(game=game).order_by("seq"):
        for seat, text in (event.payload.get("private") or {}).items():
            found.setdefault(int(seat), []).append(text)
    return found


def _answers(game: Game, client: Client, api: APIClient, after: int = 1, frames: int = 12) -> dict[str, str]:
    """Everything a viewer can read of the game through the web and the API; of the replay
    frames, ``frames`` of those after ``after`` (the earlier ones were read at an earlier check)."""
    out = {
        "table": client.get(f"/games/{game.pk}/").content.decode(),
        "live": client.get(f"/games/{game.pk}/live/").content.decode(),
        "api-game": api.get(f"/api/games/{game.pk}/").content.decode(),
        "api-events": api.get(f"/api/games/{game.pk}/events/").content.decode(),
    }
    replay = client.get(f"/games/{game.pk}/replay/")
    if replay.status_code == 200:
        out["replay"] = replay.content.decode()
        for seq in range(after + 1, game.seq + 1, max(1, (game.seq - after) // frames)):
            out[f"frame-{seq}"] = client.get(f"/games/{game.pk}/replay/{seq}/").content.decode()
            out[f"api-frame-{seq}"] = api.get(f"/api/games/{game.pk}/replay/{seq}/").content.decode()
    return out


def _assert_no_other_hand(game: Game, viewer: int | None, answers: dict[str, str]) -> None:
    private = _private_sentences(game)
    for where, text in answers.items():
        hands = HAND_RE.findall(text)
        # A finished game's replay is everyone's, shown as to a spectator: no hand at all.
        spectator = viewer is None or (game.is_over and where.startswith(("frame", "replay")))
        allowed = [] if spectator else [str(viewer)]
        assert set(hands) <= set(allowed), (where, hands)
        for seat, sentences in private.items():
            if seat == viewer:
                continue
            for sentence in sentences:
                assert sentence not in text and html.escape(sentence) not in text, (where, seat, sentence)
                assert json.dumps(sentence)[1:-1] not in text, (where, seat, sentence)
        if where.startswith("api-game") or where.startswith("api-frame"):
            body = json.loads(text)
            view = body.get("view") or body
            for seat in view["seats"]:
                if seat["seat"] != viewer:
                    assert seat["hand"] is None, (where, seat)
            assert "deck" not in (body.get("options") or {}), where


def _viewers(game: Game, users: list[User]) -> list[tuple[int | None, Client, APIClient]]:
    found: list[tuple[int | None, Client, APIClient]] = [(None, Client(), APIClient())]
    for seat in Seat.objects.filter(game=game, user__in=users).select_related("user"):
        assert seat.user is not None
        client, api = Client(), APIClient()
        client.force_login(seat.user)
        api.force_authenticate(seat.user)
        found.append((seat.position, client, api))
    return found


def test_no_seat_or_spectator_sees_another_hand_during_and_after_the_game() -> None:
    """K-END-4: hands are secret, also after the end: not in the table, its live fragment, the
    replay or the API (views, events feed, replay frames, options), for any seat or spectator.
    The drawn kinds (each seat's private sentences) reach only the seat that drew them."""
    users = [make_user(n) for n in ("anne", "bob", "cat")]
    game = lucky_game(users, options={"deck": fixed_deck(3)})  # a fixed deal would give away the hands too
    viewers = _viewers(game, users)
    checks = 0
    checked_to = 1  # frames up to this seq were read while the game went on
    for step in range(MAX_ACTIONS):
        game.refresh_from_db()
        if step % 15 == 0 or game.status != Game.Status.ACTIVE:
            # At the end a dozen over the whole game again: a finished game's replay is shown
            # to everyone.
            after, frames = (checked_to, 4) if game.status == Game.Status.ACTIVE else (1, 12)
            for seat, client, api in viewers:
                _assert_no_other_hand(game, seat, _answers(game, client, api, after, frames))
                checks += 1
            checked_to = game.seq
        if game.status != Game.Status.ACTIVE:
            break
        play_one(game)
    assert game.status == Game.Status.FINISHED and checks > len(viewers) * 2
    assert _private_sentences(game), "the game drew cards, so there were private sentences to keep"
    # After the end each seat still sees its own hand on the table, and only that.
    for seat, client, _api in viewers:
        page = client.get(f"/games/{game.pk}/").content.decode()
        assert HAND_RE.findall(page) == ([] if seat is None else [str(seat)])
        assert "Final scores" in page and game.seed not in page


def test_hands_that_differ_leave_every_other_viewer_a_byte_identical_board() -> None:
    """K-END-4 as indistinguishability: two games whose deals differ only in Red's and Blue's
    hands give Green and a spectator the same board."""
    deck = fixed_deck(3)
    # Seat 0 takes cards 0-4 and seat 1 cards 5-9: swap one card between them.
    swapped = list(deck)
    other = next(i for i in range(5, 10) if deck[i] != deck[0])
    swapped[0], swapped[other] = deck[other], deck[0]
    assert sorted(swapped[:5]) != sorted(deck[:5])
    boards: dict[str, list[str]] = {"green": [], "spectator": []}
    for name, order in (("one", deck), ("two", swapped)):
        users = [make_user(f"{name}{i}") for i in range(3)]
        game = lucky_game(users, options={"deck": order})
        green = Client()
        green.force_login(users[2])
        for key, client in (("green", green), ("spectator", Client())):
            text = board_html(client.get(f"/games/{game.pk}/").content.decode())
            text = text.replace(game.seed_sha256[:16], "SEED")
            for i, user in enumerate(users):
                text = text.replace(user.get_username(), f"player{i}")
            boards[key].append(text)
    assert boards["green"][0] == boards["green"][1]
    assert boards["spectator"][0] == boards["spectator"][1]
    assert 'data-hand="2"' in boards["green"][0] and "data-hand" not in boards["spectator"][0]


def test_a_finished_game_never_reveals_its_deck_option_or_seed() -> None:
    """K-END-4 and reveal_seed_at_end: the fixed deal of a finished game is not in the API's
    game detail, for a seat or anyone else (it would give away every hand)."""
    users = [make_user(n) for n in ("anne", "bob")]
    deck = fixed_deck(2)
    game = lucky_game(users, options={"deck": deck})
    play_until(game, lambda g: False)
    assert game.status == Game.Status.FINISHED
    for user in [None, *users]:
        api = APIClient()
        if user is not None:
            api.force_authenticate(user)
        body = api.get(f"/api/games/{game.pk}/").json()
        assert body["options"] == {} and body["seed"] is None and body["fixed_deal"] is True
        assert json.dumps(deck[:4])[1:-1] not in json.dumps(body)


# ---------------------------------------------------------------------------------------------
# The end, the replay and its chart


def test_end_screen_and_replay_step_action_by_action_with_dice_and_points(
    trio: tuple[Game, list[User]],
) -> None:
    """The replay has one frame per event (each action one frame); a roll's frame shows that
    roll's dice as its own and its sentence names them; the chart plots points (K-END-2)."""
    game, _users = trio
    play_until(game, lambda g: False)
    assert game.status == Game.Status.FINISHED
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert "Final scores" in page and "the pile ran out" in page
    assert game.result is not None
    for score in game.result["scores"]:
        assert f"<strong>{score}</strong>" in page
    # K-END-2 and K-END-3: the points' parts and the sets by size that break a tie.
    for sheet in view_of(game, None)["scoring"]:
        sizes = "·".join(str(sheet["sets_by_size"][str(n)]) for n in (5, 4, 3, 2, 1))
        assert f"{sheet['cards']} + {sheet['captain_bonus']}</td>" in page and f">{sizes}</td>" in page
    replay = Client().get(f"/games/{game.pk}/replay/").content.decode()
    assert f'max="{game.seq}"' in replay and "Points over time" in replay
    actions = Event.objects.filter(game=game, kind__in=["action", "auto_pass"]).order_by("seq")
    assert actions.count() == game.seq - 1
    rolls = 0
    for event in actions:
        frame = Client().get(f"/games/{game.pk}/replay/{event.seq}/").content.decode()
        text = event.payload["text"]
        assert html.escape(text) in frame
        if (event.action or {}).get("type") in ("steal", "reroll", "captain_bonus"):
            rolls += 1
            assert "rolls: " in text or "re-rolls " in text
            assert "This roll" in frame and 'class="panel cl-roll just"' in frame
            marks = re.search(r'data-dice="([^"]+)"', frame)
            assert marks is not None and html.unescape(marks.group(1)).split(" — ")[0] in text
        else:
            assert "This roll" not in frame
    assert rolls > 0
    # The chart's last points are the final scores.
    legend = re.findall(r"(\d+) points at event", replay)
    assert sorted(map(int, legend)) == sorted(game.result["scores"])


def test_a_bot_seat_plays_captain_lucky_through_the_service(
    django_capture_on_commit_callbacks: Callable[..., Any], settings: Any,
) -> None:
    """Bots move through the same service: a game of two people and a bot (the strong one, the
    default level) reaches the end with the bot's moves in the log (engine.search plays them)."""
    settings.BOT_MOVE_DELAY_SECONDS = 0
    users = [make_user(n) for n in ("anne", "bob")]
    with django_capture_on_commit_callbacks(execute=True):
        game = lucky_game(users, bots=1)
    for _ in range(MAX_ACTIONS):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        with django_capture_on_commit_callbacks(execute=True):
            play_one(game)
    assert game.status == Game.Status.FINISHED
    bot_seat = Seat.objects.get(game=game, user__isnull=True).position
    bot_moves = Event.objects.filter(game=game, kind="bot")
    assert bot_moves.exists() and {e.seat for e in bot_moves} == {bot_seat}
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert "Strong bot" in page
