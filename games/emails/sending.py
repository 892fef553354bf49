"""Sending each email exactly once: a Notification row per (user, game, kind, key)."""

from __future__ import annotations

import logging
import smtplib
from collections.abc import Callable

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.utils import timezone

from games.models import Game, Notification, PlayerProfile

log = logging.getLogger(__name__)


# Errors after which sending is worth trying again later (the mail server is down or refused).
SEND_ERRORS: tuple[type[Exception], ...] = (smtplib.SMTPException, OSError)
Kind = Notification.Kind


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
