"""What a committed change owes: bot moves and emails, written as outbox rows in its transaction.

Every function here runs inside the change's transaction (the caller holds the game lock) and
writes the rows with ``games.outbox.add``: a rolled-back append owes nothing, and a committed
one owes its side effects whatever the broker does at that moment. The relay turns the rows
into tasks (see ``games.outbox``). Tasks take ids and a seq and do nothing when the game has
moved past that seq, so each is safe to run twice.
"""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from django.conf import settings
from django.db import transaction

from games import outbox
from games.models import Event, Game, Invitation, PlayerProfile, Seat, Webhook

Kind = outbox.Kind
WEBHOOK_KIND = str(Kind.WEBHOOK)


def after_append(game: Game, seats: list[Seat], hooks: tuple[bool, int | None]) -> None:
    """What follows the position ``game`` is now in: a bot move (``BOT_MOVE_DELAY_SECONDS``
    later), "your turn" emails for the people to act, or the game-over emails. ``seats`` are
    the game's seats as ``games.rows.seat_rows`` reads them (with each player's profile), their
    ``must_act`` up to date; ``hooks`` is ``rows.webhook_since(game.pk, game.seq,
    WEBHOOK_KIND)``, read by the caller with its writes (``rows.settle_position``).

    No turn row when none of the people to act may get an email per turn (they chose none or
    the daily digest): its task would send nothing. A preference changed to a per-turn one
    during that turn counts from the next turn; the sweep's ``outbox.repair`` writes the row
    of a turn still waiting by then."""
    seq = game.seq
    to_act = [seat for seat in seats if seat.must_act]
    effects: list[outbox.Effect] = []
    if any(seat.plays_as_bot for seat in to_act):
        effects.append(outbox.Effect(Kind.BOT_MOVE, game.pk, seq, settings.BOT_MOVE_DELAY_SECONDS))
    emailed = [seat for seat in to_act if not seat.plays_as_bot and PlayerProfile.per_turn(_profile(seat))]
    if game.status == Game.Status.ACTIVE and emailed:
        # After a grace period: a move taken back within it moves the game past
        # ``seq``, and the send path sends nothing for a seq the game has moved past.
        effects.append(outbox.Effect(Kind.TURN, game.pk, seq, settings.TURN_EMAIL_GRACE_SECONDS))
    if game.status == Game.Status.FINISHED:
        effects.append(outbox.Effect(Kind.GAME_OVER, game.pk, seq))
        effects.append(outbox.Effect(Kind.RATINGS, game.pk, seq))
    effects += _webhook_effects(game, *hooks)
    outbox.add(effects)


def _profile(seat: Seat) -> PlayerProfile | None:
    # A user without a profile row has the default preferences.
    return getattr(seat.user, "profile", None)


def _webhook_effects(game: Game, live: bool, previous: int | None) -> list[outbox.Effect]:
    """The webhook deliveries of the position ``game`` is now in, if it has a live hook: one
    row for the events since the previous such row (several events when passes were forced)."""
    if not live:
        return []
    since = previous if previous is not None else game.seq - 1
    payload = {"game_id": game.pk, "seq": game.seq, "since": since}
    return [outbox.Effect(Kind.WEBHOOK, game.pk, game.seq, payload=payload)]


def after_chat(game_id: int, message_id: int) -> None:
    """The webhook deliveries of a chat line, if its game has a live hook."""
    if Webhook.live_for(game_id).exists():
        outbox.add([outbox.Effect(Kind.WEBHOOK_CHAT, game_id, message_id)])


def after_webhook_disabled(hook: Webhook) -> None:
    """The email telling the hook's creator that it was disabled after repeated failures."""
    outbox.add([outbox.Effect(Kind.WEBHOOK_DISABLED, hook.game_id, hook.pk)])


def after_reminder(game: Game) -> None:
    """The reminder emails for the turn ``game`` is at (its ``reminder_at`` was just cleared)."""
    outbox.add([outbox.Effect(Kind.REMINDER, game.pk, game.seq)])


def after_timeouts(game: Game, events: list[Event]) -> None:
    """The emails telling everyone about timeouts and seats handed to bots."""
    kinds: dict[str, str] = {Event.Kind.TIMEOUT: Kind.TIMEOUT, Event.Kind.SEAT_TO_BOT: Kind.SEAT_TO_BOT}
    outbox.add(outbox.Effect(kinds[e.kind], game.pk, e.seq) for e in events if e.kind in kinds)


def after_invitations(invitations: list[Invitation]) -> None:
    """The invitation emails (the invitation rows are in the same transaction)."""
    outbox.add(outbox.Effect(Kind.INVITATION, i.game_id, i.pk) for i in invitations)


def after_seats_filled(game: Game, last_seat: Seat) -> None:
    """The creator's "every seat is taken" email, ``SEATS_FILLED_EMAIL_DELAY_SECONDS`` after the
    last seat was taken (a creator who starts the game meanwhile is not emailed; one whose game
    started by itself hears that it started). Keyed by the last seat: a seat left and taken
    again fills the game anew, and the email itself still goes once (its Notification)."""
    delay = settings.SEATS_FILLED_EMAIL_DELAY_SECONDS
    outbox.add([outbox.Effect(Kind.SEATS_FILLED, game.pk, last_seat.pk, delay)])


def after_reply(answer: dict[str, Any], *, game_id: int, digest: str) -> None:
    """The answer to an emailed reply. Keyed by the answered message's digest, so a message
    delivered twice is answered once."""
    outbox.add([outbox.Effect(Kind.ANSWER, game_id, int(digest[:15], 16), payload={"answer": answer})])


def digests(user_ids: list[int], day: date) -> None:
    """The daily digests of ``day`` for ``user_ids``: one row per person and day."""
    stamp = int(day.strftime("%Y%m%d"))
    with transaction.atomic():
        outbox.add(
            outbox.Effect(Kind.DIGEST, None, user_id * 10**8 + stamp,
                          payload={"user_id": user_id, "day": day.isoformat()})
            for user_id in user_ids
        )


def after_rating_preference(user_id: int) -> None:
    """A player changed whether their private games count in their rating: the rule sets they
    played private games in are recomputed (keyed by the time, so each change is applied)."""
    key = time.time_ns() // 1000
    outbox.add([outbox.Effect(Kind.RATINGS_REBUILD, None, key, payload={"user_id": user_id})])
def after_rematch_seats(game: Game, user_ids: list[int]) -> None:
    """The "a seat is yours: I'm in / Not this time" emails of a rematch or a crew's new game,
    one per person still to answer (keyed by the person)."""
    outbox.add(outbox.Effect(Kind.REMATCH, game.pk, user_id) for user_id in user_ids)


def after_crew_invitations(invitation_ids: list[int]) -> None:
    """The crew invitation emails (the invitation rows are in the same transaction)."""
    outbox.add(outbox.Effect(Kind.CREW_INVITATION, None, pk) for pk in invitation_ids)
