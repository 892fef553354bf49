"""Limits that keep a flood of mail from hurting the service: a size cap (``INBOUND_MAX_BYTES``;
larger messages are ignored unread), a rate per sender address (the ``inbound_mail`` scope of
``THROTTLE_RATES``) and a rate of "could not be authenticated" answers per account (the
``inbound_unauthenticated`` scope), counted in the cache every process shares
(``settings.LIMITS_CACHE``) like every other throttle: each ``mail_ingest`` is a process of
its own, so a count kept in one process's memory would never reach the next message."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any

from django.conf import settings

from games.throttling import Throttle


class InboundMailThrottle(Throttle):
    """Messages per sender address. The address is hashed: the cache holds no addresses."""

    scope = "inbound_mail"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.key_for(hashlib.sha256(request.sender.encode()).hexdigest()[:32])


def max_bytes() -> int:
    return int(settings.INBOUND_MAX_BYTES)


def sender_allowed(sender: str) -> bool:
    """Whether another message from ``sender`` may be read now (and count it)."""
    # The throttle classes read a request; this one only needs to know whose message it is.
    request = SimpleNamespace(method="POST", sender=sender, META={})
    return InboundMailThrottle().allow_request(request, None)


class UnauthenticatedAnswerThrottle(Throttle):
    """Answers saying a reply could not be authenticated, per account: whoever forges a
    player's address can make us write to that player, but only this often."""

    scope = "inbound_unauthenticated"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.key_for(f"user-{request.user_id}")


def unauthenticated_answer_allowed(user_id: int) -> bool:
    """Whether the account ``user_id`` may be told of another unauthenticated reply now (and
    count it)."""
    request = SimpleNamespace(method="POST", user_id=user_id, META={})
    return UnauthenticatedAnswerThrottle().allow_request(request, None)
