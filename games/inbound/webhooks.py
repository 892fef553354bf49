"""Hosted providers' inbound webhooks (django-anymail): ``POST /mail/inbound/<provider>/``.

The provider receives the reply, checks nothing of ours, and posts it here; anymail checks the
request (HTTP basic auth with ``ANYMAIL_WEBHOOK_SECRET`` for every provider, plus the
provider's own signature where it signs: Mailgun's HMAC, Amazon SNS's certificate signature,
MailerSend's signing secret) and turns it into a message, which goes to ``receive`` like
any other. A provider is answered 404 until its webhook is configured: without the secret
the webhook would be open to anyone, and we never run it that way. A request larger than a
few messages is answered 200 unread, so the provider does not retry it.
"""

from __future__ import annotations

import logging
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


def on_inbound(sender: Any, event: AnymailInboundEvent, esp_name: str, **kwargs: Any) -> None:
    """anymail's ``inbound`` signal: a verified provider post carried this message."""
    message: AnymailInboundMessage = event.message
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
