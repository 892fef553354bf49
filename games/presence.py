"""Who is at the table, and when a person's turn email is due.

The table's live polling records when each player last had their game open
(``Seat.last_seen_at``, written at most once per ``WRITE_EVERY``).

The rule (the design's "presence defers a turn email; it never cancels one"): for every turn
of a person, either they act on it, or exactly one notification goes out, by their preference
(``PlayerProfile.notify``):

- ``each_turn``: a turn email, due the take-back grace (``TURN_EMAIL_GRACE_SECONDS``) after
  the turn came;
- ``when_away`` (the default): a turn email, due at the later of that and "last seen at the
  table" + ``PRESENCE_SECONDS``: a person at the table is not emailed while there, and is
  emailed once gone, however soon after the turn came they left;
- ``daily_digest``: no turn email (the daily digest lists the game); ``none``: nothing.

``turn_email_due_at`` says when, and the email goes no later than one
``SWEEP_INTERVAL_SECONDS`` (plus the relay's few seconds) after that: with a grace no longer
than ``PRESENCE_SECONDS``, no later than ``PRESENCE_SECONDS`` + ``SWEEP_INTERVAL_SECONDS``
after the later of "the turn came" and "last seen at the table".

A turn of a seat runs from the first event after its own last move after which it must act
(``turn_came_at``: that event's time, not the game's ``updated_at``, which moves on whenever
another seat acts in a simultaneous phase) until its next move. A seat that must act again
right after its own move or take-back is in the middle of a turn it is acting on: nothing is
owed for that (``mid_turn``). One email per turn: an email sent for any position of the turn
stands for all of it (``emailed_this_turn``).

How the email goes out:

1. Every position with a person to act writes a TURN outbox row, due after the grace. Its task
   (``games.tasks.notify_turn`` -> ``games.emails.send_turn_emails``) emails each person to act
   who wants it now (``wants_turn_email``); for those still at the table the task re-arms its
   row (``games.outbox.defer``) for when they are due (``turn_emails_wait``) instead of
   marking it done.
2. Beat's sweep (``overdue_turn_emails``, every ``SWEEP_INTERVAL_SECONDS``) is the safety net:
   a person to act whose turn email is due, not sent and not on its way (the position's row is
   done, missing, or due later than they are: in a simultaneous phase each move writes a row
   of its own, due a grace after that move) gets the row re-armed, due now.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from games import outbox, rows
from games.models import Event, Game, Notification, Outbox, PlayerProfile, Seat
from games.read.state import load_state, rules_for, states_after_each
from games.services.accounts import mail_address

Notify = PlayerProfile.Notify
# A poll every few seconds need not write every time: once per this many seconds is enough.
WRITE_EVERY = timedelta(seconds=20)
# Engine kinds: an event by a seat in these is that seat's own move (or one made for it).
# A take-back is the player's own act too: it is their turn again, mid-turn, not news to them.
OWN_MOVE_KINDS = (
    Event.Kind.ACTION, Event.Kind.AUTO_PASS, Event.Kind.BOT, Event.Kind.TIMEOUT, Event.Kind.TAKE_BACK
)
# The events by which a seat goes on with its own turn (not news to it): see ``mid_turn``.
MID_TURN_KINDS = (Event.Kind.ACTION, Event.Kind.TAKE_BACK)
PER_TURN = PlayerProfile.PER_TURN
_LONG_AGO = datetime(2000, 1, 1, tzinfo=dt.UTC)
# Who has no profile row has the default a new profile gets.
_DEFAULT_NOTIFY = str(PlayerProfile._meta.get_field("notify").default)


def seat_seen(seat: Seat | None, now: datetime | None = None) -> None:
    """Record that ``seat``'s player has the table open now (at most one write per WRITE_EVERY)."""
    if seat is None or seat.user_id is None:
        return
    now = timezone.now() if now is None else now
    if seat.last_seen_at is not None and now - seat.last_seen_at < WRITE_EVERY:
        return
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=now)
    seat.last_seen_at = now


def at_table(seat: Seat, now: datetime | None = None) -> bool:
    now = timezone.now() if now is None else now
    window = timedelta(seconds=settings.PRESENCE_SECONDS)
    return seat.last_seen_at is not None and now - seat.last_seen_at < window


def wants_turn_email(preference: str, seat: Seat, now: datetime | None = None) -> bool:
    """Whether the turn email of a person with this preference goes out now, once the grace
    after the turn has passed (the TURN row's due time): at once for ``each_turn``, for
    ``when_away`` only if they are away from the table (else it waits: ``turn_emails_wait``)."""
    if preference == Notify.EACH_TURN:
        return True
    if preference == Notify.WHEN_AWAY:
        return not at_table(seat, now)
    return False


def turn_email_due_at(seat: Seat, preference: str, turn_came_at: datetime) -> datetime | None:
    """When the turn email for the turn of ``seat`` that came at ``turn_came_at`` is due;
    None when this preference gets no turn email (the digest covers it, or nothing)."""
    if preference not in PER_TURN:
        return None
    due = turn_came_at + timedelta(seconds=settings.TURN_EMAIL_GRACE_SECONDS)
    if preference == Notify.WHEN_AWAY and seat.last_seen_at is not None:
        due = max(due, seat.last_seen_at + timedelta(seconds=settings.PRESENCE_SECONDS))
    return due


def last_own_move(game: Game, position: int, upto: int | None = None) -> int:
    """The seq of ``position``'s latest move in ``game`` at or before ``upto`` (0 before its first)."""
    return rows.last_move_seq(game.pk, position, OWN_MOVE_KINDS, upto)


def mid_turn(latest: Event | None, position: int) -> bool:
    """The seat made the latest event itself (a move or a take-back): if it must act again,
    that is the rest of the turn it is acting on, not a new one."""
    return latest is not None and latest.seat == position and latest.kind in MID_TURN_KINDS


def emailed_this_turn(seat: Seat, game: Game, since: int, seq: int) -> bool:
    """A turn email went out to ``seat``'s person for a position after their last move
    (``since``) up to ``seq``. Only emails that went out count."""
    if seat.user_id is None:
        return False
    keys = rows.sent_keys(seat.user_id, game.pk, Notification.Kind.TURN)
    return any(key.isdigit() and since < int(key) <= seq for key in keys)


def turn_came_at(game: Game, position: int, since: int, seq: int) -> datetime:
    """When the turn of the seat at ``position`` (to act at ``seq``, its last move at
    ``since``) came: the time of the first event from then after which it must act. A move the
    system made for it (a forced pass, a timeout, a bot's move) counts as such an event; the
    seat's own move or take-back does not (``mid_turn``)."""
    events = list(Event.objects.filter(game=game, seq__gte=max(since, 1), seq__lte=seq).order_by("seq"))
    if events and events[0].seq == since and events[0].kind in MID_TURN_KINDS:
        events = events[1:]
    if not events:
        return Event.objects.filter(game=game, seq=seq).values_list("created_at", flat=True).get()
    rules = rules_for(game)
    first = events[0].seq
    try:
        if first == 1:
            # The state after the game started, then after each later event.
            states = states_after_each(rules, load_state(game, 1), events[1:])
        else:
            states = states_after_each(rules, load_state(game, first - 1), events)[1:]
    except ValueError:
        # A take-back of a move before ``first``: each state on its own (load_state handles it).
        states = [load_state(game, event.seq) for event in events]
    for event, state in zip(events, states, strict=True):
        if position in rules.to_act(state):
            return event.created_at
    return events[-1].created_at


@dataclass(frozen=True)
class Owed:
    """A person to act at ``seq`` who is owed a turn email for this turn, due at ``due``."""

    seat: Seat
    preference: str
    since: int
    due: datetime


# A seat's person with their profile and verified address, read with the seat: an email
# task asks for both several times (preference, address, time zone), each a query otherwise.
SEAT_PEOPLE = ("user__profile", "user__verified_address")


def _preferences(user_ids: Iterable[int]) -> dict[int, str]:
    ids = list(user_ids)
    found = dict(PlayerProfile.objects.filter(user_id__in=ids).values_list("user_id", "notify"))
    return {user_id: found.get(user_id, _DEFAULT_NOTIFY) for user_id in ids}


def owed(
    game: Game, seats: list[Seat], now: datetime, preferences: dict[int, str] | None = None
) -> list[Owed]:
    """Of ``seats`` (people to act at ``game.seq``), those owed a turn email for their
    current turn that has not gone out, with when it is due."""
    seq = game.seq
    latest = Event.objects.filter(game=game, seq=seq).only("seat", "kind").first()
    if preferences is None:
        preferences = _preferences(seat.user_id for seat in seats if seat.user_id is not None)
    found: list[Owed] = []
    for seat in seats:
        if seat.user_id is None or seat.replaced_by_bot or seat.position not in game.to_act:
            continue
        preference = preferences[seat.user_id]
        if preference not in PER_TURN or not mail_address(seat.user) or mid_turn(latest, seat.position):
            continue
        since = last_own_move(game, seat.position, upto=seq)
        if emailed_this_turn(seat, game, since, seq):
            continue
        # At the table: due no earlier than when they count as away, which is later than now.
        if preference == Notify.WHEN_AWAY and at_table(seat, now):
            assert seat.last_seen_at is not None
            found.append(Owed(seat, preference, since,
                              seat.last_seen_at + timedelta(seconds=settings.PRESENCE_SECONDS)))
            continue
        due = turn_email_due_at(seat, preference, turn_came_at(game, seat.position, since, seq))
        if due is not None:
            found.append(Owed(seat, preference, since, due))
    return found


def turn_emails_wait(game_id: int, seq: int, now: datetime | None = None) -> datetime | None:
    """After the turn emails of (``game_id``, ``seq``) went to everyone who wanted one now:
    when the TURN row is due again for the people still owed one (at the table now, or gone
    since the send looked), or None when nobody is (the game moved on, or all were emailed)."""
    now = timezone.now() if now is None else now
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
        return None
    seats = list(
        Seat.objects.filter(game=game, position__in=game.to_act, user__isnull=False, replaced_by_bot=False)
        .select_related(*SEAT_PEOPLE)
    )
    dues = [item.due for item in owed(game, seats, now)]
    return max(min(dues), now) if dues else None


def _candidates(now: datetime) -> list[Seat]:
    """People to act in running games who may be owed a turn email that is not on its way:
    per-turn preference, not in the middle of their turn, no turn email since their last
    move, and the position's TURN row neither given up, published (its task is running or
    retrying) nor due by now (the relay publishes it within seconds). Seats to act by index
    ``seat_to_act``; each test after that is a lookup by a unique index."""
    own_moves = Event.objects.filter(
        game_id=OuterRef("game_id"), seat=OuterRef("position"), kind__in=OWN_MOVE_KINDS
    ).order_by("-seq")
    on_its_way = Outbox.objects.filter(
        game_id=OuterRef("game_id"), kind=Outbox.Kind.TURN, key=OuterRef("game__seq")
    ).filter(
        Q(status=Outbox.Status.FAILED)
        | (Q(status=Outbox.Status.PENDING) & (Q(attempts__gt=0) | Q(due_at__lte=now)))
    )
    mine_latest = Event.objects.filter(
        game_id=OuterRef("game_id"), seq=OuterRef("game__seq"), seat=OuterRef("position"),
        kind__in=MID_TURN_KINDS,
    )
    emailed = Notification.objects.filter(
        user_id=OuterRef("user_id"), game_id=OuterRef("game_id"), kind=Notification.Kind.TURN,
        sent_at__isnull=False, sent_at__gte=OuterRef("own_move_at"),
    )
    wants = PlayerProfile.emailed_per_turn("user__profile")
    seats = (
        Seat.objects.filter(
            must_act=True, user__isnull=False, replaced_by_bot=False, game__status=Game.Status.ACTIVE
        )
        .filter(wants)
        .exclude(user__email="")
        .filter(~Exists(on_its_way), ~Exists(mine_latest))
        .annotate(own_move_at=Coalesce(Subquery(own_moves.values("created_at")[:1]), Value(_LONG_AGO)))
        .filter(~Exists(emailed))
        .annotate(notify=Coalesce("user__profile__notify", Value(_DEFAULT_NOTIFY)))
        .select_related("user", "game")
        .order_by("game_id", "position")
    )
    return list(seats[: settings.SWEEP_BATCH_SIZE])


def overdue_turn_emails(now: datetime | None = None) -> list[tuple[int, int]]:
    """(game id, seq) of running games where a person to act is owed a turn email that is
    due by ``now`` and not on its way (see ``_candidates``)."""
    now = timezone.now() if now is None else now
    due: set[tuple[int, int]] = set()
    for seat in _candidates(now):
        preference: str = seat.notify  # type: ignore[attr-defined]
        # At the table (when away): due later, when they have gone. Saves the replay below.
        if preference == Notify.WHEN_AWAY and at_table(seat, now):
            continue
        assert seat.user_id is not None
        if any(item.due <= now for item in owed(seat.game, [seat], now, {seat.user_id: preference})):
            due.add((seat.game_id, seat.game.seq))
    return sorted(due)


def rearm_overdue(now: datetime | None = None) -> list[tuple[int, int]]:
    """Beat's safety net: a TURN outbox row, due now, for each position ``overdue_turn_emails``
    finds, then a relay to publish them. Returns those (game id, seq)."""
    now = timezone.now() if now is None else now
    found = overdue_turn_emails(now)
    if found:
        with transaction.atomic():
            for game_id, seq in found:
                outbox.defer(game_id, seq, now)
            transaction.on_commit(outbox.publish_relay)
    return found
