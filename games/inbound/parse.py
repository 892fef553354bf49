"""Reading an incoming email: is it automatic, who sent it, to which addresses, and what did
the person write above the quoted original.

The quoted original, the client's "On … wrote:" or Outlook header block and the signature are
removed by mail-parser-reply (a maintained port of GitHub's email_reply_parser that knows the
reply headers of common clients in several languages). An HTML-only reply is first rendered
as text with blockquotes as ``>`` quotes, which is what the parser reads. Every step is
bounded: the message size is capped before parsing, and only the first ``MAX_TEXT_CHARS`` of
its text, in lines of at most ``MAX_LINE_CHARS``, are read.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser

# The reply's own text comes first; nothing a person types as a move is longer than this.
# Lines are cut too: the parser's header patterns take time quadratic in a line's length.
MAX_TEXT_CHARS = 8_000
MAX_LINE_CHARS = 400
MAX_HTML_CHARS = 200_000
# A command is looked for in the first lines of the reply's own text only.
MAX_COMMAND_LINES = 10
REPLY_LANGUAGES = ["en", "de", "fr", "nl", "es", "it", "sv", "da", "pl"]
# Headers that may name the address a message was delivered to, besides the envelope.
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "To", "Cc")

_AUTOMATIC_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
_AUTOMATIC_SENDERS = {"mailer-daemon", "postmaster", "noreply", "no-reply", "do-not-reply"}
_AUTOMATIC_SUBJECTS = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response)|out of (the )?office|undeliverable|"
    r"delivery status notification|returned mail|mail delivery failed|abwesenheitsnotiz|"
    r"r[ée]ponse automatique)",
    re.IGNORECASE,
)
_MOVE = re.compile(r"(?:move|play|number|no\.?|nr\.?|#)?\s*#?\s*(\d{1,6})\s*[.)!]?")
_WORD = re.compile(r"(pass|join)\s*[.!]?")


def parse(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def automatic_reason(message: Message, envelope_sender: str | None = None) -> str:
    """Why ``message`` was sent by a machine (RFC 3834 and the headers auto-responders and
    bounces carry), or "" when a person sent it. Such mail is never answered: an answer to an
    auto-reply is how mail loops start."""
    auto = str(message.get("Auto-Submitted", "")).split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    # (Not X-Auto-Response-Suppress: Exchange's own out-of-office notes carry Auto-Submitted,
    # and a person's message that asks for no auto-replies is still a person's message.)
    for header in ("X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Failed-Recipients"):
        if message.get(header) is not None:
            return header
    if str(message.get("Precedence", "")).strip().lower() in _AUTOMATIC_PRECEDENCE:
        return "Precedence"
    if message.get_content_type() == "multipart/report":
        return "a delivery or read report"
    if envelope_sender is not None and envelope_sender.strip() in ("", "<>"):
        return "empty envelope sender (a bounce)"
    if str(message.get("Return-Path", "")).strip() == "<>":
        return "empty Return-Path (a bounce)"
    local = sender_of(message).partition("@")[0]
    if local in _AUTOMATIC_SENDERS:
        return f"sent by {local}"
    if _AUTOMATIC_SUBJECTS.match(str(message.get("Subject", ""))):
        return "an automatic subject"
    return ""


def sender_of(message: Message) -> str:
    """The From address, lowercased; "" unless there is exactly one."""
    found = [address for _name, address in getaddresses(message.get_all("From", [])) if address]
    return found[0].strip().lower() if len(found) == 1 else ""


def recipients_of(message: Message, envelope: list[str]) -> list[str]:
    """Every address the message may have been delivered to: the envelope's first."""
    addresses = [parseaddr(address)[1] or address for address in envelope if address]
    for header in RECIPIENT_HEADERS:
        addresses += [address for _name, address in getaddresses(message.get_all(header, [])) if address]
    return addresses


def message_key(message: Message, raw: bytes) -> str:
    """A digest naming this message wherever it is delivered from: of its Message-ID, or of
    the whole message when it has none."""
    message_id = str(message.get("Message-ID", "")).strip()
    basis = message_id.encode("utf-8", "replace") if message_id else raw
    return hashlib.sha256(basis).hexdigest()


class _HtmlText(HTMLParser):
    """HTML as the text a mail client would show: blocks on their own lines, blockquotes as
    ``>`` quotes (so the reply parser sees an HTML reply as it sees a plain one)."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr",
                        "table", "ul", "ol", "dl", "dt", "dd"})
    SKIP = frozenset({"head", "style", "script", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0  # blockquotes open
        self.line_depth = 0
        self.skipping = 0

    def _break(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.lines.append("> " * self.line_depth + text)
        elif self.line_depth == 0 and self.lines and self.lines[-1]:
            self.lines.append("")  # one blank line between blocks; none inside quotes
        self.current = []
        self.line_depth = self.depth

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif tag == "blockquote":
            self._break()
            self.depth += 1
            self.line_depth = self.depth
        elif tag in self.BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag == "blockquote":
            self._break()
            self.depth = max(0, self.depth - 1)
            self.line_depth = self.depth
        elif tag in self.BLOCKS:
            self._break()

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            if not self.current:
                self.line_depth = self.depth
            self.current.append(data)

    def text(self) -> str:
        self._break()
        return "\n".join(self.lines).strip()


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    parser.feed(html[:MAX_HTML_CHARS])
    parser.close()
    return parser.text()


def body_text(message: EmailMessage) -> str:
    """The message's text: its plain part, or its HTML part rendered as text."""
    for kind in ("plain", "html"):
        part = message.get_body(preferencelist=(kind,))
        if part is None:
            continue
        try:
            content = part.get_content()
        except (LookupError, UnicodeError, AssertionError, KeyError):
            continue
        if not isinstance(content, str):
            continue
        text = html_to_text(content) if kind == "html" else content
        if text.strip():
            return "\n".join(line[:MAX_LINE_CHARS] for line in text[:MAX_TEXT_CHARS].splitlines())
    return ""


def reply_text(message: EmailMessage) -> str:
    """What the person wrote: the latest reply without the quoted original or signature."""
    text = body_text(message)
    if not text.strip():
        return ""
    parsed = EmailReplyParser(languages=list(REPLY_LANGUAGES)).read(text=text)
    return parsed.replies[0].body if parsed.replies else ""


@dataclass(frozen=True)
class Command:
    """What a reply asks for: ``move`` (with its number), ``pass``, ``join``, ``empty`` or
    ``unreadable`` (with what was said, shortened)."""

    kind: str
    number: int | None = None
    said: str = ""


def read_command(text: str) -> Command:
    """The command in the reply's own text: the first of its lines that is one ("3", "3." or
    "move 3" plays move 3, "pass" passes, "join" takes an invited seat), so a greeting above
    the number does no harm. A bottom-posted reply still has the quoted original above its
    text: quoted lines are skipped."""
    lines = [line for line in (" ".join(raw.split()) for raw in text.splitlines()) if line]
    own = [line for line in lines if not line.startswith(">")][:MAX_COMMAND_LINES]
    if not own:
        return Command("empty")
    for line in own:
        words = line.lower()
        if (found := _MOVE.fullmatch(words)) is not None:
            return Command("move", number=int(found.group(1)), said=line)
        if (found := _WORD.fullmatch(words)) is not None:
            return Command(found.group(1), said=line)
    first = own[0]
    return Command("unreadable", said=first if len(first) <= 60 else first[:57] + "...")
