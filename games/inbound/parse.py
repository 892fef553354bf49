"""Reading an incoming email: is it automatic, who sent it, to which addresses, and what did
the person write.

What the person wrote is every line of the reply that is not the quoted original, wherever it
stands: above the quote (top-posting), below it (bottom-posting: Thunderbird, mutt, K-9) or
between quoted passages (interleaved). Removed are quoted lines (``>``, however deep), the
client's attribution line ("On … wrote:", also wrapped over two or three lines, in the
languages of ``ATTRIBUTION_VERBS``), and everything from an Outlook header block ("From: …
Sent: … To: … Subject:"), an "Original Message" separator or a signature ("-- ") on. Only an
unquoted "-- " starts a signature: the quoted footer of our own email (``> --``) is a quoted
line like any other, so text below it still counts. "Sent from my iPhone" lines are dropped.

An HTML-only reply is first rendered as text with blockquotes as ``>`` quotes; Outlook's
unquoted original (after ``<div id="appendonsend">`` / ``divRplyFwdMsg``) is cut there, and
Outlook's and Gmail's signature blocks start a signature. A text part whose charset is unknown,
or whose bytes are not valid in it, is not guessed at: the reply is ``undecodable`` (and
answered so) unless another part of it can be read.

Every step is bounded: the message size is capped before parsing, only the first
``MAX_TEXT_CHARS`` of its text are read, in lines of at most ``MAX_LINE_CHARS``, and each line
is looked at a bounded number of times.
"""

from __future__ import annotations

import codecs
import hashlib
import re
from dataclasses import dataclass
from email import errors, headerregistry, message_from_bytes, policy
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser
from typing import Any

# A bottom-posted reply's text comes after the whole quoted email, so the whole text is read
# (messages are capped at INBOUND_MAX_BYTES before this); lines are cut, and every pattern
# below runs on one cut line (or a window of three), so reading stays linear in the text.
MAX_TEXT_CHARS = 300_000
MAX_LINE_CHARS = 400
MAX_HTML_CHARS = 600_000
# A command is looked for in the first lines of the reply's own text only.
MAX_COMMAND_LINES = 10
# An attribution line may be wrapped over this many lines (Gmail wraps at the address).
MAX_ATTRIBUTION_LINES = 3
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

_QUOTED = re.compile(r"\s*>")
# "-- " is the signature separator (RFC 3676 4.3); clients and our line cleaning drop its space.
_SIGNATURE = re.compile(r"--\s*")
# The attribution line's verb, in the languages of the clients we read ("On … wrote:", "Am …
# schrieb …:", "Le … a écrit :", "El … escribió:", "Il … ha scritto:", "Op … schreef …:",
# "Den … skrev …:", "W dniu … napisał(a):", "Em … escreveu:"); the line ends with a colon.
ATTRIBUTION_VERBS = (
    "wrote", "writes", "schrieb", "a écrit", "escribió", "ha scritto", "schreef", "skrev",
    "napisał", "napisała", "napisał(a)", "escreveu", "kirjoitti",
)
_ATTRIBUTION = re.compile(
    r"(?:^|\W)(?:" + "|".join(re.escape(verb).replace("\\ ", r"\s+") for verb in ATTRIBUTION_VERBS)
    + r")(?:\W.{0,160})?\s?:$",
    re.IGNORECASE,
)
# The words a wrapped attribution starts with: only such a line is joined with the next ones.
_ATTRIBUTION_START = re.compile(
    r"(?:on|am|le|el|il|op|den|på|w\s+dniu|dnia|em|dne)\s", re.IGNORECASE
)
# Outlook's header block of the original: a "From:" line and another header line below it.
_HEADER_FROM = re.compile(
    r"\*?(?:from|von|de|van|da|från|fra|od|lähettäjä)\s?:\*?(?:\s|$)", re.IGNORECASE
)
_HEADER_OTHER = re.compile(
    r"\*?(?:sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|à|objet|verzonden|aan|"
    r"onderwerp|enviado|fecha|para|asunto|inviato|data|a|oggetto|skickat|till|ämne|sendt|dato|til|"
    r"emne|wysłano|do|temat)\s?:\*?(?:\s|$)",
    re.IGNORECASE,
)
HEADER_BLOCK_LINES = 5
# "-----Original Message-----", "-------- Ursprüngliche Nachricht --------", "---------- Forwarded
# message ---------", and Outlook's line of underscores above its header block.
_SEPARATOR = re.compile(r"-{3,}\s*[^\W\d_][^-]{0,60}?\s*-{3,}|_{10,}")
_SENT_FROM = re.compile(
    r"(?:sent from (?:my|mail|outlook|yahoo|samsung|proton)|sent with|sent via|get outlook for|"
    r"gesendet (?:von|mit)|von meinem \S+ gesendet|"
    r"envoyé (?:de|depuis)|enviado (?:desde|de)|inviato da|verstuurd (?:vanaf|met)|skickat från|"
    r"sendt fra|wysłane z)\b.{0,60}",
    re.IGNORECASE,
)
_HIDDEN_QUOTE = re.compile(
    r"\[(?:quoted text hidden|zitierter text ausgeblendet|texte des messages précédents masqué|"
    r"se ha ocultado el texto citado|testo citato nascosto)\]",
    re.IGNORECASE,
)


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
    if envelope_sender is not None and is_null_sender(envelope_sender):
        return "null envelope sender (a bounce)"
    if str(message.get("Return-Path", "")).strip() == "<>":
        return "empty Return-Path (a bounce)"
    local = sender_of(message).partition("@")[0]
    if local in _AUTOMATIC_SENDERS:
        return f"sent by {local}"
    if _AUTOMATIC_SUBJECTS.match(str(message.get("Subject", ""))):
        return "an automatic subject"
    return ""


def is_null_sender(envelope_sender: str) -> bool:
    """Whether an envelope sender is the null sender of a bounce (RFC 5321 4.5.5): empty, "<>",
    or ``MAILER-DAEMON`` (with or without a host, any case), which is how Postfix's pipe(8)
    passes a null sender unless its ``null_sender=`` is set."""
    bare = envelope_sender.strip().strip("<>").strip()
    return not bare or bare.partition("@")[0].strip().lower() == "mailer-daemon"


# Defects that leave the address itself exactly as written: an unquoted period in a display
# name ("Anne B. Bonny <anne@…>") and raw UTF-8 in a display name (RFC 6532). Any other defect
# means the parser had to guess, and a guess is never an identity.
_HARMLESS_FROM_DEFECTS = (errors.ObsoleteHeaderDefect, errors.UndecodableBytesDefect)


def sender_of(message: Message) -> str:
    """The address of the one From mailbox, lowercased; "" unless the header parses strictly.

    Parsed as RFC 5322 says (``email.headerregistry``), never by picking an address-looking
    string out of it: a display name or comment that looks like an address ("bob@example.org"
    <eve@x.org>, eve@x.org (bob@example.org)) never counts, and a header the parser must repair
    (bob@example.org (comment) <eve@x.org>, a missing ">"), a group, more than one mailbox or
    more than one From header gives no sender at all.
    """
    values = message.get_all("From") or []
    if len(values) != 1:
        return ""
    header: Any = values[0]
    if not isinstance(header, headerregistry.AddressHeader):
        # A message parsed with the compat32 policy: its raw value, parsed the strict way
        # (encoded words are decoded only where RFC 2047 allows them, never into an address).
        header = policy.default.header_factory("From", str(header))
    if any(not isinstance(defect, _HARMLESS_FROM_DEFECTS) for defect in header.defects):
        return ""
    if len(header.groups) != 1 or header.groups[0].display_name is not None:
        return ""
    if len(header.addresses) != 1:
        return ""
    address = header.addresses[0]
    spec = address.addr_spec
    if not address.username or not address.domain or any(ch.isspace() for ch in spec):
        return ""
    try:
        spec.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes (surrogates) in the address itself
        return ""
    return spec.lower()


def recipients_of(message: Message, envelope: list[str]) -> list[str]:
    """Every address the message may have been delivered to: the envelope's first."""
    addresses = [parseaddr(address)[1] or address for address in envelope if address]
    for header in RECIPIENT_HEADERS:
        addresses += [address for _name, address in getaddresses(message.get_all(header, [])) if address]
    return addresses


def message_key(message: Message, raw: bytes, sender: str) -> str:
    """A digest naming this message from this sender wherever it is delivered from: of its
    Message-ID and its sender, or of the whole message when it has no Message-ID. The sender is
    part of it because anyone can write any Message-ID: one player's (or a stranger's) reuse of
    another's must not make that other's message a duplicate."""
    message_id = str(message.get("Message-ID", "")).strip()
    if not message_id:
        return hashlib.sha256(raw).hexdigest()
    basis = f"{message_id}\n{sender.strip().lower()}".encode("utf-8", "replace")
    return hashlib.sha256(basis).hexdigest()


class _HtmlText(HTMLParser):
    """HTML as the text a mail client would show: blocks on their own lines, blockquotes as
    ``>`` quotes (so the reply parser sees an HTML reply as it sees a plain one)."""

    BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr",
                        "table", "ul", "ol", "dl", "dt", "dd"})
    SKIP = frozenset({"head", "style", "script", "title"})
    # Outlook (desktop, web, new) puts its header block and the unquoted original after these.
    CUT_IDS = frozenset({"appendonsend", "divrplyfwdmsg"})
    # Signature blocks without a "-- " line of their own (Outlook, Gmail).
    SIGNATURE_IDS = frozenset({"signature"})
    SIGNATURE_CLASSES = frozenset({"gmail_signature"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0  # blockquotes open
        self.line_depth = 0
        self.skipping = 0
        self.cut = False  # the rest is Outlook's original

    def _break(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.lines.append("> " * self.line_depth + text)
        elif self.line_depth == 0 and self.lines and self.lines[-1]:
            self.lines.append("")  # one blank line between blocks; none inside quotes
        self.current = []
        self.line_depth = self.depth

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cut:
            return
        found = dict(attrs)
        ident = (found.get("id") or "").strip().lower()
        classes = set((found.get("class") or "").lower().split())
        if ident in self.CUT_IDS:
            self._break()
            self.cut = True
            return
        if self.depth == 0 and (ident in self.SIGNATURE_IDS or classes & self.SIGNATURE_CLASSES):
            self._break()
            self.lines.append("-- ")
        if tag in self.SKIP:
            self.skipping += 1
        elif tag == "blockquote":
            self._break()
            self.depth += 1
            self.line_depth = self.depth
        elif tag in self.BLOCKS:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if self.cut:
            return
        if tag in self.SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag == "blockquote":
            self._break()
            self.depth = max(0, self.depth - 1)
            self.line_depth = self.depth
        elif tag in self.BLOCKS:
            self._break()

    def handle_data(self, data: str) -> None:
        if not self.skipping and not self.cut:
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


class UndecodableText(ValueError):
    """A text part in a charset we do not know, or with bytes that are not valid in it."""

    def __init__(self, charset: str) -> None:
        super().__init__(f"text in charset {charset!r} cannot be decoded")
        self.charset = charset


def _decoded(part: Message) -> str:
    """The part's text, decoded strictly: no guessing and no replacement characters, which
    could turn a mangled reply into a different move."""
    charset = (part.get_content_charset() or "us-ascii").strip()
    try:
        codec = codecs.lookup(charset).name
    except LookupError:
        raise UndecodableText(charset[:40]) from None
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        return payload.decode(codec)
    except UnicodeDecodeError:
        raise UndecodableText(charset[:40]) from None


def body_text(message: EmailMessage) -> str:
    """The message's text: its plain part, or its HTML part rendered as text. Raises
    ``UndecodableText`` when a part has text that cannot be decoded and no part can be read."""
    undecodable: UndecodableText | None = None
    for kind in ("plain", "html"):
        part = message.get_body(preferencelist=(kind,))
        if part is None:
            continue
        try:
            content = _decoded(part)
        except UndecodableText as exc:
            undecodable = undecodable or exc
            continue
        except (LookupError, UnicodeError, AssertionError, KeyError, ValueError):
            continue
        text = html_to_text(content[:MAX_HTML_CHARS]) if kind == "html" else content
        if text.strip():
            return "\n".join(line[:MAX_LINE_CHARS] for line in text[:MAX_TEXT_CHARS].splitlines())
    if undecodable is not None:
        raise undecodable
    return ""


def _attribution_end(lines: list[str], start: int) -> int | None:
    """When an attribution line ("On … wrote:") starts at ``lines[start]``, the index after its
    last line (a wrapped one takes up to ``MAX_ATTRIBUTION_LINES``); None otherwise."""
    if _ATTRIBUTION.search(lines[start]):
        return start + 1
    if not _ATTRIBUTION_START.match(lines[start]):
        return None
    joined = lines[start]
    for end in range(start + 1, min(start + MAX_ATTRIBUTION_LINES, len(lines))):
        if not lines[end] or _QUOTED.match(lines[end]):
            return None
        joined = f"{joined} {lines[end]}"
        if _ATTRIBUTION.search(joined):
            return end + 1
    return None


def _header_block(lines: list[str], start: int) -> bool:
    """Does an Outlook header block of the original ("From: …", "Sent: …", …) start here?"""
    if not _HEADER_FROM.match(lines[start]):
        return False
    following = lines[start + 1 : start + HEADER_BLOCK_LINES]
    return any(_HEADER_OTHER.match(line) for line in following)


def own_lines(text: str) -> list[str]:
    """The lines the person wrote, in order, wherever they stand around the quoted original."""
    lines = [line.strip() for line in text.splitlines()]
    own: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line or _QUOTED.match(line) or _HIDDEN_QUOTE.fullmatch(line) or _SENT_FROM.fullmatch(line):
            index += 1
            continue
        if _SIGNATURE.fullmatch(line) or _SEPARATOR.fullmatch(line) or _header_block(lines, index):
            break  # a signature, or the original after a separator or header block: nothing of theirs follows
        end = _attribution_end(lines, index)
        if end is not None:
            following = next((lines[later] for later in range(end, len(lines)) if lines[later]), "")
            if following and not _QUOTED.match(following):
                break  # the original follows unquoted
            index = end
            continue
        own.append(line)
        index += 1
    return own


def reply_text(message: EmailMessage) -> str:
    """What the person wrote: the reply without the quoted original, its attribution line, an
    Outlook header block or the signature (raises ``UndecodableText``, see ``body_text``)."""
    return "\n".join(own_lines(body_text(message)))


def read_reply(message: EmailMessage) -> Command:
    """The command in ``message``: ``undecodable`` (with the charset as what was said) when
    its text cannot be decoded."""
    try:
        text = reply_text(message)
    except UndecodableText as exc:
        return Command("undecodable", said=exc.charset)
    return read_command(text)


@dataclass(frozen=True)
class Command:
    """What a reply asks for: ``move`` (with its number), ``pass``, ``join``, ``empty``,
    ``unreadable`` (with what was said, shortened) or ``undecodable`` (with the charset)."""

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
