"""A worker whose ack or reject failed reconnects to its broker instead of stalling.

kombu's Redis transport settles a message in two steps (kombu 5.x, ``transport/redis.py``
``QoS.ack``/``QoS.reject``): it removes the message from the unacked index in Redis, and only
then forgets it in the channel's in-memory count of messages being worked on. When Redis is
down at that moment the first step raises, Celery logs "Couldn't ack" or "Couldn't reject",
and the second step never runs: the message stays counted for ever. Once as many are counted
as the prefetch limit allows (concurrency × ``worker_prefetch_multiplier``: 2 here, 1 with one
process) the channel asks Redis for nothing more, so the worker consumes nothing and, issuing
no BRPOP, never even notices that the broker went away and came back. Only its supervisor's
liveness check would end that, minutes later in production.

So every message's settling is checked: when a message is still unsettled a moment after
Celery's ``acknowledge``/``reject`` (the broker refused it), the worker's event loop raises a
connection error at its next tick, the same way a lost connection surfaces. Celery's consumer
then does what it does for a lost connection: it closes the channel (restoring the messages
it held, the unsettled one among them, so they run again: every task here is idempotent),
reconnects with retries until the broker is back, and consumes with a fresh count.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from amqp.exceptions import ConnectionError as BrokerConnectionError
from celery import Task
from celery.worker.request import Request

from pirates_site.loop_timer import EverySecond

log = logging.getLogger(__name__)

# Messages Celery has settled (acked or rejected) lately, with when: (monotonic, what, message).
# Celery settles in the worker's main process, as a callback of its event loop
# (``Consumer.call_soon_ack``), where the watch's timer also runs: no lock needed.
_settling: list[tuple[float, str, Any]] = []
_watching = [False]  # set while a BrokerWatch runs: nothing is kept where nothing looks
# How long after Celery's acknowledge/reject the broker must have taken it: the callback that
# talks to the broker runs in the next round of the loop, well within this.
SETTLE_SECONDS = 0.5


def unsettled(now: float | None = None) -> list[str]:
    """What the broker refused to settle (older than ``SETTLE_SECONDS`` and still unsettled),
    forgetting what it took or refused."""
    now = time.monotonic() if now is None else now
    refused = [what for since, what, message in _settling
               if not _settled(message) and now - since >= SETTLE_SECONDS]
    _settling[:] = [entry for entry in _settling
                    if not _settled(entry[2]) and now - entry[0] < SETTLE_SECONDS]
    return refused


def _settled(message: Any) -> bool:
    """The broker took the ack, reject or requeue (kombu's ``acknowledged``), or the message
    came to a consumer that acks nothing (kombu's ``ack`` returns at once for those)."""
    if message.acknowledged:
        return True
    no_ack = getattr(message.channel, "no_ack_consumers", None) or ()
    return (message.delivery_info or {}).get("consumer_tag") in no_ack


class SettledRequest(Request):
    """Celery's request, remembering each ack or reject it asked for (see the module)."""

    def acknowledge(self) -> None:
        tried = not self.acknowledged
        super().acknowledge()
        self._watch("ack", tried)

    def reject(self, requeue: bool = False) -> None:
        tried = not self.acknowledged
        super().reject(requeue=requeue)
        self._watch("reject", tried)

    def _watch(self, what: str, tried: bool) -> None:
        if tried and _watching[0] and self.message is not None:
            _settling.append((time.monotonic(), f"{what} {self.id}", self.message))


class WatchedTask(Task):
    """The base of every task of the app: its requests are ``SettledRequest``s."""

    Request = "pirates_site.broker_watch:SettledRequest"


class BrokerWatch(EverySecond):
    """Every second, from the worker's event loop: after a failed ack or reject, raise a
    connection error there, which Celery's consumer answers by reconnecting (kombu's virtual
    transports, Redis and the folder broker, count the error raised as a connection error)."""

    def start(self, w: Any) -> None:
        _watching[0] = True
        super().start(w)

    def stop(self, w: Any) -> None:
        _watching[0] = False
        _settling.clear()
        super().stop(w)

    @staticmethod
    def tick(w: Any) -> None:
        refused = unsettled()
        if not refused:
            return
        # The reconnect answers for every message of the channel it drops, those still
        # waiting to be found refused among them.
        _settling.clear()
        what = ", ".join(refused[:3]) + (" …" if len(refused) > 3 else "")
        log.warning("the broker refused to settle %s: reconnecting so that the worker consumes again",
                    what)
        # Raised in the loop, where Celery's consumer takes its connection errors for a lost
        # connection (kombu Hub.fire_timers propagates ``hub.propagate_errors``).
        raise BrokerConnectionError("a message could not be settled with the broker")
