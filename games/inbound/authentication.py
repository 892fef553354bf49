"""Whether a reply really comes from its From address: the receiving mail server's verdict.

A From header is whatever the sender typed. What the receiving server found out — SPF for the
envelope sender, DKIM signatures, DMARC for the From domain — reaches us in
``Authentication-Results`` headers (RFC 8601), parsed with ``authres``. Only the headers whose
authserv-id is ``INBOUND_TRUSTED_AUTHSERV_ID`` count: anyone can write such a header into a
message, naming any server, so the others are ignored (and the trusted server must remove
incoming ones that claim its id: see docker/README.md, "Receiving replies").

A reply is authenticated when, among the trusted results:
- no DMARC result is anything but ``pass`` or ``none`` (a ``fail`` — or an error — settles it);
- and either DMARC passed for the From domain, or (no DMARC policy: ``dmarc=none`` or no DMARC
  result) a DKIM signature passed whose ``header.d`` is aligned with the From domain, or SPF
  passed for an ``smtp.mailfrom`` whose domain is aligned with it.

Aligned is DMARC's relaxed alignment, simplified: the same domain, or one a subdomain of the
other (never a bare top-level name).

With no trusted authserv-id configured every reply counts as authenticated: the From header is
then all there is, which is for development only.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import Message

import authres

# RFC 8601 results that are a verdict in the sender's favour, per method.
_PASS = "pass"
_NO_POLICY = "none"


@dataclass(frozen=True)
class Verdict:
    """``passed`` or not, and ``reason``: why, in words for the sender (and the log)."""

    passed: bool
    reason: str


TRUSTED_FROM_ONLY = Verdict(True, "no trusted authserv-id configured: the From header is trusted")


def _domain(value: str) -> str:
    """The domain of an address or a bare domain, lowercased, without a trailing dot."""
    return value.strip().strip("<>").rpartition("@")[2].strip().rstrip(".").lower()


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment, simplified: the same domain, or one a subdomain of the other. A
    top-level name (no dot) aligns with nothing but itself, and a From domain has a dot."""
    domain, from_domain = _domain(domain), _domain(from_domain)
    if not domain or not from_domain or "." not in domain or "." not in from_domain:
        return False
    return domain == from_domain or from_domain.endswith("." + domain) or domain.endswith("." + from_domain)


def _parsed(value: str) -> authres.AuthenticationResultsHeader | None:
    try:
        return authres.parse_value(value)
    except (authres.AuthResError, ValueError, TypeError, IndexError):
        return None  # unparseable: it says nothing, whoever wrote it


def authserv_id_of(value: str) -> str:
    """The authserv-id of one Authentication-Results value, lowercased ("" if unparseable)."""
    header = _parsed(value)
    return str(header.authserv_id or "").strip().lower() if header is not None else ""


def _trusted_results(message: Message, authserv_id: str) -> list[authres.core.AuthenticationResult]:
    results: list[authres.core.AuthenticationResult] = []
    wanted = authserv_id.strip().lower()
    for value in message.get_all("Authentication-Results") or []:
        header = _parsed(str(value))
        if header is not None and str(header.authserv_id or "").strip().lower() == wanted:
            results.extend(header.results)
    return results


def _property(result: authres.core.AuthenticationResult, kind: str, name: str) -> str:
    for prop in result.properties:
        if str(prop.type).lower() == kind and str(prop.name).lower() == name:
            return str(prop.value or "")
    return ""


def check(message: Message, sender: str, authserv_id: str) -> Verdict:
    """The verdict on ``message`` from ``sender`` (its strictly parsed From address), by the
    ``Authentication-Results`` of the server named ``authserv_id`` ("" trusts the From)."""
    if not authserv_id.strip():
        return TRUSTED_FROM_ONLY
    from_domain = _domain(sender)
    if "@" not in sender or not from_domain:
        return Verdict(False, "the From address could not be read")
    results = _trusted_results(message, authserv_id)
    if not results:
        return Verdict(False, "our mail server recorded no SPF, DKIM or DMARC result for it")
    dmarc = [r for r in results if str(r.method).lower() == "dmarc"]
    verdicts = {str(r.result).lower() for r in dmarc}
    failed = sorted(verdicts - {_PASS, _NO_POLICY})
    if failed:
        return Verdict(False, f"DMARC for {from_domain} did not pass ({', '.join(failed)})")
    for result in dmarc:
        header_from = _property(result, "header", "from")
        if str(result.result).lower() == _PASS and (not header_from or _domain(header_from) == from_domain):
            return Verdict(True, f"DMARC passed for {from_domain}")
    for result in results:
        method, outcome = str(result.method).lower(), str(result.result).lower()
        if outcome != _PASS:
            continue
        if method == "dkim" and aligned(_property(result, "header", "d"), from_domain):
            return Verdict(True, f"a DKIM signature aligned with {from_domain} passed")
        if method == "spf" and aligned(_property(result, "smtp", "mailfrom"), from_domain):
            return Verdict(True, f"SPF passed for an envelope sender aligned with {from_domain}")
    return Verdict(False, f"neither DMARC, nor DKIM or SPF aligned with {from_domain}, passed")
