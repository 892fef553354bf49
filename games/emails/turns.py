""""Your turn" emails and reminders, each for one turn (the game's seq)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import connection
from django.utils import timezone

from games import presence, rows
from games.emails.rendering import _game_context, last_own_move, render
from games.emails.sending import Kind, deliver_once
from games.emails.unsubscribe import Notify, preference
from games.models import Game, Seat
from games.services.accounts import mail_address


def _people_to_act(game: Game) -> list[Seat]:
    """The people who must act at the position ``game`` was read at: its ``to_act`` column is
    written in the same UPDATE as its ``seq``, so one row read gives both for the same turn."""
    return rows.people_at(game, game.to_act)


def _game_at(game: Game, seq: int, position: int) -> Callable[[], bool]:
    """A check, for ``deliver_once``: is ``game`` still at ``seq`` with a person at ``position``
    to act? It runs in ``deliver_once``'s short claiming transaction and takes a share lock on
    the game row until that commits, before the mail server is talked to: a move in progress
    is waited for, a move never waits for the mail server; email tasks for the same game do
    not wait for each other. (SQLite: the transaction holds the database's write lock.)"""
    sql = _game_at_sql()

    def check() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(sql, [position, True, False, game.pk])
            row = cursor.fetchone()
        # Seat.must_act is written with the seq it belongs to, and the lock waited for any
        # move in progress: with the seq, it is the turn at ``seq``.
        return row is not None and row[0] == seq and row[1] == Game.Status.ACTIVE and bool(row[2])

    return check


@cache
def _game_at_sql() -> str:
    """The game's seq and status, and whether a person at a position must act, in one
    statement (parameters: position, True, False, game id) that takes a share lock on the
    game row only."""
    q = connection.ops.quote_name
    game, seat = q(Game._meta.db_table), q(Seat._meta.db_table)
    lock = ""
    if connection.features.has_select_for_update:
        lock = " FOR SHARE OF g" if connection.features.has_select_for_update_of else " FOR SHARE"
    person = (
        f"SELECT 1 FROM {seat} s WHERE s.game_id = g.id AND s.position = %s AND s.must_act = %s"
        " AND s.user_id IS NOT NULL AND s.replaced_by_bot = %s"
    )
    return f"SELECT g.seq, g.status, EXISTS({person}) FROM {game} g WHERE g.id = %s{lock}"


def send_turn_emails(*, game_id: int, seq: int, held: list[int] | None = None) -> int:
    """"Your turn" to each person who must act in ``game_id`` at ``seq`` and wants it now
    (games/presence.py has the rule). Returns emails sent.

    Nothing when the game has moved past ``seq``, now or by the time an email would go out.
    A seat is emailed once per turn: not when it made the event at ``seq`` itself (it is still
    in the middle of its turn), and not when it was already emailed since its last move
    (another seat acted in a simultaneous phase).
    A move the system made for the seat (a forced pass, a timeout) does not count as the
    person being there: a question asked of them right after it is emailed.
    Someone who chose "only when away" and is at the table is not emailed now: ``notify_turn``
    keeps the turn's row for when they are due (presence defers, never cancels).

    ``held``, when given, gets the position of each person who wants a turn email per turn
    and was not sent one now for any other reason than having had it or being mid-turn: only
    they can still be owed this turn's email when the send is over (``notify_turn`` asks
    ``presence.turn_emails_wait`` only then).
    """
    game = rows.game_row(game_id)
    if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
        return 0
    latest = next(iter(rows.latest_events(game.pk, seq - 1, seq, 1)), None)
    now = timezone.now()
    sent = 0
    for seat in _people_to_act(game):
        user = seat.user
        assert user is not None
        wants = preference(user)
        if not mail_address(user) or not presence.wants_turn_email(wants, seat, now):
            if held is not None and wants in presence.PER_TURN and mail_address(user):
                held.append(seat.position)  # at the table: their email waits
            continue
        # Their own move, or their own take-back of one: still mid-turn.
        if presence.mid_turn(latest, seat.position):
            continue
        since = last_own_move(game, seat.position, upto=seq)
        # Only emails that went out count: one for a turn that ended before it was sent was
        # dropped and does not stand for this turn.
        if presence.emailed_this_turn(seat, game, since, seq - 1):
            continue

        def build(user: User = user, seat: Seat = seat, since: int = since) -> EmailMultiAlternatives:
            from games.emails.replies import reply_context, with_reply_to

            context = _game_context(user, game, seat.position, seq, after=since)
            # The numbered moves and the signed address a reply with a number goes to.
            context.update(reply_context(game, seat.position, seq))
            message = render("turn", to=mail_address(user), subject=f"Your turn in {game.display_name}",
                             context=context, user=user)
            # Which turn this email is for, for mail filters and the fault-injection suite.
            message.extra_headers.update({"X-Game-Id": str(game.pk), "X-Game-Seq": str(seq)})
            return with_reply_to(message, context)

        delivered = deliver_once(user=user, game=game, kind=Kind.TURN, key=str(seq), build=build,
                                 still_due=_game_at(game, seq, seat.position))
        if not delivered and held is not None:
            held.append(seat.position)
        sent += delivered
    return sent


def send_reminders(*, game_id: int, seq: int) -> int:
    """A reminder to each person who still must act at ``seq`` and wants per-turn emails."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
        return 0
    sent = 0
    for seat in _people_to_act(game):
        user = seat.user
        assert user is not None
        # A reminder before the deadline goes out also to a player at the table (presence
        # holds back only the turn email itself).
        if not mail_address(user) or preference(user) not in (Notify.EACH_TURN, Notify.WHEN_AWAY):
            continue

        def build(user: User = user, seat: Seat = seat) -> EmailMultiAlternatives:
            context = _game_context(user, game, seat.position, seq)
            return render("reminder", to=mail_address(user),
                          subject=f"Reminder: your move in {game.display_name}", context=context, user=user)

        sent += deliver_once(user=user, game=game, kind=Kind.REMINDER, key=str(seq), build=build,
                             still_due=_game_at(game, seq, seat.position))
    return sent
