"""What an incoming email does.

``receive`` is the one way in, whatever delivered the message (the MTA pipe, a provider's
webhook, the development outbox's reply box). In order:

1. Bounds and loops: a message over ``INBOUND_MAX_BYTES`` is ignored unread; automatic mail
   (auto-replies, bounces — a null envelope sender, ``MAILER-DAEMON`` included — and reports)
   and our own mail are ignored and never answered; a sender over its rate is ignored. The
   sender is the one From mailbox, parsed strictly (``parse.sender_of``).
2. The address: one of the message's recipients must be a reply address whose signature
   verifies, and the sender must be the verified address of the account it belongs to (the
   seat's player; for an invitation, the invited address, which seats only an account that
   verified it). Otherwise nothing happens and nobody is answered, so a
   forged or guessed message learns nothing. With ``INBOUND_TRUSTED_AUTHSERV_ID`` set, the
   receiving server's Authentication-Results must also vouch for the From address
   (``authentication.check``); a reply from the player's address that it does not vouch for
   plays nothing, and the account's own address (never the From) is told why, at most
   ``inbound_unauthenticated`` times an hour. Unauthenticated mail is counted against the
   sender's rate apart from authenticated mail, so forged mail cannot use up a player's rate.
3. The command, read from the reply's own text, is mapped to the move the email offered (as
   the email listed it, stored when it was written: games/emails/replies.py) and goes through
   the same service as on the web: ``action_submit`` with the email's seq as
   ``expected_seq`` (the seq its player read) and the message's digest as idempotency key;
   ``invitation_accept``. The handler only translates the service's answers. The service decides
   whether a reply written for an older position still counts (other seats' picks in the
   same simultaneous step do not make it older: games/services/simultaneous.py); if not, the
   answer says the game moved on. A reply that names no move is answered by the same rule
   (``decision_unchanged``): "moved on" for an older position, what went wrong otherwise.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import parseaddr

from django.conf import settings
from django.contrib.auth.models import User

from games.emails.addresses import InvitationAddress, MoveAddress, ReplyAddress, read_address
from games.emails.replies import NumberedMove, numbered_moves
from games.inbound import answers, authentication
from games.inbound.answers import Answer
from games.inbound.limits import max_bytes, sender_allowed, unauthenticated_answer_allowed
from games.inbound.parse import (
    Command,
    automatic_reason,
    message_key,
    parse,
    read_reply,
    recipients_of,
    sender_of,
)
from games.models import Game, Invitation, Seat
from games.services import (
    Conflict,
    Forbidden,
    IllegalMove,
    ServiceError,
    StaleSeq,
    action_submit,
    decision_unchanged,
)
from games.services.accounts import account_for_address, mail_address, named_by_an_account, speaks_for
from games.services.invitations import invitation_accept

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What became of a message: ``status`` says what happened (for logs and the callers),
    ``answer`` the kind of answer queued ("" for none)."""

    status: str
    answer: str = ""


@dataclass(frozen=True)
class Reply:
    """A message that passed the checks of step 1, with what it says."""

    message: EmailMessage
    sender: str
    key: str
    subject: str
    message_id: str

    def answer(self, kind: str, game_id: int, **fields: object) -> Answer:
        return Answer(kind=kind, to=self.sender, key=self.key, subject=self.subject,
                      message_id=self.message_id, game_id=game_id, **fields)  # type: ignore[arg-type]


def receive(raw: bytes, *, recipients: Sequence[str] = (), envelope_sender: str | None = None) -> Outcome:
    """Read one message (its raw bytes) and do what it says. ``recipients`` are the envelope
    recipients, when the caller knows them; ``envelope_sender`` the envelope's sender ("",
    "<>" or ``MAILER-DAEMON`` for a bounce)."""
    if len(raw) > max_bytes():
        log.info("inbound mail: a message of %s bytes ignored (over the size limit)", len(raw))
        return Outcome("too_large")
    try:
        message = parse(raw)
        reason = automatic_reason(message, envelope_sender)
        sender = sender_of(message)
        addresses = recipients_of(message, list(recipients))
        key = message_key(message, raw, sender)
        verdict = authentication.check(message, sender, settings.INBOUND_TRUSTED_AUTHSERV_ID)
        subject = str(message.get("Subject", ""))
        message_id = str(message.get("Message-ID", ""))
    except (ValueError, TypeError, LookupError, IndexError, AttributeError):
        log.info("inbound mail: an unparseable message ignored", exc_info=True)
        return Outcome("unparseable")
    if reason:
        log.info("inbound mail: automatic mail ignored (%s)", reason)
        return Outcome("automatic")
    if not sender:
        return Outcome("no_sender")
    if sender == parseaddr(settings.DEFAULT_FROM_EMAIL)[1].lower():
        return Outcome("own_mail")
    if not sender_allowed(sender if verdict.passed else f"unauthenticated:{sender}"):
        log.warning("inbound mail: a sender is over the inbound_mail rate; message ignored")
        return Outcome("rate_limited")
    target = _reply_address(addresses)
    if target is None:
        return Outcome("unknown_address")
    reply = Reply(message, sender, key, subject, message_id)
    if not verdict.passed:
        return _unauthenticated(reply, target, verdict)
    if isinstance(target, MoveAddress):
        return _move(reply, target)
    return _join(reply, target)


def _unauthenticated(reply: Reply, target: ReplyAddress, verdict: authentication.Verdict) -> Outcome:
    """A reply the receiving server did not vouch for: nothing is played. If its From is the
    address of the account the reply address belongs to, that account's own address is told
    why (rate-limited: whoever forges the address decides how often we would write); from any
    other address it is ignored in silence, as an unauthenticated one would be anyway."""
    if isinstance(target, MoveAddress):
        game_id = target.game_id
        seat = Seat.objects.filter(game_id=game_id, position=target.position).select_related("user").first()
        user = seat.user if seat is not None else None
        fields: dict[str, object] = {"user_id": user.pk if user is not None else None}
        stranger = "not_the_player"
    else:
        invitation = Invitation.objects.filter(pk=target.invitation_id).first()
        game_id = invitation.game_id if invitation is not None else 0
        invited = invitation.email.strip().lower() if invitation is not None else ""
        user = account_for_address(invited) if invited == reply.sender else None
        fields = {"user_id": user.pk if user is not None else None,
                  "invitation_id": invitation.pk if invitation is not None else None}
        stranger = "not_the_invited"
    if user is None or not speaks_for(user, reply.sender):
        log.info("inbound mail: an unauthenticated reply for game %s not from its player ignored", game_id)
        return Outcome(stranger)
    log.warning("inbound mail: a reply for game %s from its player's address was not authenticated "
                "(%s); nothing played", game_id, verdict.reason)
    if not unauthenticated_answer_allowed(user.pk):
        return Outcome("unauthenticated")
    answers.queue(Answer(
        kind=answers.UNAUTHENTICATED, to=mail_address(user), key=reply.key, subject=reply.subject,
        message_id=reply.message_id, game_id=game_id,
        problem=answers.unauthenticated_problem(verdict.reason), **fields,  # type: ignore[arg-type]
    ))
    return Outcome("unauthenticated", answers.UNAUTHENTICATED)


def _reply_address(addresses: list[str]) -> ReplyAddress | None:
    for address in addresses:
        found = read_address(address)
        if found is not None:
            return found
    return None


def _command(reply: Reply) -> Command:
    try:
        return read_reply(reply.message)
    except (ValueError, TypeError, LookupError, AttributeError):
        log.info("inbound mail: a reply's text could not be read", exc_info=True)
        return Command("unreadable")


def _queued(reply: Reply, kind: str, game_id: int, **fields: object) -> Outcome:
    """Queue the answer of ``kind``; the outcome is named after it."""
    answers.queue(reply.answer(kind, game_id, **fields))
    return Outcome(kind, kind)


def _move(reply: Reply, address: MoveAddress) -> Outcome:
    game = Game.objects.filter(pk=address.game_id).first()
    seat = (
        Seat.objects.filter(game_id=address.game_id, position=address.position).select_related("user").first()
        if game is not None
        else None
    )
    user = seat.user if seat is not None else None
    # The sender must be the address the seat's player verified (games.services.accounts).
    if game is None or user is None or not speaks_for(user, reply.sender):
        # Forged, or the seat changed hands: nothing happens and nothing is said.
        log.info("inbound mail: a reply for game %s seat %s not from its player ignored",
                 address.game_id, address.position)
        return Outcome("not_the_player")
    fields: dict[str, object] = {"user_id": user.pk, "position": address.position, "seq": address.seq}
    move, refusal = _resolve(_command(reply), game, address)
    if move is None:
        return _refused(reply, game, address, fields, refusal)
    return _submitted(reply, game, address, fields, user, move)


def _resolve(
    command: Command, game: Game, address: MoveAddress
) -> tuple[NumberedMove | None, dict[str, object]]:
    """The move the reply names, among those the email listed (as it listed them, read back:
    games/emails/replies.py); else None and what to tell the player."""
    if command.kind == "undecodable":
        return None, {"problem": answers.undecodable_problem(command.said)}
    if command.kind == "empty":
        return None, {"problem": answers.EMPTY_PROBLEM}
    if command.kind not in ("move", "pass"):
        said = f"We could not read a move in your reply (“{command.said}”)." if command.said else (
            "We could not read your reply.")
        return None, {"number": command.number, "problem": said}
    moves = numbered_moves(game, address.position, address.seq)
    if not moves:
        return None, {"problem": "It is not your turn in this game now."}
    if command.kind == "pass":
        move = moves.pass_move
        return move, {} if move is not None else {"problem": "You cannot pass now: choose one of your moves."}
    assert command.number is not None
    move = moves.number(command.number)
    if move is None:
        problem = f"There is no move {command.number}: your moves are numbered 1 to {len(moves)}."
        return None, {"number": command.number, "problem": problem}
    return move, {}


def _refused(
    reply: Reply, game: Game, address: MoveAddress, fields: dict[str, object], refusal: dict[str, object]
) -> Outcome:
    """A reply that names no move: nothing to submit. The service's rules still tell a game
    that is over, and an older position ("moved on"), from a mistake in the reply."""
    if game.status != Game.Status.ACTIVE:
        return _queued(reply, answers.NOT_RUNNING, game.pk, **fields)
    if game.seq != address.seq and not decision_unchanged(game, address.position, address.seq):
        return _queued(reply, answers.STALE, game.pk, **fields)
    return _queued(reply, answers.PROBLEM, game.pk, **refusal, **fields)


def _submitted(
    reply: Reply, game: Game, address: MoveAddress, fields: dict[str, object], user: User, move: NumberedMove
) -> Outcome:
    """Play ``move`` through the service, as the web does, and translate what it says: the
    service decides (stale, illegal, not your turn, a bot's seat, the game over, a message
    delivered twice, by its idempotency key); this adds no check of its own."""
    try:
        submitted = action_submit(
            game_id=game.pk, user=user, action=move.action, expected_seq=address.seq,
            idempotency_key=f"mail:{reply.key[:48]}",
        )
    except StaleSeq:
        return _queued(reply, answers.STALE, game.pk, **fields)
    except (IllegalMove, Forbidden) as exc:
        return _queued(reply, answers.PROBLEM, game.pk, number=move.number, problem=exc.detail, **fields)
    except Conflict:
        return _queued(reply, answers.NOT_RUNNING, game.pk, **fields)
    if not submitted.created:
        return Outcome("duplicate")
    log.info("inbound mail: game %s seat %s played move %s by reply (event %s)",
             game.pk, address.position, move.number, submitted.event.seq)
    return _queued(
        reply, answers.PLAYED, game.pk, number=move.number, event_seq=submitted.event.seq, **fields
    )


def _join(reply: Reply, address: InvitationAddress) -> Outcome:
    invitation = Invitation.objects.filter(pk=address.invitation_id).select_related("game").first()
    if invitation is None or invitation.email.strip().lower() != reply.sender:
        log.info("inbound mail: a reply to invitation %s not from its address ignored", address.invitation_id)
        return Outcome("not_the_invited")
    game_id = invitation.game_id
    # Only an account that verified the address speaks for it: one that merely names it
    # (anyone may sign up with any address) takes no seat.
    user = account_for_address(reply.sender)
    if user is None:
        # No verified account: the only way in is the invitation's link (sign up or log in,
        # and verify, on the way).
        problem = answers.UNVERIFIED_PROBLEM if named_by_an_account(reply.sender) else ""
        return _queued(reply, answers.SIGN_UP, game_id, invitation_id=invitation.pk, problem=problem)
    fields: dict[str, object] = {"user_id": user.pk, "invitation_id": invitation.pk}
    command = _command(reply)
    if command.kind == "undecodable":
        problem = f"{answers.undecodable_problem(command.said)} To take your seat, reply with the word join."
        return _queued(reply, answers.JOIN_REFUSED, game_id, problem=problem, **fields)
    if command.kind != "join":
        said = f" (we read “{command.said}”)" if command.said else ""
        problem = f"To take your seat, reply with the word join{said}."
        return _queued(reply, answers.JOIN_REFUSED, game_id, problem=problem, **fields)
    try:
        invitation_accept(token=invitation.token, user=user)
    except ServiceError as exc:
        return _queued(reply, answers.JOIN_REFUSED, game_id, problem=exc.detail, **fields)
    return _queued(reply, answers.JOINED, game_id, **fields)
