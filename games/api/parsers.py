"""The API's JSON parser: DRF's, with the limits of ``games.safejson`` and a body size cap.

Set as the default parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``), so every endpoint
that reads a body, including those open to anonymous callers, parses through it.
"""

from __future__ import annotations

from typing import IO, Any

from rest_framework import exceptions, status
from rest_framework.parsers import JSONParser as DRFJSONParser

from games import safejson

# The largest request of the API is a game with a custom card set (a few kilobytes); the
# options themselves are capped at MAX_OPTIONS_BYTES by the service.
MAX_BODY_BYTES = 256 * 1024


class BodyTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = f"The request body is larger than {MAX_BODY_BYTES // 1024} KB."
    default_code = "too_large"


class JSONParser(DRFJSONParser):
    def parse(self, stream: IO[Any], media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read(MAX_BODY_BYTES + 1)
        if len(raw) > MAX_BODY_BYTES:
            raise BodyTooLarge()
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        try:
            text = raw.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            raise exceptions.ParseError(f"The body is not valid {encoding} text.") from None
        try:
            return safejson.loads(text)
        except safejson.UnstorableText as exc:
            # Well-formed JSON whose text no database can store: invalid input, not bad syntax.
            raise exceptions.ValidationError(str(exc)) from None
        except safejson.UnsafeJSON as exc:
            raise exceptions.ParseError(str(exc)) from None
