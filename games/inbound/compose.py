"""A reply to one of our emails, written the way a mail client writes one: the typed text on
top, then "On <date>, <sender> wrote:" and the original quoted with ``>``. The development
outbox's reply box sends these, so a newcomer can play by mail without a mail server."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import formatdate, make_msgid


def quoted_text(original: EmailMessage) -> str:
    part = original.get_body(preferencelist=("plain",))
    text = str(part.get_content()) if part is not None else ""
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def reply_to(original: EmailMessage, text: str, *, sender: str | None = None) -> bytes:
    """The bytes of a reply to ``original`` saying ``text``, from its recipient (or ``sender``)
    to its Reply-To (or From)."""
    reply = EmailMessage()
    reply["From"] = sender or str(original.get("To", ""))
    reply["To"] = str(original.get("Reply-To") or original.get("From", ""))
    subject = " ".join(str(original.get("Subject", "")).split())
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["Date"] = formatdate(localtime=False)
    reply["Message-ID"] = make_msgid(domain="outbox.localhost")
    original_id = str(original.get("Message-ID", "")).strip()
    if original_id:
        reply["In-Reply-To"] = original_id
        reply["References"] = original_id
    attribution = f"On {original.get('Date', 'an earlier date')}, {original.get('From', 'you')} wrote:"
    reply.set_content(f"{text.strip()}\n\n{attribution}\n{quoted_text(original)}\n")
    return bytes(reply)
