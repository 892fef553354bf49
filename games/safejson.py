"""JSON from strangers, with limits: every JSON body of the API and every JSON form field of the
web pages goes through here first.

Python's decoder recurses once per nesting level, so a body of a few thousand ``[`` makes it
raise ``RecursionError`` (a server error, not a parse error); even nesting the decoder survives
can break whatever walks the value next (a deep copy, the database's JSON type). And some text
is valid JSON that no database column can hold: PostgreSQL refuses ``\\u0000`` in text and JSON,
a lone surrogate (``\\ud800``) cannot be encoded as UTF-8 at all, and ``1e999`` decodes to an
infinity that JSON cannot write back. All of those are the sender's mistakes, answered with a
400 before anything else sees the value.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Deeper than any request of ours needs (an action or a card set is 3-4 levels deep).
MAX_DEPTH = 20
# Strings (so the brackets inside them do not count as nesting) and the brackets themselves.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class UnsafeJSON(ValueError):
    """Text that is not JSON we accept; the message is for the person who sent it."""


class UnstorableText(UnsafeJSON):
    """Valid JSON holding text or numbers that no database column can store."""


def _check_depth(text: str, max_depth: int) -> None:
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                raise UnsafeJSON(f"JSON nested deeper than {max_depth} levels is not accepted.")
        elif token in "]}":
            depth -= 1


def unstorable(value: Any) -> str | None:
    """Why ``value`` (decoded JSON, or a plain string) cannot be stored, or ``None`` if it can."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "Text may not contain NUL characters (\\u0000)."
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "Text may not contain unpaired surrogates (such as \\ud800)."
        elif isinstance(item, float) and not math.isfinite(item):
            # 1e999 decodes to infinity, which JSON cannot carry back out (nor PostgreSQL store).
            return "Numbers must be finite."
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for untrusted text: strict constants (no NaN or Infinity), bounded depth,
    and only values the database can store. Raises ``UnsafeJSON`` (a ``ValueError``)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise UnsafeJSON("The JSON is not valid UTF-8.") from None
    _check_depth(text, max_depth)
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:  # unreachable after the depth check; kept so it can never be a 500
        raise UnsafeJSON(f"JSON nested deeper than {max_depth} levels is not accepted.") from None
    except ValueError as exc:
        raise UnsafeJSON(f"Not valid JSON: {exc}") from None
    problem = unstorable(value)
    if problem is not None:
        raise UnstorableText(problem)
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
