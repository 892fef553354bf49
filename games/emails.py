"""The emails the service sends: who gets which, what they say, and sending each exactly once.

Every email is rendered from two templates, ``templates/emails/<kind>.txt`` and ``.html``, and
carries ``List-Unsubscribe`` / ``List-Unsubscribe-Post`` headers plus a one-click unsubscribe
link in the body (except an invitation to an address without an account: there is nothing to
unsubscribe from yet).

Who gets what (``PlayerProfile.notify``; no profile means ``each_turn``):

- ``each_turn``: "your turn" and reminder emails, plus the game emails below.
- ``daily_digest``: no per-turn emails; one digest a day listing the games waiting for them,
  plus the game emails below.
- ``none``: no turn, reminder, digest or game emails. Invitations still go: they are
  addressed to an email address, not to a player's preferences.

Game emails (a timeout, a seat handed to a bot, game over) go to every person seated in the
game whose preference is not ``none``.

Sending is idempotent: a ``Notification`` row keyed (user, game, kind, key) is created before
the email goes out and ``sent_at`` is set once the mail server took it. The row is locked
while sending, so a duplicated or retried task finds it and sends nothing twice.

Turn emails and reminders are for one turn, the game's seq: each goes only to a seat to act
at that seq, and only while the game is still there, checked under a share lock on the game
row just before the mail server is handed the email (a move waits for that send to finish).
An email for a turn that has passed is dropped, so the player's next turn email is not held
back by it.
"""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import connection, transaction
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from games import eventlog, presence
from games.eventlog import Viewer
from games.links import login_url
from games.models import Event, Game, Invitation, Notification, PlayerProfile, Seat, person_name
from games.services.chat import chat_lines

log = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "games.emails.unsubscribe"
# Errors after which sending is worth trying again later (the mail server is down or refused).
SEND_ERRORS: tuple[type[Exception], ...] = (smtplib.SMTPException, OSError)
MAX_SENTENCES = 25
# Engine kinds: an event by a seat in these is that seat's own move (or one made for it).
# A take-back is the player's own act too: it is their turn again, mid-turn, not news to them.
OWN_MOVE_KINDS = (
    Event.Kind.ACTION, Event.Kind.AUTO_PASS, Event.Kind.BOT, Event.Kind.TIMEOUT, Event.Kind.TAKE_BACK
)
Notify = PlayerProfile.Notify
Kind = Notification.Kind


# ---------------------------------------------------------------------------------------------
# Unsubscribing


def unsubscribe_token(user: User) -> str:
    """A token that turns off ``user``'s game emails. It does not expire: old emails keep working."""
    return signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT)


def user_for_unsubscribe_token(token: str) -> User | None:
    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("u"), int):
        return None
    return get_user_model().objects.filter(pk=data["u"]).first()


def unsubscribe_url(user: User) -> str:
    return f"{settings.SITE_URL}{reverse('unsubscribe', args=[unsubscribe_token(user)])}"


def preference(user: User) -> str:
    profile = PlayerProfile.objects.filter(user_id=user.pk).only("notify").first()
    return profile.notify if profile is not None else PlayerProfile._meta.get_field("notify").default


# ---------------------------------------------------------------------------------------------
# Rendering


def _local(user: User, moment: datetime | None) -> str:
    if moment is None:
        return ""
    profile = PlayerProfile.objects.filter(user_id=user.pk).only("timezone").first()
    try:
        zone = ZoneInfo(profile.timezone if profile is not None else "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return moment.astimezone(zone).strftime("%a %d %b %Y, %H:%M %Z")


def render(
    template: str, *, to: str, subject: str, context: dict[str, Any], user: User | None
) -> EmailMultiAlternatives:
    """The email ``emails/<template>.txt`` + ``.html`` with the unsubscribe headers for ``user``."""
    context = {"site_url": settings.SITE_URL, "user": user, "name": person_name(user), **context}
    headers: dict[str, str] = {}
    if user is not None:
        link = unsubscribe_url(user)
        context["unsubscribe_url"] = link
        headers = {"List-Unsubscribe": f"<{link}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
    text = render_to_string(f"emails/{template}.txt", context)
    html = render_to_string(f"emails/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=" ".join(subject.split()), body=text, from_email=settings.DEFAULT_FROM_EMAIL, to=[to],
        headers=headers,
    )
    message.attach_alternative(html, "text/html")
    return message


def game_url(user: User, game: Game) -> str:
    return login_url(user, f"/games/{game.pk}/")


def replay_url(user: User, game: Game) -> str:
    return login_url(user, f"/games/{game.pk}/replay/")


def event_text(event: Event, game: Game, position: int | None) -> str:
    """The event's sentence as the seat at ``position`` (None: a spectator) may read it."""
    return eventlog.text_for(event, Viewer(seat=position, game_over=game.is_over))


def last_own_move(game: Game, position: int, upto: int | None = None) -> int:
    """The seq of ``position``'s latest move in ``game`` at or before ``upto`` (0 before its first)."""
    moves = Event.objects.filter(game=game, seat=position, kind__in=OWN_MOVE_KINDS)
    if upto is not None:
        moves = moves.filter(seq__lte=upto)
    return int(moves.aggregate(last=Max("seq"))["last"] or 0)


@dataclass(frozen=True)
class Summary:
    sentences: list[str]
    earlier: int  # how many older sentences were left out


def summary(game: Game, *, after: int, upto: int, position: int | None) -> Summary:
    """The log sentences of events ``after`` < seq <= ``upto``, the latest ``MAX_SENTENCES``,
    as the seat at ``position`` may read them."""
    events = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto)
    total = events.count()
    latest = list(events.order_by("-seq")[:MAX_SENTENCES])
    sentences = [text for text in (event_text(e, game, position) for e in reversed(latest)) if text]
    return Summary(sentences, max(total - len(latest), 0))


def _game_context(
    user: User, game: Game, position: int | None, upto: int, after: int | None = None
) -> dict[str, Any]:
    """What every game email shows; the summary covers ``after`` < seq <= ``upto`` (by default
    from the seat's last move)."""
    if after is None:
        after = last_own_move(game, position) if position is not None else max(upto - MAX_SENTENCES, 0)
    return {
        "game": game,
        "game_name": game.display_name,
        "game_url": game_url(user, game),
        "summary": summary(game, after=after, upto=upto, position=position),
        "deadline": _local(user, game.deadline),
        "chat": chat_lines(game, limit=MAX_SENTENCES, since_seq=after),
    }


# ---------------------------------------------------------------------------------------------
# Sending once


def deliver_once(
    *,
    user: User,
    game: Game | None,
    kind: str,
    key: str,
    build: Callable[[], EmailMultiAlternatives],
    still_due: Callable[[], bool] | None = None,
) -> bool:
    """Send the email ``build`` makes unless this (user, game, kind, key) was already sent.

    Returns whether it was sent now. A sending error is raised after the attempt is counted;
    the caller retries later and the row makes sure a success is never repeated.
    ``still_due`` runs in the sending transaction right before the send (after ``build``):
    when it answers False nothing is sent, and a row never tried is removed again.
    """
    if game is None:
        # A unique key with a NULL game does not stop two concurrent inserts: serialise them
        # on the user's profile row instead.
        with transaction.atomic():
            PlayerProfile.objects.select_for_update().filter(user_id=user.pk).first()
            note, _ = Notification.objects.get_or_create(user_id=user.pk, game=None, kind=kind, key=key)
    else:
        note, _ = Notification.objects.get_or_create(user_id=user.pk, game=game, kind=kind, key=key)
    if note.sent_at is not None:
        return False
    error: Exception | None = None
    message = build()
    with transaction.atomic():
        # The lock is held while sending: a duplicate task waits here, then sees sent_at.
        locked = Notification.objects.select_for_update().get(pk=note.pk)
        if locked.sent_at is not None:
            return False
        if still_due is not None and not still_due():
            if locked.attempts == 0:
                locked.delete()
            return False
        locked.attempts += 1
        try:
            message.send()
            locked.sent_at = timezone.now()
        except SEND_ERRORS as exc:
            error = exc
        locked.save(update_fields=["attempts", "sent_at"])
    if error is not None:
        log.warning("sending %s to user %s failed (attempt %s): %s", kind, user.pk, locked.attempts, error)
        raise error
    return True


# ---------------------------------------------------------------------------------------------
# Turn emails and reminders


def _people_to_act(game: Game) -> list[Seat]:
    """The people who must act at the position ``game`` was read at: its ``to_act`` column is
    written in the same UPDATE as its ``seq``, so one row read gives both for the same turn."""
    return list(
        Seat.objects.filter(game=game, position__in=game.to_act, user__isnull=False, replaced_by_bot=False)
        .select_related("user")
        .order_by("position")
    )


def _game_at(game: Game, seq: int, position: int) -> Callable[[], bool]:
    """A check, for ``deliver_once``: is ``game`` still at ``seq`` with a person at ``position``
    to act? It takes a share lock on the game row, held until the send is over: a move in the
    game (which locks the row for update) waits, so the turn cannot end mid-send; email tasks
    for the same game do not wait for each other. (SQLite: the transaction holds the database's
    write lock already.)"""
    table = connection.ops.quote_name(Game._meta.db_table)
    lock = " FOR SHARE" if connection.features.has_select_for_update else ""
    sql = f"SELECT seq, status FROM {table} WHERE id = %s{lock}"

    def check() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(sql, [game.pk])
            row = cursor.fetchone()
        if row is None or row[0] != seq or row[1] != Game.Status.ACTIVE:
            return False
        # Seat.must_act is written with the seq it belongs to, and the lock above waited for
        # any move in progress: it is the turn at ``seq``.
        return Seat.objects.filter(
            game_id=game.pk, position=position, must_act=True, user__isnull=False, replaced_by_bot=False
        ).exists()

    return check


def send_turn_emails(*, game_id: int, seq: int) -> int:
    """"Your turn" to each person who must act in ``game_id`` at ``seq``. Returns emails sent.

    Nothing when the game has moved past ``seq``, now or by the time an email would go out.
    A seat is emailed once per turn: not when it made the event at ``seq`` itself (it is still
    in the middle of its turn), and not when it was already emailed since its last move
    (another seat acted in a simultaneous phase).
    A move the system made for the seat (a forced pass, a timeout) does not count as the
    person being there: a question asked of them right after it is emailed.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.ACTIVE or game.seq != seq:
        return 0
    latest = Event.objects.filter(game=game, seq=seq).only("seat", "kind").first()
    sent = 0
    for seat in _people_to_act(game):
        user = seat.user
        assert user is not None
        if not user.email or not presence.wants_turn_email(preference(user), seat):
            continue
        # Their own move, or their own take-back of one (issue 17): still mid-turn.
        if latest is not None and latest.seat == seat.position and latest.kind in (
            Event.Kind.ACTION, Event.Kind.TAKE_BACK
        ):
            continue
        since = last_own_move(game, seat.position, upto=seq)
        # Only emails that went out count: one for a turn that ended before it was sent was
        # dropped and does not stand for this turn.
        earlier = Notification.objects.filter(
            user=user, game=game, kind=Kind.TURN, sent_at__isnull=False
        ).values_list("key", flat=True)
        if any(key.isdigit() and since < int(key) < seq for key in earlier):
            continue

        def build(user: User = user, seat: Seat = seat, since: int = since) -> EmailMultiAlternatives:
            from games.inbound.moves import reply_context, with_reply_to

            context = _game_context(user, game, seat.position, seq, after=since)
            # The numbered moves and the signed address a reply with a number goes to.
            context.update(reply_context(game, seat.position, seq))
            message = render("turn", to=user.email, subject=f"Your turn in {game.display_name}",
                             context=context, user=user)
            # Which turn this email is for, for mail filters and the fault-injection suite.
            message.extra_headers.update({"X-Game-Id": str(game.pk), "X-Game-Seq": str(seq)})
            return with_reply_to(message, context)

        sent += deliver_once(user=user, game=game, kind=Kind.TURN, key=str(seq), build=build,
                             still_due=_game_at(game, seq, seat.position))
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
        if not user.email or not presence.wants_turn_email(preference(user), seat):
            continue

        def build(user: User = user, seat: Seat = seat) -> EmailMultiAlternatives:
            context = _game_context(user, game, seat.position, seq)
            return render("reminder", to=user.email, subject=f"Reminder: your move in {game.display_name}",
                          context=context, user=user)

        sent += deliver_once(user=user, game=game, kind=Kind.REMINDER, key=str(seq), build=build,
                             still_due=_game_at(game, seq, seat.position))
    return sent


# ---------------------------------------------------------------------------------------------
# Game emails: a timeout, a seat handed to a bot, game over


def _seated_people(game: Game) -> list[Seat]:
    seats = Seat.objects.filter(game=game, user__isnull=False).select_related("user")
    return list(seats.order_by("position"))


def _send_to_everyone(
    game: Game, kind: str, key: str, make: Callable[[User, Seat], EmailMultiAlternatives]
) -> int:
    sent = 0
    for seat in _seated_people(game):
        user = seat.user
        if user is None or not user.email or preference(user) == Notify.NONE:
            continue

        def build(user: User = user, seat: Seat = seat) -> EmailMultiAlternatives:
            return make(user, seat)

        sent += deliver_once(user=user, game=game, kind=kind, key=key, build=build)
    return sent


def _event_and_seat(game_id: int, seq: int, kind: str) -> tuple[Event, Seat | None] | None:
    """The event of ``kind`` at ``seq`` and the seat it is about (None when there is no such event)."""
    event = Event.objects.filter(game_id=game_id, seq=seq, kind=kind).select_related("game").first()
    if event is None or event.seat is None:
        return None
    seat = Seat.objects.filter(game=event.game, position=event.seat).select_related("user").first()
    return event, seat


def send_timeout_emails(*, game_id: int, seq: int) -> int:
    """Everyone in the game hears that the seat of event ``seq`` (a timeout) ran out of time."""
    found = _event_and_seat(game_id, seq, Event.Kind.TIMEOUT)
    if found is None:
        return 0
    event, late = found
    game = event.game
    late_label = late.label if late is not None else f"Seat {event.seat}"
    # A turn of several actions timed out as a whole: the timeout's move and the bot's moves
    # that finished the turn for the same seat, by the same actor.
    run = [event]
    for later in Event.objects.filter(game=game, seq__gt=seq).order_by("seq")[:MAX_SENTENCES]:
        if later.kind != Event.Kind.BOT or later.seat != event.seat or later.actor != event.actor:
            break
        run.append(later)

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "late_player": late_label,
            "is_you": seat.position == event.seat,
            "move": " ".join(event_text(e, game, seat.position) for e in run),
        }
        who = "you" if context["is_you"] else late_label
        subject = f"Timeout in {game.display_name}: {who} ran out of time"
        return render("timeout", to=user.email, subject=subject, context=context, user=user)

    return _send_to_everyone(game, Kind.TIMEOUT, str(seq), make)


def send_seat_to_bot_emails(*, game_id: int, seq: int) -> int:
    """Everyone in the game hears that the seat of event ``seq`` is now played by a bot."""
    found = _event_and_seat(game_id, seq, Event.Kind.SEAT_TO_BOT)
    if found is None:
        return 0
    event, seat_row = found
    game = event.game
    owner = seat_row.user if seat_row is not None else None
    person = person_name(owner) if owner is not None else "A player"

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "person": person,
            "is_you": seat.position == event.seat,
            "timeouts": settings.TIMEOUTS_BEFORE_BOT,
        }
        whose = "your" if context["is_you"] else f"{person}'s"
        subject = f"A bot takes over {whose} seat in {game.display_name}"
        return render("seat_to_bot", to=user.email, subject=subject, context=context, user=user)

    return _send_to_everyone(game, Kind.SEAT_TO_BOT, str(seq), make)


def final_scores(game: Game) -> list[dict[str, Any]]:
    result = game.result or {}
    scores = result.get("scores") or []
    winners = set(result.get("winners") or [])
    seats = {seat.position: seat for seat in Seat.objects.filter(game=game).select_related("user")}
    rows = []
    for position, score in enumerate(scores):
        seat = seats.get(position)
        rows.append({
            "position": position,
            "player": seat.label if seat is not None else f"Seat {position}",
            "colour": seat.colour if seat is not None else "",
            "score": score,
            "winner": position in winners,
        })
    return sorted(rows, key=lambda row: (-row["score"], row["position"]))


def send_game_over_emails(*, game_id: int) -> int:
    """The final scores and a replay link to everyone in a finished game."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return 0
    scores = final_scores(game)
    winners = [row["player"] for row in scores if row["winner"]]

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "scores": scores,
            "winners": winners,
            "replay_url": replay_url(user, game),
        }
        return render("game_over", to=user.email, subject=f"Game over: {game.display_name}",
                      context=context, user=user)

    return _send_to_everyone(game, Kind.GAME_OVER, str(game.seq), make)


# ---------------------------------------------------------------------------------------------
# The daily digest


def digest_key(day: date) -> str:
    return day.strftime("%Y%m%d")


def digest_recipients() -> list[int]:
    """Ids of the people who chose the daily digest and have a game waiting for them."""
    return list(
        PlayerProfile.objects.filter(
            notify=Notify.DAILY_DIGEST,
            user__seats__must_act=True,
            user__seats__replaced_by_bot=False,
            user__seats__game__status=Game.Status.ACTIVE,
        )
        .values_list("user_id", flat=True)
        .distinct()
        .order_by("user_id")
    )


def send_digest(*, user_id: int, day: date) -> bool:
    """One email listing the games waiting for ``user_id``, once per day; nothing if none wait."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or preference(user) != Notify.DAILY_DIGEST:
        return False
    seats = list(
        Seat.objects.filter(user=user, must_act=True, replaced_by_bot=False, game__status=Game.Status.ACTIVE)
        .select_related("game")
        .order_by("game__deadline", "game_id")
    )
    if not seats:
        return False

    def build() -> EmailMultiAlternatives:
        games = [_game_context(user, seat.game, seat.position, seat.game.seq) for seat in seats]
        count = len(games)
        subject = f"Pirates by Mail: {count} game{'s' if count != 1 else ''} waiting for your move"
        context = {"games": games, "day": day}
        return render("digest", to=user.email, subject=subject, context=context, user=user)

    return deliver_once(user=user, game=None, kind=Kind.DIGEST, key=digest_key(day), build=build)


# ---------------------------------------------------------------------------------------------
# Invitations


def invitation_url(invitation: Invitation) -> str:
    return f"{settings.SITE_URL}/invite/{invitation.token}/"


def send_invitation(invitation: Invitation) -> None:
    """Queue the invitation email in the outbox; it goes out once the current transaction commits."""
    from games import side_effects

    side_effects.after_invitations([invitation])


def send_invitation_now(*, invitation_id: int) -> bool:
    """The invitation email with its join link. Once only when the address belongs to a player."""
    invitation = Invitation.objects.filter(pk=invitation_id).select_related("game", "invited_by").first()
    if invitation is None or invitation.accepted_at is not None:
        return False
    game = invitation.game
    inviter = person_name(invitation.invited_by)
    accounts = get_user_model().objects.filter(email__iexact=invitation.email, is_active=True)
    user = accounts.order_by("pk").first()

    def build() -> EmailMultiAlternatives:
        from games.inbound.addresses import invitation_address, replies_enabled
        from games.inbound.moves import with_reply_to

        context = {
            "game": game,
            "game_name": game.display_name,
            "inviter": inviter,
            "join_url": invitation_url(invitation),
            "rules_id": game.rules_id,
            "players": game.players,
            "move_hours": int(game.move_time.total_seconds() // 3600),
            # Replying "join" takes the seat (games/inbound/handle.py).
            "reply_address": invitation_address(invitation.pk) if replies_enabled() else "",
        }
        subject = f"{inviter} invites you to {game.display_name}"
        message = render("invitation", to=invitation.email, subject=subject, context=context, user=user)
        return with_reply_to(message, context)

    if user is None:
        try:
            build().send()
        except SEND_ERRORS as exc:
            log.warning("sending invitation %s failed: %s", invitation_id, exc)
            raise
        return True
    return deliver_once(user=user, game=game, kind=Kind.INVITATION, key=f"i{invitation.pk}", build=build)
