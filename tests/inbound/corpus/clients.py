"""Replies to one of our turn emails as real mail clients write them.

Everything quoted comes from the turn email passed in (its text, its HTML, its Date, From,
Subject and Message-ID), so the corpus always quotes what our templates render now, footer
included. What differs between clients is how they write the rest, and that follows what each
client does:

- Thunderbird: ``format=flowed`` text plus HTML, "On 05/03/2025 10:02, X wrote:" (localized:
  "Le 05/03/2025 à 10:02, X a écrit :"), HTML quote in ``<blockquote type="cite">`` after a
  ``moz-cite-prefix``; its signature is ``-- `` in a ``moz-signature`` block. Top- or
  bottom-posts as the account is set up.
- mutt / NeoMutt: text only, "On Wed, Mar 05, 2025 at 10:02:00AM +0000, X wrote:", bottom-posted
  or interleaved, the original quoted whole (its ``> --`` footer too).
- Apple Mail (macOS) and iPhone Mail: "On 5 Mar 2025, at 10:02, X <a@b> wrote:" (the iPhone
  quotes the attribution as well), "Sent from my iPhone".
- Gmail web: the attribution wrapped at the address, HTML in ``gmail_quote`` /
  ``gmail_attr``, signature ``-- `` + ``gmail_signature``; German "Am Mi., 5. März 2025 um 10:02
  Uhr schrieb X <\\na@b>:". Gmail app (Android): "On Wed, 5 Mar 2025, 10:02 X, <a@b> wrote:".
- Outlook desktop: the original unquoted below "From: … Sent: … To: … Subject:" (German "Von: …
  Gesendet: … An: … Betreff:"), HTML with Word's bordered header ``<div>``. Outlook on the web:
  HTML only, ``<div id="appendonsend">``, ``<hr>``, ``<div id="divRplyFwdMsg">``, the original
  unquoted after it.
- K-9 Mail: "On March 5, 2025 10:02:00 AM UTC, X <a@b> wrote:", its default signature, either
  quoting style ("prefix" with ``>``, or "header": "-------- Original Message --------" above the
  original's headers).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, parseaddr, parsedate_to_datetime

TOP = "top"
BOTTOM = "bottom"
INTERLEAVED = "interleaved"
LAYOUTS = (TOP, BOTTOM, INTERLEAVED)

NAME = "Anne Bonny"  # the player's name in their own mail client
SIGNATURE = "Anne Bonny\nCaptain of the Revenge"
K9_SIGNATURE = "Sent from my Android device with K-9 Mail. Please excuse my brevity."
# How long after the turn email the reply is written.
WRITING_TIME = timedelta(minutes=12)

DE_WEEKDAYS = ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."]
DE_WEEKDAYS_LONG = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]
DE_MONTHS = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]


@dataclass(frozen=True)
class Original:
    """The turn email as the player's mail client received it."""

    message: EmailMessage

    @property
    def text(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return str(part.get_content()).replace("\r\n", "\n").rstrip("\n")

    @property
    def html_body(self) -> str:
        """What a client embeds of the original's HTML: the inside of its ``<body>``."""
        part = self.message.get_body(preferencelist=("html",))
        assert part is not None
        content = str(part.get_content())
        found = re.search(r"<body[^>]*>(.*)</body>", content, re.DOTALL | re.IGNORECASE)
        return (found.group(1) if found else content).strip()

    @property
    def date(self) -> datetime:
        sent = parsedate_to_datetime(str(self.message["Date"]))
        # "-0000" (RFC 5322: UTC, no local time known) parses as a naive time.
        return sent if sent.tzinfo is not None else sent.replace(tzinfo=UTC)

    @property
    def sender_name(self) -> str:
        return parseaddr(str(self.message["From"]))[0] or "Pirates by Mail"

    @property
    def sender_address(self) -> str:
        return parseaddr(str(self.message["From"]))[1]

    @property
    def reply_address(self) -> str:
        return parseaddr(str(self.message.get("Reply-To") or self.message["From"]))[1]

    @property
    def player_address(self) -> str:
        return getaddresses([str(self.message["To"])])[0][1]

    @property
    def subject(self) -> str:
        return " ".join(str(self.message["Subject"]).split())

    @property
    def message_id(self) -> str:
        return str(self.message["Message-ID"]).strip()


@dataclass(frozen=True)
class Reply:
    """What the person typed and where: ``layout`` is top, bottom or interleaved (typed
    between the list of moves and the rest of the quote); ``signature`` adds theirs."""

    typed: str
    layout: str = TOP
    signature: bool = False
    token: str = "0"  # makes the reply's Message-ID its own


def quote(text: str, prefix: str = ">") -> str:
    return "\n".join(f"{prefix} {line}" if line else prefix for line in text.split("\n"))


def split_at_moves(text: str) -> tuple[str, str]:
    """The original cut after its list of moves (where an interleaving player answers)."""
    lines = text.split("\n")
    cut = next(
        (i for i, line in enumerate(lines) if line.startswith("Reply with the number")), len(lines) // 2
    )
    return "\n".join(lines[:cut]).rstrip("\n"), "\n".join(lines[cut:])


def html_text(text: str) -> str:
    """Typed text as a client's editor writes it: one ``<div>`` a line, ``<br>`` for a blank."""
    return "".join(
        f"<div>{html.escape(line)}</div>" if line else "<div><br></div>" for line in text.split("\n")
    )


def _headers(
    reply: EmailMessage,
    original: Original,
    typed: Reply,
    *,
    subject_prefix: str = "Re: ",
    message_id: str,
    extra: dict[str, str] | None = None,
) -> None:
    date = original.date + WRITING_TIME
    reply["Date"] = format_datetime(date)
    reply["From"] = f"{NAME} <{original.player_address}>"
    reply["To"] = f"{original.sender_name} <{original.reply_address}>"
    reply["Subject"] = subject_prefix + original.subject
    reply["Message-ID"] = message_id.replace("{ID}", typed.token)
    reply["In-Reply-To"] = original.message_id
    reply["References"] = " ".join(
        part for part in (str(original.message.get("References", "")).strip(), original.message_id) if part
    )
    for name, value in (extra or {}).items():
        reply[name] = value


def html_only(raw: bytes) -> bytes:
    """The same reply sent as HTML only (clients set to "HTML only", or Outlook on the web)."""
    from email import message_from_bytes, policy

    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    part = message.get_body(preferencelist=("html",))
    assert part is not None
    single = EmailMessage()
    for name, value in message.items():
        if name.lower() not in ("content-type", "content-transfer-encoding", "mime-version"):
            single[name] = value
    single.set_content(str(part.get_content()), subtype="html", charset="utf-8", cte="quoted-printable")
    return bytes(single)


def _with_parts(
    reply: EmailMessage,
    text: str | None,
    html_part: str | None,
    *,
    flowed: bool = False,
    text_cte: str = "quoted-printable",
    html_cte: str = "quoted-printable",
) -> bytes:
    if text is not None:
        reply.set_content(text + "\n", subtype="plain", charset="utf-8", cte=text_cte)
        if flowed:
            reply.set_param("format", "flowed")
    if html_part is not None:
        document = (
            f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head>'
            f"<body>{html_part}</body></html>\n"
        )
        if text is None:
            reply.set_content(document, subtype="html", charset="utf-8", cte=html_cte)
        else:
            reply.add_alternative(document, subtype="html", charset="utf-8", cte=html_cte)
    return bytes(reply)


def _arrange(
    typed: str,
    signature: str | None,
    attribution: str,
    quoted: str,
    original_text: str,
    layout: str,
    *,
    prefix: str = ">",
    separator: str = "\n\n",
) -> str:
    """The plain text of a reply: typed text, signature and quote in the layout's order."""
    own = typed.strip("\n")
    sig = f"-- \n{signature}" if signature else ""
    if layout == TOP:
        return "\n\n".join(part for part in (own, sig, attribution + separator.rstrip(" ") + quoted) if part)
    if layout == BOTTOM:
        return "\n\n".join(part for part in (attribution + "\n" + quoted, own, sig) if part)
    head, tail = split_at_moves(original_text)
    return "\n\n".join(
        part for part in (attribution + "\n" + quote(head, prefix), own, quote(tail, prefix), sig) if part
    )


# --- the clients ---------------------------------------------------------------------------------


def thunderbird(original: Original, reply: Reply, *, language: str = "en") -> bytes:
    date = original.date
    if language == "fr":
        attribution = f"Le {date:%d/%m/%Y} à {date:%H:%M}, {original.sender_name} a écrit :"
    else:
        attribution = f"On {date:%d/%m/%Y %H:%M}, {original.sender_name} wrote:"
    signature = SIGNATURE if reply.signature else None
    text = _arrange(
        reply.typed, signature, attribution, quote(original.text), original.text, reply.layout, separator="\n"
    )
    typed_html = (
        f"<p>{html.escape(reply.typed).replace(chr(10), '<br>')}</p>" if reply.typed else "<p><br></p>"
    )
    sig_html = (
        f'<div class="moz-signature">-- <br>{html.escape(SIGNATURE).replace(chr(10), "<br>")}</div>'
        if signature
        else ""
    )
    cite = (
        f'<div class="moz-cite-prefix">{html.escape(attribution)}<br></div>'
        f'<blockquote type="cite" cite="mid:{original.message_id.strip("<>")}">'
        f"{original.html_body}</blockquote>"
    )
    if reply.layout == TOP:
        body = typed_html + sig_html + cite
    elif reply.layout == BOTTOM:
        body = cite + typed_html + sig_html
    else:
        head, tail = split_at_moves(original.text)
        body = (
            f'<div class="moz-cite-prefix">{html.escape(attribution)}<br></div>'
            f'<blockquote type="cite"><pre class="moz-quote-pre">{html.escape(head)}</pre></blockquote>'
            + typed_html
            + f'<blockquote type="cite"><pre class="moz-quote-pre">{html.escape(tail)}</pre></blockquote>'
            + sig_html
        )
    message = EmailMessage()
    _headers(
        message,
        original,
        reply,
        message_id="<5d2c8f1e-0b7a-4c1e-9f3e-{ID}@example.test>",
        extra={
            "User-Agent": "Mozilla Thunderbird",
            "Content-Language": "en-GB" if language == "en" else "fr",
        },
    )
    return _with_parts(message, text, body, flowed=True, text_cte="8bit", html_cte="8bit")


def mutt(original: Original, reply: Reply) -> bytes:
    date = original.date
    attribution = f"On {date:%a, %b %d, %Y at %I:%M:%S%p %z}, {original.sender_name} wrote:"
    signature = NAME if reply.signature else None
    text = _arrange(reply.typed, signature, attribution, quote(original.text), original.text, reply.layout)
    message = EmailMessage()
    _headers(
        message,
        original,
        reply,
        message_id="<Z8gT4kQm9xYv2bNc@{ID}.example.test>",
        extra={"User-Agent": "NeoMutt/20231103", "Mail-Followup-To": f"{original.reply_address}"},
    )
    return _with_parts(message, text, None, text_cte="8bit")


def apple_mail(original: Original, reply: Reply, *, iphone: bool = False) -> bytes:
    date = original.date
    attribution = (
        f"On {date.day} {date:%b %Y}, at {date:%H:%M}, {original.sender_name} "
        f"<{original.sender_address}> wrote:"
    )
    signature_text = "Sent from my iPhone" if iphone else (SIGNATURE if reply.signature else "")
    own = reply.typed + (f"\n\n{signature_text}" if signature_text else "")
    if iphone:
        # iPhone Mail quotes its attribution line too, and top-posts (it cannot do anything else).
        text = f"{own}\n\n{quote(attribution)}\n>\n{quote(original.text)}"
    elif reply.layout == BOTTOM:
        text = f"{attribution}\n\n{quote(original.text)}\n\n{own}"
    else:
        text = f"{own}\n\n{attribution}\n\n{quote(original.text)}"
    own_html = html_text(own)
    cite = (
        f'<div><br><blockquote type="cite"><div>{html.escape(attribution)}</div><br>'
        f"<div>{original.html_body}</div></blockquote></div>"
    )
    body = cite + own_html if reply.layout == BOTTOM and not iphone else own_html + cite
    message = EmailMessage()
    mailer = "iPhone Mail (22D82)" if iphone else "Apple Mail (2.3826.400.131.1.6)"
    _headers(
        message,
        original,
        reply,
        message_id="<8E1B2C4D-{ID}@example.test>",
        extra={"X-Mailer": mailer, "Mime-Version": "1.0 (1.0)" if iphone else "1.0 (Mac OS X Mail 16.0)"},
    )
    return _with_parts(message, text, f'<div dir="auto">{body}</div>' if iphone else body)


def _gmail_date(date: datetime, language: str, app: bool) -> str:
    if language == "de":
        day = f"{DE_WEEKDAYS[date.weekday()]}, {date.day}. {DE_MONTHS[date.month - 1]} {date.year}"
        return f"Am {day} um {date:%H:%M} Uhr"
    if language == "es":
        return f"El {date:%a}, {date.day} {date:%b %Y} a las {date:%H:%M}"
    if app:
        return f"On {date:%a}, {date.day} {date:%b %Y}, {date:%H:%M}"
    return f"On {date:%a}, {date.day} {date:%b %Y} at {date:%H:%M}"


def gmail(original: Original, reply: Reply, *, language: str = "en", app: bool = False) -> bytes:
    when = _gmail_date(original.date, language, app)
    name, address = original.sender_name, original.sender_address
    if language == "de":
        attribution, attribution_html = (
            f"{when} schrieb {name} <\n{address}>:",
            f"{when} schrieb {name} &lt;{address}&gt;:",
        )
    elif language == "es":
        attribution, attribution_html = (
            f"{when}, {name} (<{address}>)\nescribió:",
            f"{when}, {name} (&lt;{address}&gt;) escribió:",
        )
    elif app:
        attribution, attribution_html = (
            f"{when} {name}, <{address}> wrote:",
            f"{when} {name}, &lt;{address}&gt; wrote:",
        )
    else:
        # Gmail wraps its plain text at 78 characters: the break falls inside the address.
        attribution, attribution_html = (
            f"{when}, {name} <\n{address}> wrote:",
            f"{when}, {name} &lt;{address}&gt; wrote:",
        )
    signature = SIGNATURE if reply.signature else None
    text = _arrange(reply.typed, signature, attribution, quote(original.text), original.text, reply.layout)
    sig_html = (
        f'<span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature">'
        f"{html_text(SIGNATURE)}</div>"
        if signature
        else ""
    )
    own_html = f'<div dir="{"auto" if app else "ltr"}">{html_text(reply.typed)}</div>'
    quote_html = (
        f'<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">'
        f'{attribution_html}<br></div><blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;'
        f'border-left:1px solid rgb(204,204,204);padding-left:1ex">{original.html_body}</blockquote></div>'
    )
    if reply.layout == BOTTOM:
        body = quote_html + own_html + sig_html
    elif reply.layout == INTERLEAVED:
        head, tail = split_at_moves(original.text)
        body = (
            f'<div class="gmail_quote"><div dir="ltr" class="gmail_attr">{attribution_html}<br></div>'
            f'<blockquote class="gmail_quote">{html_text(head)}</blockquote></div>'
            + own_html
            + f'<blockquote class="gmail_quote">{html_text(tail)}</blockquote>'
            + sig_html
        )
    else:
        body = own_html + sig_html + "<br>" + quote_html
    message = EmailMessage()
    _headers(message, original, reply, message_id="<CAKx7vQm3hT1a9fYqk-{ID}@mail.gmail.com>")
    return _with_parts(message, text, body, text_cte="8bit")


def _outlook_header(original: Original, language: str) -> tuple[str, str]:
    date = original.date
    sender = f"{original.sender_name} <{original.sender_address}>"
    to = f"{NAME} <{original.player_address}>"
    if language == "de":
        weekday, month = DE_WEEKDAYS_LONG[date.weekday()], DE_MONTHS[date.month - 1]
        sent = f"{weekday}, {date.day}. {month} {date.year} {date:%H:%M}"
        labels = ("Von", "Gesendet", "An", "Betreff")
    else:
        sent = f"{date:%A}, {date:%B} {date.day}, {date.year} {date:%I:%M %p}"
        labels = ("From", "Sent", "To", "Subject")
    values = (sender, sent, to, original.subject)
    text = "\n".join(f"{label}: {value}" for label, value in zip(labels, values, strict=True))
    markup = "<br>\n".join(
        f"<b>{label}:</b> {html.escape(value)}" for label, value in zip(labels, values, strict=True)
    )
    return text, markup


def outlook(original: Original, reply: Reply, *, language: str = "en") -> bytes:
    """Outlook for Windows: top-posted, the original unquoted below its header block."""
    header, header_html = _outlook_header(original, language)
    sig = f"\n\n{SIGNATURE}" if reply.signature else ""
    text = f"{reply.typed}{sig}\n\n{header}\n\n{original.text}"
    sig_html = (
        f'<p class="MsoNormal">{html.escape(SIGNATURE).replace(chr(10), "<br>")}</p>'
        if reply.signature
        else ""
    )
    typed_html = "".join(
        f'<p class="MsoNormal">{html.escape(line) or "&nbsp;"}</p>' for line in reply.typed.split("\n")
    )
    body = (
        f'<div class="WordSection1">{typed_html}'
        f'{sig_html}<p class="MsoNormal">&nbsp;</p>'
        f'<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
        f'<p class="MsoNormal">{header_html}</p></div><p class="MsoNormal">&nbsp;</p>'
        f"{original.html_body}</div>"
    )
    message = EmailMessage()
    _headers(
        message,
        original,
        reply,
        subject_prefix="AW: " if language == "de" else "RE: ",
        message_id="<AM9PR07MB7236{ID}@AM9PR07MB7236.eurprd07.prod.outlook.com>",
        extra={
            "Thread-Topic": original.subject,
            "Thread-Index": "AQHbjb5xXkQ0cK2m1U2mF3yJ1bYxqg==",
            "X-MS-Has-Attach": "",
            "Content-Language": "de-DE" if language == "de" else "en-GB",
        },
    )
    return _with_parts(message, text, body)


def outlook_web(original: Original, reply: Reply) -> bytes:
    """Outlook on the web / new Outlook, sending HTML only."""
    _header, header_html = _outlook_header(original, "en")
    sig_html = (
        f'<div id="Signature"><p>{html.escape(SIGNATURE).replace(chr(10), "<br>")}</p></div>'
        if reply.signature
        else ""
    )
    lines = reply.typed.split("\n")
    typed_html = "".join(
        f'<div class="elementToProof" style="font-family: Aptos, sans-serif; font-size: 12pt;">'
        f"{html.escape(line) or '<br>'}</div>"
        for line in lines
    )
    body = (
        f'<div dir="ltr">{typed_html}{sig_html}<div id="appendonsend"></div>'
        f'<hr style="display:inline-block;width:98%" tabindex="-1">'
        f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
        f'color="#000000">{header_html}</font><div>&nbsp;</div></div><div>{original.html_body}</div></div>'
    )
    message = EmailMessage()
    _headers(
        message,
        original,
        reply,
        subject_prefix="RE: ",
        message_id="<DB9PR02MB7{ID}@DB9PR02MB7.eurprd02.prod.outlook.com>",
        extra={"X-MS-Exchange-Organization-SCL": "-1"},
    )
    return _with_parts(message, None, body)


def k9(original: Original, reply: Reply, *, header_style: bool = False) -> bytes:
    date = original.date
    signature = K9_SIGNATURE if reply.signature else None
    if header_style:
        header = (
            f"-------- Original Message --------\nFrom: {original.sender_name} <{original.sender_address}>\n"
            f"Sent: {date:%B} {date.day}, {date.year} {date:%I:%M:%S %p} UTC\n"
            f"To: {original.player_address}\nSubject: {original.subject}"
        )
        sig = f"\n-- \n{signature}" if signature else ""
        text = f"{reply.typed}\n{sig}\n\n{header}\n\n{original.text}"
    else:
        attribution = (
            f"On {date:%B} {date.day}, {date.year} {date:%I:%M:%S %p} UTC, {original.sender_name} "
            f"<{original.sender_address}> wrote:"
        )
        text = _arrange(
            reply.typed, signature, attribution, quote(original.text), original.text, reply.layout
        )
    message = EmailMessage()
    _headers(
        message,
        original,
        reply,
        message_id="<3F2A9C1E-{ID}@example.test>",
        extra={"User-Agent": "K-9 Mail for Android"},
    )
    return _with_parts(message, text, None, text_cte="8bit")


CLIENTS: dict[str, Callable[..., bytes]] = {
    "thunderbird": thunderbird,
    "mutt": mutt,
    "apple_mail": apple_mail,
    "gmail": gmail,
    "outlook": outlook,
    "outlook_web": outlook_web,
    "k9": k9,
}
