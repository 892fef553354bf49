"""Who is at the table (issue 17, item 10): the table's live polling records when each player
last had their game open, and turn emails go to players who chose "only when away" only when
they are not there.

A turn that came while the player sat at the table is not emailed then; if they leave without
moving, ``turn_emails_for_leavers`` (run by beat) sends it once they have been gone for
``PRESENCE_SECONDS``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from games.models import Notification, PlayerProfile, Seat

# A poll every few seconds need not write every time: once per this many seconds is enough.
WRITE_EVERY = timedelta(seconds=20)


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
    """Whether a person with this email preference gets a turn email (or reminder) for ``seat`` now."""
    if preference == PlayerProfile.Notify.EACH_TURN:
        return True
    if preference == PlayerProfile.Notify.WHEN_AWAY:
        return not at_table(seat, now)
    return False


def turn_emails_for_leavers(now: datetime | None = None) -> list[tuple[int, int]]:
    """(game id, seq) of running games where a person to act was at the table after their
    turn came (so was not emailed), has been gone for ``PRESENCE_SECONDS`` since, and has had
    no turn email for that seq yet. Seen within the last day only, so the scan stays small."""
    now = timezone.now() if now is None else now
    gone = now - timedelta(seconds=settings.PRESENCE_SECONDS)
    candidates = Seat.objects.filter(
        must_act=True,
        replaced_by_bot=False,
        user__isnull=False,
        game__status="active",
        last_seen_at__lt=gone,
        last_seen_at__gt=now - timedelta(days=1),
        last_seen_at__gte=F("game__updated_at"),
    ).values_list("user_id", "game_id", "game__seq")
    due = set()
    for user_id, game_id, seq in candidates:
        emailed = Notification.objects.filter(
            user_id=user_id, game_id=game_id, kind=Notification.Kind.TURN, key=str(seq)
        ).exists()
        if not emailed:
            due.add((game_id, seq))
    return sorted(due)
