"""Presence defers a turn email; it never cancels one (games/presence.py), as a property.

Random timelines of a person at a table with an opponent and a bot: she arrives (her open tab
polls every tick, through ``presence.seat_seen``), leaves (the polls stop), moves; the
opponent moves; the bot answers by itself; the clock advances. Everything runs through the
real services (``action_submit``, the bot's ``bot_play`` from its outbox row), the real outbox
relay with tasks run in-process, and beat's real sweep task every ``SWEEP_INTERVAL_SECONDS``,
with only the clock controlled (``django.utils.timezone.now``).

Then, for every turn of hers (from the event after which she must act, not being the rest of
her own move, until her next move), worked out from the event log by the engine and from the
polls the test itself made (not from the rule in games/presence.py):

- each turn email she got (``X-Game-Seq``) is for a position inside one of her turns, and no
  turn has two;
- a turn she did not act on by its bound got exactly one, sent by the bound: the take-back
  grace + the sweep interval after the turn came ("every turn"), or ``PRESENCE_SECONDS`` + the
  sweep interval after the later of the turn coming and her last poll ("only when away");
- none went before the grace, nor (only when away) while she was at the table;
- the daily digest and "none" get no turn email.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from unittest import mock

import pytest
from django.core import mail
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_django.fixtures import Settings as SettingsWrapper

from engine.bots import choose_action
from games import outbox, presence, tasks
from games.models import Event, Game, Notification, PlayerProfile, Seat
from games.read.state import states_after_each
from games.services import action_submit, game_create, game_start, load_state, lobby, rules_for, seat_join
from tests.notifications.helpers import make_user

pytestmark = pytest.mark.django_db

TICK = timedelta(seconds=5)
POLL_AT = timedelta(seconds=2)  # into each tick
PRESENCE = 60
SWEEP = 20
BASE = datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)
_examples = itertools.count()

Op = tuple[str, int]
# What happens next; only waiting takes time (ticks), so she may leave right after moving.
OPS = st.one_of(
    st.tuples(st.sampled_from(["arrive", "leave", "move", "move", "opponent"]), st.just(0)),
    st.tuples(st.just("wait"), st.integers(min_value=1, max_value=10)),
)


@dataclass
class Clock:
    now: datetime
    ticks: int = 0

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Table:
    """One example's game, her seat and what the test did."""

    game: Game
    her: Seat
    opponent: Seat
    clock: Clock
    rng: random.Random
    present: bool = False
    polls: list[datetime] = field(default_factory=list)

    def poll(self) -> None:
        self.polls.append(self.clock.now)
        presence.seat_seen(Seat.objects.get(pk=self.her.pk))

    def tick(self) -> None:
        """Time passes: her tab polls if open; then beat runs the sweep every SWEEP seconds and
        the relay every tick; the relay runs until nothing is due (a bot's move owes more
        rows). Polls and beat's work never fall on the same instant."""
        self.clock.now += POLL_AT
        if self.present:
            self.poll()
        self.clock.now += TICK - POLL_AT
        self.clock.ticks += 1
        if (self.clock.ticks * TICK.seconds) % SWEEP == 0:
            tasks.turn_emails_for_leavers()
        for _ in range(50):
            if not outbox.relay():
                break

    def play(self, seat: Seat) -> None:
        self.game.refresh_from_db()
        if self.game.status != Game.Status.ACTIVE or seat.position not in self.game.to_act:
            return
        rules = rules_for(self.game)
        action = choose_action(rules, load_state(self.game), seat.position, "random", self.rng)
        assert seat.user is not None
        action_submit(game_id=self.game.pk, user=seat.user, action=action, expected_seq=self.game.seq)
        for _ in range(50):
            if not outbox.relay():
                break


@pytest.fixture
def clock() -> Iterator[Clock]:
    the_clock = Clock(BASE)
    with mock.patch("django.utils.timezone.now", the_clock):
        yield the_clock


def _table(clock: Clock, rules_id: str, notify: str, seed: int, rival: bool = True) -> Table:
    """A started game: her, a rival who wants no emails (unless ``rival`` is False) and a bot."""
    n = next(_examples)
    clock.now = BASE + timedelta(days=n)
    clock.ticks = 0
    her = make_user(f"her{n}", notify)
    people = [her, make_user(f"rival{n}", PlayerProfile.Notify.NONE)] if rival else [her]
    game = game_create(creator=her, rules_id=rules_id, players=len(people) + 1, bot_seats=1)
    for person in people[1:]:
        seat_join(game_id=game.pk, user=person)
    # The game's secret seed from the example's, so a failing example plays the same again.
    with mock.patch.object(lobby.secrets, "token_hex", lambda nbytes=16: f"{seed:0{2 * nbytes}x}"):
        game = game_start(game_id=game.pk, by=her)
    seats = Seat.objects.select_related("user")
    opponent = seats.get(game=game, user=people[-1])
    return Table(game, seats.get(game=game, user=her), opponent, clock, random.Random(seed))


@dataclass
class Turn:
    start_seq: int
    start: datetime
    end_seq: int | None = None  # the event that ended it
    end: datetime | None = None
    acted: bool = False


def her_turns(game: Game, position: int) -> list[Turn]:
    """Her turns from the log: one opens at an event after which she must act (not being her
    own move or take-back: the rest of that turn) and closes at her next move, or at an event
    after which she no longer must act."""
    events = list(Event.objects.filter(game=game).order_by("seq"))
    rules = rules_for(game)
    states = states_after_each(rules, load_state(game, 1), events[1:])
    turns: list[Turn] = []
    current: Turn | None = None
    for event, state in zip(events, states, strict=True):
        to_act = position in rules.to_act(state)
        own = event.seat == position and event.kind in (Event.Kind.ACTION, Event.Kind.TAKE_BACK)
        if current is not None and (own or not to_act):
            current.end_seq, current.end, current.acted = event.seq, event.created_at, own
            current = None
        if current is None and to_act and not own:
            current = Turn(event.seq, event.created_at)
            turns.append(current)
    return turns


def check(table: Table, notify: str, grace: int) -> None:
    game, her = table.game, table.her
    assert her.user is not None
    emails = [m for m in mail.outbox if m.to == [her.user.email] and "X-Game-Seq" in m.extra_headers]
    sent_at = {
        int(n.key): n.sent_at
        for n in Notification.objects.filter(game=game, user=her.user, kind=Notification.Kind.TURN)
        if n.sent_at is not None
    }
    seqs = sorted(int(m.extra_headers["X-Game-Seq"]) for m in emails)
    assert seqs == sorted(sent_at), "one Notification row per turn email sent"
    if notify not in (PlayerProfile.Notify.EACH_TURN, PlayerProfile.Notify.WHEN_AWAY):
        assert seqs == [], f"{notify} got turn emails"
        return
    turns = her_turns(game, her.position)
    end_of_time = table.clock.now
    for seq in seqs:
        inside = [t for t in turns if t.start_seq <= seq and (t.end_seq is None or seq < t.end_seq)]
        assert len(inside) == 1, f"an email for seq {seq}, outside her turns {turns}"
    for turn in turns:
        mine = [seq for seq in seqs if turn.start_seq <= seq and (turn.end_seq is None or seq < turn.end_seq)]
        assert len(mine) <= 1, f"two emails for one turn: {mine} ({turn})"
        end = turn.end or end_of_time
        seen = max((p for p in table.polls if p <= end), default=None)
        due = turn.start + timedelta(seconds=grace)
        if notify == PlayerProfile.Notify.WHEN_AWAY and seen is not None:
            due = max(due, seen + timedelta(seconds=PRESENCE))
        bound = due + timedelta(seconds=SWEEP)
        if notify == PlayerProfile.Notify.WHEN_AWAY:
            latest = max(turn.start, seen) if seen is not None else turn.start
            assert bound <= latest + timedelta(seconds=PRESENCE + SWEEP)
        if end > bound:
            assert len(mine) == 1, f"no email for a turn not acted on by {bound}: {turn}, polls {table.polls}"
            when = sent_at[mine[0]]
            assert when is not None and when <= bound, f"email at {when}, after {bound} ({turn})"
        for seq in mine:
            when = sent_at[seq]
            assert when >= turn.start + timedelta(seconds=grace), f"email before the grace: {turn}"
            if notify == PlayerProfile.Notify.WHEN_AWAY:
                # A poll at the very instant of the send may have come just after it.
                last = max((p for p in table.polls if p < when), default=None)
                assert last is None or when >= last + timedelta(seconds=PRESENCE) - presence.WRITE_EVERY, (
                    f"emailed at {when} while at the table (polled {last})"
                )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(
    rules_id=st.sampled_from(["pirates", "libertalia", "captain-lucky"]),
    notify=st.sampled_from([PlayerProfile.Notify.EACH_TURN, PlayerProfile.Notify.WHEN_AWAY,
                            PlayerProfile.Notify.WHEN_AWAY, PlayerProfile.Notify.DAILY_DIGEST]),
    grace=st.sampled_from([0, 10]),
    bot_delay=st.sampled_from([0, 5]),
    present=st.booleans(),
    ops=st.lists(OPS, min_size=1, max_size=20),
    seed=st.integers(0, 2**16),
)
def test_every_turn_is_acted_on_or_emailed_once_in_time(
    clock: Clock, settings: SettingsWrapper, rules_id: str, notify: str, grace: int, bot_delay: int,
    present: bool, ops: list[Op], seed: int,
) -> None:
    settings.PRESENCE_SECONDS = PRESENCE
    settings.SWEEP_INTERVAL_SECONDS = SWEEP
    settings.TURN_EMAIL_GRACE_SECONDS = grace
    settings.BOT_MOVE_DELAY_SECONDS = bot_delay
    mail.outbox.clear()
    table = _table(clock, rules_id, notify, seed, rival=rules_id != "captain-lucky")
    try:
        table.present = present
        if present:
            table.poll()
        for _ in range(50):
            if not outbox.relay():
                break
        for op, n in ops:
            if op == "arrive":
                table.present = True
                table.poll()
            elif op == "leave":
                table.present = False
            elif op == "move":
                if table.present:
                    table.poll()
                table.play(table.her)
            elif op == "opponent":
                table.play(table.opponent)
            for _ in range(n):
                table.tick()
        # She leaves and nobody moves: every open turn of hers comes due.
        table.present = False
        for _ in range((grace + PRESENCE + 3 * SWEEP) // TICK.seconds + 2):
            table.tick()
        check(table, notify, grace)
    finally:
        Game.objects.filter(pk=table.game.pk).update(status=Game.Status.ABORTED)


def test_the_timeline_that_lost_the_email(clock: Clock, settings: SettingsWrapper) -> None:
    """The playtest's case, spelled out: at the table she finishes her turn and closes the
    tab; the bot answers seconds later; her next turn email still goes out, once she has been
    gone long enough."""
    settings.PRESENCE_SECONDS = PRESENCE
    settings.SWEEP_INTERVAL_SECONDS = SWEEP
    settings.BOT_MOVE_DELAY_SECONDS = 2
    mail.outbox.clear()
    table = _table(clock, "captain-lucky", PlayerProfile.Notify.WHEN_AWAY, 1, rival=False)
    assert table.her.user is not None
    game, position = table.game, table.her.position
    try:
        table.present = True
        for _ in range(20):  # the bot's first turn, if it begins
            table.tick()
            game.refresh_from_db()
            if position in game.to_act:
                break
        for _ in range(20):  # her whole turn, at the table
            table.play(table.her)
            if position not in game.to_act:
                break
        assert position not in game.to_act
        table.present = False  # the tab is closed
        for _ in range(20):  # the bot answers, a few seconds later
            table.tick()
            game.refresh_from_db()
            if position in game.to_act:
                break
        latest = Event.objects.filter(game=game).order_by("-seq").first()
        assert latest is not None and latest.kind == Event.Kind.BOT and position in game.to_act
        # Seen less than PRESENCE_SECONDS ago: at the table still, so no email yet.
        assert [m for m in mail.outbox if m.to == [table.her.user.email]] == []
        for _ in range((PRESENCE + 2 * SWEEP) // TICK.seconds):
            table.tick()
        assert [int(m.extra_headers["X-Game-Seq"]) for m in mail.outbox] == [latest.seq]
        check(table, PlayerProfile.Notify.WHEN_AWAY, 0)
    finally:
        Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
