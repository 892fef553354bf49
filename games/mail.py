"""The development email backend: one .eml file per message in EMAIL_OUTBOX_DIR.

The development outbox page reads these files back, so a person trying the service sees
every email without a mail server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage as ParsedMessage
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.message import EmailMessage


class OutboxEmailBackend(BaseEmailBackend):
    def __init__(self, fail_silently: bool = False, **kwargs: Any) -> None:
        super().__init__(fail_silently=fail_silently, **kwargs)
        self.folder = Path(settings.EMAIL_OUTBOX_DIR)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        self.folder.mkdir(parents=True, exist_ok=True)
        sent = 0
        for message in email_messages:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
            name = f"{stamp}-{uuid.uuid4().hex[:8]}.eml"
            temporary = self.folder / f".{name}.tmp"
            temporary.write_bytes(message.message().as_bytes())
            # Rename so the outbox page never reads a half-written file.
            os.replace(temporary, self.folder / name)
            sent += 1
        return sent


@dataclass(frozen=True)
class OutboxEntry:
    name: str
    subject: str
    to: str
    sender: str
    date: str
    text: str
    html: str | None
    reply_to: str = ""


def _parse(path: Path) -> ParsedMessage:
    parsed = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert isinstance(parsed, ParsedMessage)
    return parsed


def _read(path: Path) -> OutboxEntry:
    parsed = _parse(path)
    text_part = parsed.get_body(preferencelist=("plain",))
    html_part = parsed.get_body(preferencelist=("html",))
    return OutboxEntry(
        name=path.name,
        subject=str(parsed.get("Subject", "")),
        to=str(parsed.get("To", "")),
        sender=str(parsed.get("From", "")),
        date=str(parsed.get("Date", "")),
        text=text_part.get_content() if text_part is not None else "",
        html=html_part.get_content() if html_part is not None else None,
        reply_to=str(parsed.get("Reply-To", "")),
    )


def outbox_entries(limit: int = 200) -> list[OutboxEntry]:
    folder = Path(settings.EMAIL_OUTBOX_DIR)
    if not folder.is_dir():
        return []
    paths = sorted((p for p in folder.glob("*.eml")), reverse=True)[:limit]
    return [_read(p) for p in paths]


def _outbox_path(name: str) -> Path | None:
    path = Path(settings.EMAIL_OUTBOX_DIR) / name
    # Only plain file names of this folder: nothing outside it can be read.
    if "/" in name or "\\" in name or not name.endswith(".eml"):
        return None
    try:
        found = path.is_file()
    except (OSError, ValueError):  # a name too long for the file system is no entry either
        return None
    return path if found else None


def outbox_entry(name: str) -> OutboxEntry | None:
    path = _outbox_path(name)
    return _read(path) if path is not None else None


def outbox_message(name: str) -> ParsedMessage | None:
    """The email itself (for the reply box, which answers it as a mail client would)."""
    path = _outbox_path(name)
    return _parse(path) if path is not None else None
