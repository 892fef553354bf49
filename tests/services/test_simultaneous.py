"""Simultaneous decisions are independent: when several seats decide at once (Libertalia's
Sunrise picks, classic Pirates' challenge question), a decision sent with the seq its player
read is accepted although other seats' decisions of the same step landed first, as long as
that seat stayed to act throughout and its own choices are the same. Anything else is still
a stale move.

Whole games against PostgreSQL: at every step where several seats decide, each of them sends
its decision from its own thread and connection, released together by a barrier, with the
seq read before any of them sent."""

from __future__ import annotations

import html
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from engine import IllegalAction, registry
from engine.base import Action, Step
from games import services
from games.models import Event, Game, PlayerProfile, Seat
from games.services import lobby, simultaneous
from tests.platform.toy import ToyRules, ToyState, toy_registered
from tests.services.support import make_users

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MOVE_LIMIT = 1500  # far more decisions than any of these games takes
API_REFUSED = 409


def start(
    rules_id: str, people: int, seed: str, monkeypatch: pytest.MonkeyPatch, prefix: str = "p"
) -> tuple[Game, dict[int, User]]:
    """A running game of ``rules_id`` with ``people`` people (no bots). The game's secret seed
    is fixed (the chance in it is not what these tests are about), so each run plays the same
    deal."""
    users = make_users(people, prefix=prefix)
    # No turn emails: each decision would send some, most of these tests' time, and they are
    # tests/notifications/test_simultaneous_turns.py's subject.
    none = PlayerProfile.Notify.NONE
    PlayerProfile.objects.bulk_create([PlayerProfile(user=user, notify=none) for user in users])
    game = services.game_create(creator=users[0], rules_id=rules_id, players=people, is_public=True)
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    with monkeypatch.context() as patch:
        patch.setattr(lobby.secrets, "token_hex", lambda _n: seed)
        services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    seats = Seat.objects.filter(game=game).select_related("user")
    return game, {seat.position: seat.user for seat in seats if seat.user is not None}


def at_once(jobs: list[Callable[[], Any]]) -> list[Any]:
    """Each job in its own thread (its own database connection), released together; a job's
    result, or the exception it raised."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = jobs[i]()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


@dataclass
class Tally:
    """What became of the decisions sent at once."""

    steps: Counter[str] = field(default_factory=Counter)  # kind of step -> how many, at once
    sent: int = 0
    accepted: int = 0
    refused: int = 0
    errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        return (
            f"{name}: {sum(self.steps.values())} steps decided at once ({dict(self.steps)}), "
            f"{self.sent} decisions sent at once, {self.accepted} accepted, {self.refused} refused, "
            f"{len(self.errors)} errors"
        )


# A sender plays ``action`` for ``user`` with ``expected_seq`` and ``key``, and says
# "accepted", "refused" (a stale move) or what else happened.
Sender = Callable[[User, Action, int, str], str]


def send_by_api(game: Game) -> Sender:
    tokens: dict[int, str] = {}

    def send(user: User, action: Action, expected_seq: int, key: str) -> str:
        if user.pk not in tokens:
            tokens[user.pk] = Token.objects.get_or_create(user=user)[0].key
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[user.pk]}")
        response = client.post(
            f"/api/games/{game.pk}/actions/",
            {"action": action, "expected_seq": expected_seq, "idempotency_key": key},
            format="json",
        )
        if response.status_code == 201:
            return "accepted"
        body = response.json()
        if response.status_code == API_REFUSED and body.get("error") == "stale_seq":
            return "refused"
        return f"{response.status_code} {body}"

    return send


def send_by_service(game: Game) -> Sender:
    def send(user: User, action: Action, expected_seq: int, key: str) -> str:
        try:
            submitted = services.action_submit(
                game_id=game.pk, user=user, action=action, expected_seq=expected_seq, idempotency_key=key
            )
        except services.StaleSeq:
            return "refused"
        except services.ServiceError as exc:
            return f"{exc.code} {exc.detail}"
        return "accepted" if submitted.created else "not created"

    return send


Chooser = Callable[[list[Action], random.Random], Action]


def any_legal(legal: list[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


def mostly_moves(legal: list[Action], rng: random.Random) -> Action:
    """Classic Pirates: moving pirates onto others builds the big mixed stacks that raise the
    challenge question (C-MUT-1); boarding at once rarely lets one form."""
    moves = [action for action in legal if action["type"] == "move"]
    return rng.choice(moves) if moves and rng.random() < 0.85 else rng.choice(legal)


def as_text(action: Action | None) -> str:
    return json.dumps(action, sort_keys=True)


def step_kind(legal: list[Action]) -> str:
    return str(legal[0]["type"])


def play_whole_game(
    game: Game, users: dict[int, User], send: Sender, choose: Chooser, seed: str
) -> Tally:
    """Play ``game`` to its end. Where several seats are to act, each of them sends its
    decision at the same moment with the seq read before any sent; every other decision is
    sent with the latest seq."""
    rules = services.rules_for(game)
    tally = Tally()
    for _ in range(MOVE_LIMIT):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return tally
        seq, to_act = game.seq, list(game.to_act)
        state = services.load_state(game)
        count = rules.action_count(state)
        legal = {seat: rules.legal_actions(state, seat) for seat in to_act}
        if len(to_act) == 1:
            (seat,) = to_act
            outcome = send(users[seat], choose(legal[seat], random.Random(f"{seed}:{count}:{seat}")), seq, "")
            if outcome != "accepted":
                tally.problems.append(f"seq {seq}: seat {seat} alone to act: {outcome}")
            continue
        picks = {seat: any_legal(legal[seat], random.Random(f"{seed}:{count}:{seat}")) for seat in to_act}
        keys = {seat: f"at-once-{seq}-{seat}" for seat in to_act}
        tally.steps[step_kind(legal[to_act[0]])] += 1
        tally.sent += len(picks)
        outcomes = at_once([partial(send, users[seat], picks[seat], seq, keys[seat]) for seat in to_act])
        for seat, outcome in zip(to_act, outcomes, strict=True):
            if outcome == "accepted":
                tally.accepted += 1
            elif outcome == "refused":
                tally.refused += 1
            else:
                tally.errors.append(f"seq {seq} seat {seat}: {outcome!r}")
        # Exactly one event per accepted decision, right after the seq they were sent with.
        accepted = [seat for seat, outcome in zip(to_act, outcomes, strict=True) if outcome == "accepted"]
        events = list(Event.objects.filter(game=game, seq__gt=seq, seq__lte=seq + len(accepted)))
        got = sorted((e.seat, str(e.kind), e.idempotency_key, as_text(e.action)) for e in events)
        want = sorted((s, "action", keys[s], as_text(picks[s])) for s in accepted)
        if got != want:
            tally.problems.append(f"seq {seq}: events {got}, expected {want}")
        for seat in to_act:
            if Event.objects.filter(game=game, idempotency_key=keys[seat]).count() > 1:
                tally.problems.append(f"seq {seq}: seat {seat}'s decision appended more than once")
    raise AssertionError(f"game {game.pk} did not end within {MOVE_LIMIT} decisions")


def assert_clean(game: Game, tally: Tally, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(f"\n{tally.line(name)}")
    assert tally.sent, f"{name}: no step where several seats decided at once; the test proves nothing"
    assert tally.refused == 0, tally.line(name)
    assert tally.errors == [] and tally.problems == [], (tally.errors, tally.problems)
    assert tally.accepted == tally.sent
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    # The log the concurrent decisions left replays to the game's result.
    rules = services.rules_for(game)
    assert rules.result(services.replay_from_start(game)) == game.result
    seqs = list(Event.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.seq + 1))


@pytest.mark.parametrize("people", [3, 4, 6])
def test_libertalia_every_sunrise_pick_sent_at_once_is_accepted(
    people: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = f"simul-libertalia-{people}"
    game, users = start("libertalia", people, seed, monkeypatch)
    tally = play_whole_game(game, users, send_by_api(game), any_legal, seed)
    assert tally.steps["play"] >= 6, tally.line("libertalia")  # a Sunrise each day of a campaign
    assert_clean(game, tally, f"libertalia, {people} seats, over the API", capsys)


# Seeds whose deal, with ``mostly_moves``, raises the challenge question to several seats at
# once again and again (found by playing the engine alone).
CLASSIC_SEEDS = {3: "simul-10", 4: "simul-14", 5: "simul-18"}


@pytest.mark.parametrize("people", [3, 4, 5])
def test_classic_pirates_every_challenge_answer_sent_at_once_is_accepted(
    people: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = CLASSIC_SEEDS[people]
    game, users = start("pirates-classic", people, seed, monkeypatch)
    tally = play_whole_game(game, users, send_by_service(game), mostly_moves, seed)
    assert set(tally.steps) <= {"challenge", "decline"}, tally.line("classic")
    assert_clean(game, tally, f"classic Pirates, {people} seats, through the service", capsys)


# --- What stays stale -----------------------------------------------------------------------


def submit(game: Game, user: User, action: Action, expected_seq: int, key: str = "") -> services.Submitted:
    return services.action_submit(
        game_id=game.pk, user=user, action=action, expected_seq=expected_seq, idempotency_key=key
    )


def legal(game: Game, position: int) -> list[Action]:
    game.refresh_from_db()
    return services.rules_for(game).legal_actions(services.load_state(game), position)


def assert_stale(game: Game, user: User, action: Action, expected_seq: int, key: str = "") -> None:
    game.refresh_from_db()
    before = game.seq
    with pytest.raises(services.StaleSeq) as refused:
        submit(game, user, action, expected_seq, key)
    assert refused.value.current_seq == before
    assert "The game has moved on" in refused.value.detail and "Reload" in refused.value.detail
    game.refresh_from_db()
    assert game.seq == before
    assert Event.objects.filter(game=game).count() == before


class ExclusiveToyRules(ToyRules):
    """The toy's picks, except that a number someone has picked this round is no longer
    offered to the others: another seat's pick changes what this seat may choose."""

    id = "toy-exclusive"
    title = "Toy picks, each number once"

    def legal_actions(self, state: ToyState, seat: int) -> list[Action]:
        taken = {pick for pick in state.picks if pick is not None}
        return [action for action in super().legal_actions(state, seat) if action["number"] not in taken]

    def step(self, state: ToyState, seat: int, action: Action) -> Step[ToyState]:
        if seat in self.to_act(state) and action not in self.legal_actions(state, seat):
            raise IllegalAction("That number is taken.")
        return super().step(state, seat, action)


@pytest.fixture
def toy() -> Iterator[None]:
    with toy_registered():
        yield


@pytest.fixture
def exclusive_toy() -> Iterator[None]:
    rules = ExclusiveToyRules()
    registry.register(rules)
    try:
        yield
    finally:
        registry.unregister(rules.id)


def pick(number: int) -> Action:
    return {"type": "pick", "number": number}


def test_libertalia_a_pick_after_the_seats_own_pick_is_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    game, users = start("libertalia", 3, "simul-own-pick", monkeypatch)
    a, b, c = sorted(game.to_act)
    read = game.seq
    cards = {seat: legal(game, seat) for seat in (a, b, c)}
    submit(game, users[a], cards[a][0], read)
    # A second thought of A's, sent with the seq A read: its own pick came since.
    assert_stale(game, users[a], cards[a][1], read, key="second-thought")
    # B's pick sent with the seq after A's: B is still to decide, A's pick changes nothing.
    submit(game, users[b], cards[b][0], read + 1)
    # B again, with the seq before its own pick: stale.
    assert_stale(game, users[b], cards[b][1], read + 1)
    submit(game, users[c], cards[c][0], read)  # the last pick: the reveal
    game.refresh_from_db()
    assert game.seq >= read + 3
    for seat in (a, b, c):
        assert_stale(game, users[seat], cards[seat][1], read)


def test_toy_after_the_reveal_an_old_seq_is_stale_though_the_choice_looks_the_same(toy: None) -> None:
    users = make_users(3, prefix="toy")
    game = toy_game("toy-picks", users)
    read = game.seq
    seats = sorted(game.to_act)
    for seat in seats:
        submit(game, seat_user(game, seat), pick(1), read)
    game.refresh_from_db()
    # Round 2: the same seats, the same legal picks as at ``read``; still an older position.
    assert sorted(game.to_act) == seats and legal(game, seats[0]) == [pick(n) for n in (1, 2, 3)]
    assert_stale(game, seat_user(game, seats[0]), pick(2), read)
    submit(game, seat_user(game, seats[0]), pick(2), game.seq)


def test_toy_when_another_pick_changes_the_seats_choices_an_old_seq_is_stale(exclusive_toy: None) -> None:
    users = make_users(3, prefix="excl")
    game = toy_game("toy-exclusive", users)
    read = game.seq
    a, b, _c = sorted(game.to_act)
    submit(game, seat_user(game, b), pick(1), read)
    # 2 is still free, but A no longer chooses from what A read (1 is gone): stale.
    assert pick(2) in legal(game, a)
    assert_stale(game, seat_user(game, a), pick(2), read)
    submit(game, seat_user(game, a), pick(2), read + 1)


def test_a_seat_not_to_act_at_the_seq_it_sent_or_without_a_seat_is_refused(toy: None) -> None:
    users = make_users(4, prefix="other")
    game = toy_game("toy-picks", users[:3])
    read = game.seq
    a, b, c = sorted(game.to_act)
    submit(game, seat_user(game, a), pick(1), read)
    # A is not to act after its pick: not its turn now, and its older seqs are stale.
    with pytest.raises(services.IllegalMove, match="not your turn"):
        submit(game, seat_user(game, a), pick(2), read + 1)
    submit(game, seat_user(game, b), pick(2), read + 1)
    assert_stale(game, seat_user(game, a), pick(3), read + 1)  # A was not to act at read + 1
    assert_stale(game, seat_user(game, a), pick(3), read)
    # Seqs the game never had, and someone without a seat.
    for bad in (0, -1, read + 10):
        assert_stale(game, seat_user(game, c), pick(3), bad)
    with pytest.raises(services.Forbidden):
        submit(game, users[3], pick(3), read)
    game.refresh_from_db()
    assert Event.objects.filter(game=game).count() == read + 2 and game.to_act == [c]


def test_past_few_events_the_index_is_asked_first_and_the_decision_is_the_same(
    toy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seq read more than FEW_EVENTS events ago is checked by one indexed query for an
    event that breaks the decision before the events are loaded; the verdicts are those of
    the short path (here every seq read is past FEW_EVENTS)."""
    monkeypatch.setattr(simultaneous, "FEW_EVENTS", 0)
    users = make_users(3, prefix="past")
    game = toy_game("toy-picks", users)
    read = game.seq
    a, b, c = sorted(game.to_act)
    submit(game, seat_user(game, a), pick(1), read)
    submit(game, seat_user(game, b), pick(2), read)  # one event since, A's: B's decision stands
    assert_stale(game, seat_user(game, a), pick(3), read)  # A's own pick came since
    submit(game, seat_user(game, c), pick(3), read)  # two since, neither C's: the reveal
    game.refresh_from_db()
    assert game.seq == read + 3 and sorted(game.to_act) == [a, b, c]
    assert_stale(game, seat_user(game, c), pick(1), read)  # C's own pick and the reveal since


def test_api_answer_for_a_stale_move_keeps_its_shape_and_an_independent_pick_is_201(toy: None) -> None:
    users = make_users(3, prefix="api")
    game = toy_game("toy-picks", users)
    read = game.seq
    a, b, _c = sorted(game.to_act)
    clients = {seat: api_client(seat_user(game, seat)) for seat in (a, b)}
    url = f"/api/games/{game.pk}/actions/"
    first = clients[a].post(url, {"action": pick(1), "expected_seq": read}, format="json")
    assert first.status_code == 201
    independent = clients[b].post(url, {"action": pick(2), "expected_seq": read}, format="json")
    assert independent.status_code == 201 and independent.json()["seq"] == read + 2
    stale = clients[a].post(url, {"action": pick(3), "expected_seq": read}, format="json")
    assert stale.status_code == 409
    body = stale.json()
    assert set(body) == {"error", "detail", "current_seq"}
    assert body["error"] == "stale_seq" and body["current_seq"] == read + 2
    assert Event.objects.filter(game=game).count() == read + 2


def test_a_resent_idempotency_key_answers_the_first_result(toy: None) -> None:
    users = make_users(3, prefix="key")
    game = toy_game("toy-picks", users)
    read = game.seq
    a, b, c = sorted(game.to_act)
    # A double-clicks while B picks: all three requests at once, with the seq both read.
    outcomes = at_once([
        partial(submit, game, seat_user(game, a), pick(1), read, "a-click"),
        partial(submit, game, seat_user(game, a), pick(1), read, "a-click"),
        partial(submit, game, seat_user(game, b), pick(2), read, "b-click"),
    ])
    assert all(isinstance(o, services.Submitted) for o in outcomes), outcomes
    assert sorted(o.created for o in outcomes[:2]) == [False, True]
    assert outcomes[0].event.pk == outcomes[1].event.pk
    assert outcomes[2].created
    # Resent later, with the same old seq: the first result again, nothing appended.
    again = submit(game, seat_user(game, a), pick(1), read, "a-click")
    assert not again.created and again.event.pk == outcomes[0].event.pk
    assert Event.objects.filter(game=game).count() == read + 2
    assert Event.objects.filter(game=game, idempotency_key="a-click").count() == 1
    submit(game, seat_user(game, c), pick(3), read)
    assert Event.objects.filter(game=game, kind=Event.Kind.ACTION).count() == 3


def test_a_bots_pick_in_between_changes_nothing_for_a_person(toy: None) -> None:
    users = make_users(2, prefix="bot")
    game = toy_game("toy-picks", users, bots=1)
    # The bot seat picked as soon as the game started (tests run tasks at once); the people
    # read the position before that, as a page or an email of the start would show it.
    (bot_event,) = Event.objects.filter(game=game, kind=Event.Kind.BOT)
    read = bot_event.seq - 1
    assert Event.objects.filter(game=game).count() == read + 1
    people = sorted(seat for seat in range(3) if seat != bot_event.seat)
    for seat in people:
        submit(game, seat_user(game, seat), pick(2), read)
    # The round's three picks in order (then the bot picks again in the next round).
    after = Event.objects.filter(game=game, seq__gt=read).order_by("seq").values_list("kind", "seat")
    assert list(after[:3]) == [("bot", bot_event.seat), ("action", people[0]), ("action", people[1])]


# --- The table's form --------------------------------------------------------------------------


def test_the_tables_form_posts_the_seq_its_page_was_rendered_at(monkeypatch: pytest.MonkeyPatch) -> None:
    game, users = start("libertalia", 3, "simul-web", monkeypatch)
    a, b, _c = sorted(game.to_act)
    browser = Client()
    browser.force_login(users[b])
    page = browser.get(reverse("game", args=[game.pk])).content.decode()
    form = page[page.index('id="controls"'):]
    sent_seq = int(re.search(r'name="expected_seq" value="(\d+)"', form).group(1))  # type: ignore[union-attr]
    action = html.unescape(re.search(r'name="action" value="([^"]+)"', form).group(1))  # type: ignore[union-attr]
    assert sent_seq == game.seq
    submit(game, users[a], legal(game, a)[0], game.seq)  # A picks while B's page is open

    answer = browser.post(
        reverse("game-act", args=[game.pk]), {"expected_seq": sent_seq, "action": action}, follow=True
    )

    assert "moved on" not in answer.content.decode()
    mine = Event.objects.get(game=game, seq=sent_seq + 2)
    assert (mine.seat, mine.kind, mine.action) == (b, "action", json.loads(action))
    # The same form once more: B's own pick came since, so the game moved on for B.
    again = browser.post(
        reverse("game-act", args=[game.pk]), {"expected_seq": sent_seq, "action": action}, follow=True
    )
    assert "The game moved on before your move arrived" in again.content.decode()
    assert Event.objects.filter(game=game).count() == sent_seq + 2


def toy_game(rules_id: str, users: list[User], bots: int = 0) -> Game:
    game = services.game_create(
        creator=users[0], rules_id=rules_id, players=len(users) + bots, is_public=True, bot_seats=bots
    )
    for user in users[1:]:
        services.seat_join(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, by=users[0])
    game.refresh_from_db()
    return game


def seat_user(game: Game, position: int) -> User:
    user = Seat.objects.select_related("user").get(game=game, position=position).user
    assert user is not None
    return user


def api_client(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client
