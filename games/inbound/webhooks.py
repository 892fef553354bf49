"""Hosted providers' inbound webhooks (django-anymail): ``POST /mail/inbound/<provider>/``.

The provider receives the reply, checks nothing of ours, and posts it here; anymail checks the
request (HTTP basic auth with ``ANYMAIL_WEBHOOK_SECRET`` for every provider, plus the
provider's own signature where it signs: Mailgun's HMAC, Amazon SNS's certificate signature,
MailerSend's signing secret) and turns it into a message, which goes to ``receive`` like
any other. A provider is answered 404 until its webhook is configured: without the secret
the webhook would be open to anyone, and we never run it that way. A request larger than a
few messages is answered 200 unread, so the provider does not retry it.

Authentication (``INBOUND_TRUSTED_AUTHSERV_ID``, games/inbound/authentication.py): where the
provider's verified post carries its own SPF/DKIM/DMARC verdicts — Amazon SES (the receipt's
``dmarcVerdict`` and ``spfVerdict``) and SendGrid Inbound Parse (its ``SPF`` and ``dkim``
fields) — they are written into the message as an Authentication-Results header of the
trusted authserv-id, after every header the message already had under that id is removed
(the sender could have written one). The other providers post no verdicts we can trust, so
with the setting on, their replies are not authenticated (see docker/README.md).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from anymail.inbound import AnymailInboundMessage
from anymail.signals import AnymailInboundEvent, inbound
from anymail.webhooks.amazon_ses import AmazonSESInboundWebhookView
from anymail.webhooks.base import AnymailCoreWebhookView
from anymail.webhooks.brevo import BrevoInboundWebhookView
from anymail.webhooks.mailersend import MailerSendInboundWebhookView
from anymail.webhooks.mailgun import MailgunInboundWebhookView
from anymail.webhooks.mailjet import MailjetInboundWebhookView
from anymail.webhooks.postmark import PostmarkInboundWebhookView
from anymail.webhooks.sendgrid import SendGridInboundWebhookView
from anymail.webhooks.sparkpost import SparkPostInboundWebhookView
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from games.inbound import authentication
from games.inbound.handle import receive
from games.inbound.limits import max_bytes

log = logging.getLogger(__name__)

PROVIDERS: dict[str, type[AnymailCoreWebhookView]] = {
    "amazon_ses": AmazonSESInboundWebhookView,
    "brevo": BrevoInboundWebhookView,
    "mailersend": MailerSendInboundWebhookView,
    "mailgun": MailgunInboundWebhookView,
    "mailjet": MailjetInboundWebhookView,
    "postmark": PostmarkInboundWebhookView,
    "sendgrid": SendGridInboundWebhookView,
    "sparkpost": SparkPostInboundWebhookView,
}
# A provider's post carries the message more than once (text, HTML, raw MIME, encoded).
REQUEST_FACTOR = 4


def _configured(view_class: type[AnymailCoreWebhookView]) -> bool:
    if not settings.ANYMAIL.get("WEBHOOK_SECRET"):
        return False
    try:
        view_class()  # anymail refuses here when the provider's own keys are missing
    except (ImproperlyConfigured, ImportError):
        return False
    return True


@csrf_exempt
def inbound_webhook(request: HttpRequest, provider: str) -> HttpResponse:
    view_class = PROVIDERS.get(provider)
    if view_class is None or not _configured(view_class):
        raise Http404("No such inbound webhook.")
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > REQUEST_FACTOR * max_bytes():
        log.info("inbound webhook %s: a post of %s bytes ignored (over the size limit)", provider, length)
        return HttpResponse("ignored: too large")
    response: HttpResponse = view_class.as_view()(request)
    return response


# SES's verdict statuses as RFC 8601 results ("GRAY": the domain publishes no policy).
_SES_DMARC = {"PASS": "pass", "FAIL": "fail", "GRAY": "none", "PROCESSING_FAILED": "temperror"}
_SES_SPF = {"PASS": "pass", "FAIL": "fail", "GRAY": "none", "PROCESSING_FAILED": "temperror"}
# SendGrid's dkim field: "{@example.org : pass}", one entry per signature.
_SENDGRID_DKIM = re.compile(r"@([A-Za-z0-9.-]+)\s*:\s*([a-z]+)")
_TOKEN = re.compile(r"[A-Za-z0-9.@_+-]+")


def provider_results(esp_name: str, event: AnymailInboundEvent) -> list[str]:
    """The provider's own verdicts on the message, as RFC 8601 results ("" for a provider
    that posts none). Only values that are plain tokens are written."""
    sender = str(event.message.envelope_sender or "")
    results: list[str] = []
    if esp_name == "Amazon SES" and isinstance(event.esp_event, dict):
        receipt = event.esp_event.get("receipt") or {}
        dmarc = _SES_DMARC.get(str((receipt.get("dmarcVerdict") or {}).get("status", "")).upper())
        spf = _SES_SPF.get(str((receipt.get("spfVerdict") or {}).get("status", "")).upper())
        if dmarc:
            results.append(f"dmarc={dmarc}")
        if spf and _TOKEN.fullmatch(sender):
            results.append(f"spf={spf} smtp.mailfrom={sender}")
    elif esp_name == "SendGrid":
        post = getattr(event.esp_event, "POST", {})
        spf = str(post.get("SPF", "")).strip().lower()
        if spf in ("pass", "fail", "softfail", "neutral", "none") and _TOKEN.fullmatch(sender):
            results.append(f"spf={spf} smtp.mailfrom={sender}")
        for domain, outcome in _SENDGRID_DKIM.findall(str(post.get("dkim", ""))):
            results.append(f"dkim={outcome} header.d={domain}")
    return results


def with_provider_verdicts(message: AnymailInboundMessage, esp_name: str, event: AnymailInboundEvent) -> None:
    """Writes the provider's verdicts into ``message`` under the trusted authserv-id, after
    removing every Authentication-Results header that claims that id (the sender's own)."""
    authserv_id = str(settings.INBOUND_TRUSTED_AUTHSERV_ID)
    results = provider_results(esp_name, event) if authserv_id else []
    if not results:
        return
    others = [str(value) for value in message.get_all("Authentication-Results") or []
              if authentication.authserv_id_of(str(value)) not in ("", authserv_id.lower())]
    del message["Authentication-Results"]
    for value in others:
        message["Authentication-Results"] = value
    message["Authentication-Results"] = f"{authserv_id}; " + "; ".join(results)


def on_inbound(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    """anymail's ``inbound`` signal: a verified provider post carried this message."""
    message: AnymailInboundMessage = event.message
    with_provider_verdicts(message, esp_name, event)
    recipients = [message.envelope_recipient] if message.envelope_recipient else []
    try:
        raw = message.as_bytes()
    except (ValueError, TypeError, LookupError, UnicodeError):
        log.info("inbound webhook %s: a message that cannot be serialised ignored", esp_name, exc_info=True)
        return
    outcome = receive(raw, recipients=recipients, envelope_sender=message.envelope_sender or None)
    log.info("inbound webhook %s: %s", esp_name, outcome.status)


def connect() -> None:
    inbound.connect(on_inbound, dispatch_uid="games.inbound.webhooks")
