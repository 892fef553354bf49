"""The reply corpus: each case is a client, how the person replied, and what must come of it
(the move number played, or the answer a reply without a move gets)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from games.inbound.answers import EMPTY_PROBLEM
from tests.inbound.corpus.clients import (
    BOTTOM,
    CLIENTS,
    INTERLEAVED,
    TOP,
    Original,
    Reply,
    html_only,
)

EMPTY = EMPTY_PROBLEM
UNDECODABLE = "We could not read your reply: its text is marked as character set"


@dataclass(frozen=True)
class Case:
    name: str
    client: str
    typed: str
    layout: str = TOP
    signature: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    move: int | None = None  # the move number this reply plays
    problem: str = ""  # or: the problem its answer states (no move is played)
    html_only: bool = False
    damage: Callable[[bytes], bytes] | None = None  # what goes wrong with its bytes on the way

    def raw(self, original: Original) -> bytes:
        token = hashlib.sha256(self.name.encode()).hexdigest()[:20]
        reply = Reply(self.typed, self.layout, self.signature, token)
        made = CLIENTS[self.client](original, reply, **self.options)
        if self.html_only:
            made = html_only(made)
        return self.damage(made) if self.damage is not None else made


def unknown_charset(raw: bytes) -> bytes:
    """The first text part declares a charset nobody knows (as some webmail and old clients do)."""
    return raw.replace(b'charset="utf-8"', b'charset="x-unknown"', 1)


def latin1_in_utf8(raw: bytes) -> bytes:
    """The text's "ü" arrives as Latin-1 in a part that says UTF-8: not valid UTF-8."""
    assert "ü".encode() in raw
    return raw.replace("ü".encode(), "ü".encode("latin-1"))


CASES: list[Case] = [
    # Thunderbird: top or bottom as set up, French, HTML only.
    Case("thunderbird_top", "thunderbird", "3", TOP, move=3),
    Case("thunderbird_top_signature", "thunderbird", "2", TOP, True, move=2),
    Case("thunderbird_bottom", "thunderbird", "4", BOTTOM, move=4),
    Case("thunderbird_bottom_signature", "thunderbird", "1", BOTTOM, True, move=1),
    Case("thunderbird_interleaved", "thunderbird", "5", INTERLEAVED, True, move=5),
    Case("thunderbird_fr_top", "thunderbird", "2", TOP, True, {"language": "fr"}, move=2),
    Case("thunderbird_fr_bottom", "thunderbird", "3", BOTTOM, True, {"language": "fr"}, move=3),
    Case("thunderbird_html_only_bottom", "thunderbird", "4", BOTTOM, True, move=4, html_only=True),
    Case("thunderbird_html_only_top", "thunderbird", "1", TOP, True, move=1, html_only=True),
    Case("thunderbird_nothing_typed_signature", "thunderbird", "", TOP, True, problem=EMPTY),
    Case("thunderbird_nothing_typed_bottom", "thunderbird", "", BOTTOM, True, problem=EMPTY),
    # mutt: bottom-posted or interleaved, the whole original quoted (its "> --" footer too).
    Case("mutt_bottom", "mutt", "3", BOTTOM, move=3),
    Case("mutt_bottom_signature", "mutt", "2", BOTTOM, True, move=2),
    Case("mutt_bottom_greeting", "mutt", "Ahoy!\n\nmove 5\n\nFair winds,\nAnne", BOTTOM, True, move=5),
    Case("mutt_interleaved", "mutt", "4", INTERLEAVED, move=4),
    Case("mutt_interleaved_signature", "mutt", "1.", INTERLEAVED, True, move=1),
    Case("mutt_nothing_typed", "mutt", "", BOTTOM, True, problem=EMPTY),
    Case(
        "mutt_words_only",
        "mutt",
        "Let me think about it",
        BOTTOM,
        True,
        problem="We could not read a move in your reply (“Let me think about it”).",
    ),
    # Apple Mail on a Mac, and the iPhone ("Sent from my iPhone", quoted attribution).
    Case("apple_mail_top", "apple_mail", "2", TOP, move=2),
    Case("apple_mail_top_signature", "apple_mail", "5", TOP, True, move=5),
    Case("apple_mail_bottom", "apple_mail", "3", BOTTOM, move=3),
    Case("apple_mail_html_only", "apple_mail", "1", TOP, move=1, html_only=True),
    Case("iphone", "apple_mail", "4", TOP, options={"iphone": True}, move=4),
    Case("iphone_html_only", "apple_mail", "2", TOP, options={"iphone": True}, move=2, html_only=True),
    Case("iphone_nothing_typed", "apple_mail", "", TOP, options={"iphone": True}, problem=EMPTY),
    # Gmail on the web (attribution wrapped at the address) and the app; German and Spanish.
    Case("gmail_top", "gmail", "3", TOP, move=3),
    Case("gmail_top_signature", "gmail", "1", TOP, True, move=1),
    Case("gmail_bottom", "gmail", "5", BOTTOM, move=5),
    Case("gmail_interleaved", "gmail", "2", INTERLEAVED, True, move=2),
    Case("gmail_html_only", "gmail", "4", TOP, True, move=4, html_only=True),
    Case("gmail_html_only_bottom", "gmail", "3", BOTTOM, move=3, html_only=True),
    Case("gmail_de_top", "gmail", "2", TOP, True, {"language": "de"}, move=2),
    Case("gmail_de_bottom", "gmail", "1", BOTTOM, options={"language": "de"}, move=1),
    Case("gmail_es_top", "gmail", "4", TOP, options={"language": "es"}, move=4),
    Case("gmail_app_top", "gmail", "5", TOP, options={"app": True}, move=5),
    Case("gmail_app_bottom", "gmail", "2", BOTTOM, options={"app": True}, move=2),
    Case(
        "gmail_pass_words",
        "gmail",
        "Not sure yet, tell me tomorrow",
        TOP,
        True,
        problem="We could not read a move in your reply (“Not sure yet, tell me tomorrow”).",
    ),
    # Outlook for Windows: the original unquoted below its header block; German labels.
    Case("outlook_top", "outlook", "3", TOP, move=3),
    Case("outlook_top_signature", "outlook", "1", TOP, True, move=1),
    Case("outlook_de_signature", "outlook", "4", TOP, True, {"language": "de"}, move=4),
    Case("outlook_html_only", "outlook", "2", TOP, True, move=2, html_only=True),
    Case("outlook_nothing_typed", "outlook", "", TOP, problem=EMPTY),
    # Outlook on the web: HTML only, appendonsend / divRplyFwdMsg, the original unquoted.
    Case("outlook_web", "outlook_web", "5", TOP, move=5),
    Case("outlook_web_signature", "outlook_web", "Hi all,\n\n3\n\nThanks", TOP, True, move=3),
    Case("outlook_web_nothing_typed", "outlook_web", "", TOP, problem=EMPTY),
    # K-9 Mail: prefix quoting top or bottom, or the "header" quoting style.
    Case("k9_top", "k9", "1", TOP, True, move=1),
    Case("k9_bottom", "k9", "4", BOTTOM, True, move=4),
    Case("k9_interleaved", "k9", "2", INTERLEAVED, move=2),
    Case("k9_header_style", "k9", "3", TOP, True, {"header_style": True}, move=3),
    # Text that cannot be decoded gets an answer saying so, and plays nothing.
    Case(
        "mutt_unknown_charset",
        "mutt",
        "Grüße!\n\n3",
        BOTTOM,
        True,
        problem=UNDECODABLE,
        damage=unknown_charset,
    ),
    Case(
        "mutt_latin1_declared_utf8",
        "mutt",
        "Grüße!\n\n3",
        BOTTOM,
        True,
        problem=UNDECODABLE,
        damage=latin1_in_utf8,
    ),
    Case("k9_latin1_declared_utf8", "k9", "3 – Grüße", TOP, True, problem=UNDECODABLE, damage=latin1_in_utf8),
    # ... unless another part of it can be read: Gmail's HTML is fine when its text part is not.
    Case("gmail_unknown_charset_text_part", "gmail", "3", TOP, move=3, damage=unknown_charset),
]
