"""The answers a reply gets: a short confirmation, "the game has moved on", or what went wrong
with the moves listed again.

An answer is an outbox row written in the reply's transaction (sent after it commits) and
rendered when it is sent, from the game as it is then (so the moves it lists are the current ones, with a
reply address for the current position). Each is sent once: a ``Notification`` row keyed by
the answered message's digest (``games.emails.deliver_once``), so a message delivered twice is
answered once. Answers carry ``Auto-Submitted: auto-replied`` (RFC 3834), which well-behaved
auto-responders do not answer, and refer to the message they answer (``In-Reply-To``) after
the game's thread root for the player (``References``), so they thread with the game's emails.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.mail import EmailMultiAlternatives
from django.db import transaction

from games import emails, side_effects
from games.emails.replies import reply_context, with_reply_to
from games.models import Event, Game, Invitation, Notification
from games.services.accounts import speaks_for

PLAYED = "played"
STALE = "stale"
PROBLEM = "problem"
NOT_RUNNING = "not_running"
JOINED = "joined"
JOIN_REFUSED = "join_refused"
SIGN_UP = "sign_up"
# A reply from the player's address that the receiving mail server did not authenticate: told
# to the account's own address, never to the From (games/inbound/authentication.py).
UNAUTHENTICATED = "unauthenticated"
KINDS = frozenset({PLAYED, STALE, PROBLEM, NOT_RUNNING, JOINED, JOIN_REFUSED, SIGN_UP, UNAUTHENTICATED})
# How long an answer to someone without an account is remembered (there is no Notification
# row without a user): longer than any provider keeps retrying a delivery.
SIGN_UP_MEMORY_SECONDS = 7 * 24 * 3600
MAX_SUBJECT = 150
# A Message-ID as it may be repeated in our headers: one <…@…> with nothing that could end or
# fold the header.
_MESSAGE_ID = re.compile(r"<[^<>\s@]+@[^<>\s@]+>")
# Problem texts that say what was wrong with a reply's text (``handle`` picks them).
UNVERIFIED_PROBLEM = (
    "An account uses this address but has not verified it yet, so a reply cannot take a seat "
    "for it. Follow the link in the email that asked you to verify the address (or log in and "
    "send it again from your profile), then take your seat with the invitation's link:"
)
EMPTY_PROBLEM = "Your reply had no text of its own outside the quoted email, so there was no move in it."


def unauthenticated_problem(reason: str) -> str:
    """Why a reply from the player's address was not played: our mail server could not confirm
    that it came from there (``reason`` says what it found)."""
    return (
        f"Our mail server could not confirm that it came from your address: {reason}. If you "
        "sent it, your mail provider may not sign its mail (DKIM) or publish SPF or DMARC for "
        "your domain: please make your move on the site. If you did not send it, someone else "
        "has a copy of an email we sent you; nothing was played."
    )


def undecodable_problem(charset: str) -> str:
    """A reply whose text is in a charset we do not know, or not valid in the one it names: it
    is not guessed at (a wrong guess could play another move)."""
    named = " ".join(charset.split())[:40] or "unknown"
    return (
        f"We could not read your reply: its text is marked as character set “{named}”, which we "
        "do not know or which does not match its contents. Please reply again, with your mail "
        "program set to send UTF-8 (Unicode) if it asks."
    )


@dataclass(frozen=True)
class Answer:
    """One answer to one message, in JSON-able fields (it travels as a task argument)."""

    kind: str
    to: str
    key: str  # the answered message's digest (parse.message_key)
    subject: str  # of the answered message
    message_id: str  # of the answered message
    game_id: int
    user_id: int | None = None
    position: int | None = None
    seq: int = 0  # the position the reply was written for
    number: int | None = None  # the move number read in the reply
    event_seq: int | None = None  # the event a played reply appended
    problem: str = ""  # what went wrong, for a person
    invitation_id: int | None = None


def queue(answer: Answer) -> None:
    """Owe ``answer``: an outbox row in the current transaction (sent once it commits). An
    answer about a game that does not exist is not owed (``send`` would find nothing to say)."""
    if answer.kind not in KINDS:
        raise ValueError(f"unknown answer kind {answer.kind!r}")
    if not Game.objects.filter(pk=answer.game_id).exists():
        return
    with transaction.atomic():
        side_effects.after_reply(asdict(answer), game_id=answer.game_id, digest=answer.key)


def _subject(answer: Answer, game: Game) -> str:
    subject = " ".join(answer.subject.split()) or game.display_name
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    return subject if len(subject) <= MAX_SUBJECT else subject[: MAX_SUBJECT - 1] + "…"


def _mark_as_answer(message: EmailMultiAlternatives, answer: Answer) -> EmailMultiAlternatives:
    """An answer is "auto-replied" (RFC 3834) and answers the message it answers; it also
    refers to the game's thread root for the player, so it threads with their game emails."""
    headers = {"Auto-Submitted": "auto-replied", "X-Auto-Response-Suppress": "All"}
    root = (emails.thread_root_id(answer.game_id, answer.user_id)
            if answer.user_id is not None and answer.kind != SIGN_UP else "")
    message_id = " ".join(answer.message_id.split())
    if _MESSAGE_ID.fullmatch(message_id) and len(message_id) <= 250:
        references = message_id if root in ("", message_id) else f"{root} {message_id}"
        headers.update({"In-Reply-To": message_id, "References": references})
    elif root:
        headers.update({"In-Reply-To": root, "References": root})
    message.extra_headers.update(headers)
    return message


def _game_context(answer: Answer, user: User, game: Game) -> dict[str, Any]:
    """The game as it is now, and the player's moves in it if it is their turn."""
    context: dict[str, Any] = {
        "answer": answer,
        "game": game,
        "game_name": game.display_name,
        "game_url": emails.game_url(user, game),
        "moves": None,
        "reply_address": "",
        "summary": None,
    }
    position = answer.position
    if position is None or game.status != Game.Status.ACTIVE:
        return context
    if answer.kind == PLAYED:
        # A turn email follows unless the player's own move left them to act again (they are
        # in the middle of their turn): then this answer is where their next moves are.
        latest = Event.objects.filter(game=game, seq=game.seq).only("seat", "kind").first()
        own = latest is not None and latest.seat == position and latest.kind in emails.OWN_MOVE_KINDS
        if not own:
            return context
    if answer.kind == STALE:
        context["summary"] = emails.summary(game, after=answer.seq, upto=game.seq, position=position)
    if position in game.to_act:
        context.update(reply_context(game, position, game.seq))
    return context


def _build_for_player(answer: Answer, user: User, game: Game) -> EmailMultiAlternatives:
    context = _game_context(answer, user, game)
    if answer.kind == PLAYED and answer.event_seq is not None:
        event = Event.objects.filter(game=game, seq=answer.event_seq).first()
        context["played"] = emails.event_text(event, game, answer.position) if event is not None else ""
    if answer.kind in (JOINED, JOIN_REFUSED):
        context["players"] = game.players
        context["seated"] = game.seats.count()
    message = emails.render(
        "reply_answer", to=answer.to, subject=_subject(answer, game), context=context, user=user
    )
    return _mark_as_answer(with_reply_to(message, context), answer)


def _send_sign_up(answer: Answer, game: Game) -> bool:
    """The invitation's link for an address without an account (no Notification row without
    a user: the cache remembers it was sent)."""
    invitation = Invitation.objects.filter(pk=answer.invitation_id or 0).first()
    if invitation is None:
        return False
    remembered = f"inbound:answered:{answer.key}"
    if not cache.add(remembered, 1, SIGN_UP_MEMORY_SECONDS):
        return False
    context = {"answer": answer, "game": game, "game_name": game.display_name,
               "join_url": emails.invitation_url(invitation)}
    message = emails.render(
        "reply_answer", to=answer.to, subject=_subject(answer, game), context=context, user=None
    )
    try:
        # No Notification row without an account: the id is the answered message's digest,
        # so a retried send is the same message, as for every other email.
        marked = _mark_as_answer(message, answer)
        emails.with_message_id(marked, emails.message_id(SIGN_UP, answer.key[:32])).send()
    except emails.SEND_ERRORS:
        cache.delete(remembered)
        raise
    return True


def send(answer: Answer) -> bool:
    """Send ``answer`` unless it was sent already. Returns whether it was sent now."""
    game = Game.objects.filter(pk=answer.game_id).first()
    if game is None or answer.kind not in KINDS or not answer.to:
        return False
    if answer.kind == SIGN_UP:
        return _send_sign_up(answer, game)
    user = get_user_model().objects.filter(pk=answer.user_id or 0, is_active=True).first()
    if user is None or not speaks_for(user, answer.to):
        # An answer goes only to the player's verified address (games.services.accounts).
        return False

    def build() -> EmailMultiAlternatives:
        return _build_for_player(answer, user, game)

    return emails.deliver_once(
        user=user, game=game, kind=Notification.Kind.ANSWER, key=answer.key[:32], build=build
    )


def from_task(data: dict[str, Any]) -> Answer:
    return Answer(**data)

