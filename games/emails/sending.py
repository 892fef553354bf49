"""Sending each email once, as closely as SMTP allows: a Notification row per (user, game, kind, key).

No lock and no transaction is held while the mail server is talked to (a slow mail server
must not hold up moves, and a crash after the server accepted a message must not roll back
the record of it). Instead each send is:

1. a claim, in a short transaction: lock the row; nothing to do when it is sent; leave it
   alone when another sender claimed it less than ``EMAIL_CLAIM_SECONDS`` ago (raise
   ``SendInProgress``, which the caller's task retries like a mail server error); check that
   the email is still due (``still_due``, the game check); record the claim and the attempt;
   commit;
2. the send, with no transaction open;
3. ``sent_at`` recorded (and the claim cleared); on a send error the claim is cleared, the
   attempt stays counted, and the error is raised for the caller to retry.

A claim older than the lease belongs to a sender that died mid-send: it is taken over and the
email goes again, as the same message. Every email carries a Message-ID fixed by its row
(``message_id``), so mail clients collapse such a resend with the first copy.
"""

from __future__ import annotations

import ipaddress
import logging
import smtplib
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from email.utils import parseaddr
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import DatabaseError, InterfaceError, connection, transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from games import rows
from games.models import Game, Notification, PlayerProfile
from games.services.accounts import mail_address, normal_address

log = logging.getLogger(__name__)


class SendInProgress(Exception):
    """Another sender claimed this email moments ago and may be talking to the mail server now.

    Retried like a mail server error: by the retry it has been sent (nothing more to do), or
    the claim has run out (its sender died) and is taken over. Returning quietly instead would
    lose the email when the sender that died is the one being run again."""


# Errors after which sending is worth trying again later (the mail server is down or refused,
# or another sender is busy with the same email).
SEND_ERRORS: tuple[type[Exception], ...] = (smtplib.SMTPException, OSError, SendInProgress)
# What the mail server (or the backend) raises: the claim is released on these.
_MAIL_ERRORS: tuple[type[Exception], ...] = (smtplib.SMTPException, OSError)
Kind = Notification.Kind

MESSAGE_ID_SALT = "games.emails.message-id"
# Recording ``sent_at`` after a send is tried this many times over a few seconds (a database
# restarting): every failure here is an email that is sent again once its claim runs out.
_RECORD_TRIES = 5


def message_id_domain() -> str:
    """The right-hand side of our Message-IDs: the site's host name (``SITE_URL``), else the
    domain of ``DEFAULT_FROM_EMAIL``. ``localhost`` only when the site is localhost."""
    host = (urlsplit(settings.SITE_URL).hostname or "").strip().lower().rstrip(".")
    if host:
        try:
            ipaddress.ip_address(host)
        except ValueError:
            return host
    domain = parseaddr(settings.DEFAULT_FROM_EMAIL)[1].rpartition("@")[2].strip().lower()
    if domain:
        return domain
    return f"[{host}]" if host else "localhost"


def message_id(kind: str, ident: str) -> str:
    """A Message-ID fixed by what the email is (its kind and the row or object it is for):
    ``<pbm.{kind}.{ident}.{mac}@{domain}>``. The MAC (keyed by ``SECRET_KEY``) keeps two
    deployments on one domain, or a restored database's new rows, from reusing an id."""
    mac = salted_hmac(MESSAGE_ID_SALT, f"{kind}:{ident}", algorithm="sha256").hexdigest()[:16]
    return f"<pbm.{kind}.{ident}.{mac}@{message_id_domain()}>"


def thread_root_id(game_id: int, user_id: int) -> str:
    """The Message-ID every email of one game to one player refers to (``References`` and
    ``In-Reply-To``), so mail clients thread them together: fixed by the game and the player,
    never by an email. No email is sent with it as its own id; clients thread under it all the
    same (RFC 5322 3.6.4 names the parent; a parent never seen heads the thread)."""
    return message_id("game", f"{game_id}.{user_id}")


def thread_headers(game_id: int, user_id: int) -> dict[str, str]:
    root = thread_root_id(game_id, user_id)
    return {"References": root, "In-Reply-To": root}


# Every notification says it was sent by a machine (RFC 3834 "auto-generated"), so vacation
# responders and well-behaved bots do not answer it, and asks Exchange for no out-of-office
# notes either. Answers to replies say "auto-replied" instead (games/inbound/answers.py).
AUTOMATIC_HEADERS = {"Auto-Submitted": "auto-generated", "X-Auto-Response-Suppress": "All"}


def notification_message_id(note: Notification) -> str:
    return message_id(str(note.kind), str(note.pk))


def with_message_id(message: EmailMessage, value: str) -> EmailMessage:
    """Sets ``value`` as the message's Message-ID (Django otherwise makes a random one)."""
    for name in [name for name in message.extra_headers if name.lower() == "message-id"]:
        del message.extra_headers[name]
    message.extra_headers["Message-ID"] = value
    return message


def _lease() -> timedelta:
    return timedelta(seconds=settings.EMAIL_CLAIM_SECONDS)


def _claim(pk: int, still_due: Callable[[], bool] | None) -> datetime | None:
    """Step 1: the claim's time when this sender is to send now; None when nothing is to be sent.
    Raises ``SendInProgress`` when another sender's claim is fresh."""
    busy_since: datetime | None = None
    with transaction.atomic():
        locked = rows.locked_row(Notification, pk)
        if locked is None or locked.sent_at is not None:
            return None
        now = timezone.now()
        if locked.claimed_at is not None and now - locked.claimed_at < _lease():
            busy_since = locked.claimed_at
        elif still_due is not None and not still_due():
            if locked.attempts == 0:
                locked.delete()
            elif locked.claimed_at is not None:
                locked.claimed_at = None
                rows.update_fields(locked, ["claimed_at"])
            return None
        else:
            if locked.claimed_at is not None:
                log.warning("taking over the claim of %s from %s (its sender did not finish)",
                            locked, locked.claimed_at.isoformat())
            locked.claimed_at = now
            locked.attempts += 1
            rows.update_fields(locked, ["claimed_at", "attempts"])
            return now
    raise SendInProgress(f"{Notification.Kind(locked.kind).label} {pk} is being sent by another "
                         f"sender since {busy_since.isoformat()}")


def _release(pk: int, claimed_at: datetime) -> None:
    """After a send error: the claim goes (only our own), the attempt stays counted."""
    Notification.objects.filter(pk=pk, claimed_at=claimed_at, sent_at__isnull=True).update(claimed_at=None)


def _record_sent(pk: int) -> None:
    """Step 3. The mail server has the email: keep trying for a few seconds to say so, as a
    database that is restarting comes back; after that the claim runs out and it is resent."""
    for attempt in range(_RECORD_TRIES):
        try:
            rows.mark_sent(pk, timezone.now())
            return
        except (DatabaseError, InterfaceError):
            if attempt == _RECORD_TRIES - 1 or connection.in_atomic_block:
                raise
            log.warning("recording notification %s as sent failed; trying again", pk, exc_info=True)
            connection.close()
            time.sleep(0.5 * 2**attempt)


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

    Returns whether it was sent now. A sending error is raised after the attempt is counted
    (``SEND_ERRORS``, ``SendInProgress`` included); the caller retries later and the row makes
    sure a success is not repeated. ``still_due`` runs in the short claiming transaction (after
    ``build``): when it answers False nothing is sent, and a row never tried is removed again.
    Call it outside any transaction: inside one, the claim's locks last until that commits.
    """
    address = mail_address(user)
    if not address:
        return False  # mail to an account goes only to the address it verified
    if game is None:
        # A unique key with a NULL game does not stop two concurrent inserts: serialise them
        # on the user's profile row instead.
        with transaction.atomic():
            PlayerProfile.objects.select_for_update().filter(user_id=user.pk).first()
            note, _ = Notification.objects.get_or_create(user_id=user.pk, game=None, kind=kind, key=key)
    else:
        note = Notification(user_id=user.pk, game=game, kind=kind, key=key)
        if not rows.insert_once(note):  # the row is there: this email was tried or sent before
            note = Notification.objects.get(user_id=user.pk, game=game, kind=kind, key=key)
    if note.sent_at is not None:
        return False
    message = build()
    if [normal_address(to) for to in message.to] != [address]:
        log.error("%s to user %s not sent: not addressed to the account's verified address", kind, user.pk)
        return False
    claimed_at = _claim(note.pk, still_due)
    if claimed_at is None:
        return False
    with_message_id(message, notification_message_id(note))
    try:
        message.send()
    except _MAIL_ERRORS as exc:
        _release(note.pk, claimed_at)
        log.warning("sending %s to user %s failed: %s", kind, user.pk, exc)
        raise
    _record_sent(note.pk)
    return True
