"""Signed reply addresses.

A turn email's Reply-To names the game, the seat and the event (seq) it was written for:
``m-<game>-<seat>-<seq>-<signature>@<REPLY_DOMAIN>``; an invitation's names the invitation:
``i-<invitation>-<signature>@<REPLY_DOMAIN>``. Numbers are base 36 and the signature is the
first 100 bits of an HMAC-SHA256 (key derived from SECRET_KEY) over everything before it, in
lowercase base 32: only lowercase letters, digits and hyphens, so a mail server that changes
the case of an address changes nothing we read. Nobody can guess an address or change one of
its numbers without the signature failing. The domain is not part of what is signed: any
domain that delivers to us will do.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

SALT = "games.inbound.reply-address"
SIGNATURE_CHARS = 20  # base 32: 5 bits each, 100 bits
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_SIGNED = rf"([a-z2-7]{{{SIGNATURE_CHARS}}})"
_MOVE = re.compile(r"(m-([0-9a-z]{1,12})-([0-9a-z]{1,3})-([0-9a-z]{1,12}))-" + _SIGNED)
_INVITATION = re.compile(r"(i-([0-9a-z]{1,12}))-" + _SIGNED)


@dataclass(frozen=True)
class MoveAddress:
    """A reply to a turn email: ``position``'s move in game ``game_id`` at event ``seq``."""

    game_id: int
    position: int
    seq: int


@dataclass(frozen=True)
class InvitationAddress:
    """A reply to invitation ``invitation_id``."""

    invitation_id: int


ReplyAddress = MoveAddress | InvitationAddress


def replies_enabled() -> bool:
    """Whether emails carry reply addresses (``REPLY_DOMAIN=off`` turns replies off)."""
    return bool(settings.REPLY_DOMAIN)


def base36(number: int) -> str:
    if number < 0:
        raise ValueError("reply addresses carry whole numbers >= 0 only")
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = _DIGITS[rest] + digits
        if number == 0:
            return digits


def signature(local: str) -> str:
    digest = salted_hmac(SALT, local, algorithm="sha256").digest()
    return base64.b32encode(digest).decode("ascii").lower()[:SIGNATURE_CHARS]


def _address(local: str) -> str:
    return f"{local}-{signature(local)}@{settings.REPLY_DOMAIN}"


def move_address(game_id: int, position: int, seq: int) -> str:
    return _address(f"m-{base36(game_id)}-{base36(position)}-{base36(seq)}")


def invitation_address(invitation_id: int) -> str:
    return _address(f"i-{base36(invitation_id)}")


def read_address(address: str) -> ReplyAddress | None:
    """What a reply address names, if its signature verifies; None for anything else."""
    local = address.strip().lower().rpartition("@")[0].strip("<>\" ")
    if (found := _MOVE.fullmatch(local)) is not None:
        signed, game, position, seq, given = found.groups()
        if constant_time_compare(given, signature(signed)):
            return MoveAddress(int(game, 36), int(position, 36), int(seq, 36))
    elif (found := _INVITATION.fullmatch(local)) is not None:
        signed, invitation, given = found.groups()
        if constant_time_compare(given, signature(signed)):
            return InvitationAddress(int(invitation, 36))
    return None
