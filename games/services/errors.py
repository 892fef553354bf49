"""The errors the services raise live in ``games.errors`` (below every layer: the read model
and the selectors raise them too); named here as well, where the services' callers look."""

from games.errors import (
    AddressNotVerified,
    Conflict,
    Forbidden,
    IllegalMove,
    InvalidInput,
    NotFound,
    ServiceError,
    StaleSeq,
    Throttled,
)

__all__ = [
    "AddressNotVerified", "Conflict", "Forbidden", "IllegalMove", "InvalidInput", "NotFound", "ServiceError",
    "StaleSeq", "Throttled",
]
