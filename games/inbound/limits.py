"""Limits that keep a flood of mail from hurting the service: a size cap (``INBOUND_MAX_BYTES``;
larger messages are ignored unread) and a rate per sender address (the ``inbound_mail`` scope
of ``THROTTLE_RATES``, counted in Django's cache like every other throttle)."""

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
