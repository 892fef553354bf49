"""Errors the services, the read model and the selectors raise. Each carries a stable code
and a message for a person.

The API turns them into ``{"error": code, "detail": message}`` with ``status``; the web pages
show the message. Every one of them means: nothing was changed.
"""

from __future__ import annotations


class ServiceError(Exception):
    code = "invalid"
    status = 400

    def __init__(self, detail: str, **extra: object) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class InvalidInput(ServiceError):
    code = "invalid"
    status = 400


class IllegalMove(ServiceError):
    code = "illegal_action"
    status = 400


class NotFound(ServiceError):
    code = "not_found"
    status = 404


class Forbidden(ServiceError):
    code = "forbidden"
    status = 403


class AddressNotVerified(Forbidden):
    """The account has not verified the address this needs (an invitation's): ``address``."""

    code = "address_not_verified"

    def __init__(self, detail: str, *, address: str) -> None:
        super().__init__(detail, address=address)
        self.address = address


class Conflict(ServiceError):
    """The game has moved on (stale ``expected_seq``) or is not in the right phase."""

    code = "conflict"
    status = 409


class StaleSeq(Conflict):
    code = "stale_seq"

    def __init__(self, detail: str, *, current_seq: int) -> None:
        super().__init__(detail, current_seq=current_seq)
        self.current_seq = current_seq


class Throttled(ServiceError):
    """A cap on how much one account may do in a while (invitations per day); ``wait`` is the
    whole seconds until it allows more."""

    code = "throttled"
    status = 429

    def __init__(self, detail: str, *, wait: int) -> None:
        super().__init__(detail, wait=wait)
        self.wait = wait
