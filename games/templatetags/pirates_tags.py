"""Template helpers: the rules page's small markdown renderer and a few labels."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from games.models import seat_labels
from games.selectors import fixed_deal_parts

register = template.Library()

_INLINE_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^(\s*)[-*]\s+(.*)$")
_NUMBERED = re.compile(r"^(\s*)\d+\.\s+(.*)$")
_RULE_ID = re.compile(r"^(P-[A-Z]+(?:-\d+)?)\b")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _inline(text: str) -> str:
    """Escape first, then add code, bold and italics; nothing from the source becomes markup."""
    parts = _INLINE_CODE.split(text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{escape(part)}</code>")
            continue
        html = str(escape(part))

        def bold(match: re.Match[str]) -> str:
            inner = match.group(1)
            css = ' class="clarification"' if inner.rstrip(":").lower() == "clarification" else ""
            return f"<strong{css}>{inner}</strong>"

        html = _BOLD.sub(bold, html)
        html = _ITALIC.sub(r"<em>\1</em>", html)
        out.append(html)
    return "".join(out)


def _list_item(text: str) -> str:
    css = ' class="clarified"' if "**Clarification:**" in text else ""
    match = _RULE_ID.match(text)
    anchor = f' id="{_slug(match.group(1))}"' if match else ""
    return f"<li{css}{anchor}>{_inline(text)}</li>"


def _table(rows: list[str]) -> str:
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    head, body = cells[0], [r for r in cells[1:] if not all(re.fullmatch(r":?-{2,}:?", c) for c in r)]
    html = ['<div class="table-wrap"><table class="table">', "<thead><tr>"]
    html += [f"<th>{_inline(c)}</th>" for c in head]
    html.append("</tr></thead><tbody>")
    for row in body:
        html.append("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>")
    html.append("</tbody></table></div>")
    return "".join(html)


def render_markdown(source: str) -> SafeString:
    """A safe subset of markdown: headings, paragraphs, bullet and numbered lists (with
    continuation lines), indented code blocks, tables, inline code, bold and italics."""
    lines = source.splitlines()
    html: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""
    i = 0

    def flush() -> None:
        nonlocal list_tag
        if paragraph:
            text = " ".join(paragraph)
            css = ' class="clarified"' if "**Clarification:**" in text else ""
            html.append(f"<p{css}>{_inline(text)}</p>")
            paragraph.clear()
        if items:
            html.append(f"<{list_tag}>" + "".join(_list_item(t) for t in items) + f"</{list_tag}>")
            items.clear()
            list_tag = ""

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            flush()
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = min(len(heading.group(1)) + 1, 6)
            text = heading.group(2)
            html.append(f'<h{level} id="{_slug(text)}">{_inline(text)}</h{level}>')
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            html.append(_table(rows))
            continue
        if line.startswith("    ") and not items:
            flush()
            block = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                block.append(lines[i][4:])
                i += 1
            html.append(f"<pre><code>{escape(chr(10).join(block).rstrip())}</code></pre>")
            continue
        bullet = _BULLET.match(line)
        numbered = _NUMBERED.match(line)
        if bullet or numbered:
            tag = "ul" if bullet else "ol"
            if paragraph or (items and list_tag != tag):
                flush()
            list_tag = tag
            items.append((bullet or numbered).group(2))  # type: ignore[union-attr]
            i += 1
            continue
        if items and line.startswith(" "):
            items[-1] += " " + stripped
        else:
            if items:
                flush()
            paragraph.append(stripped)
        i += 1
    flush()
    return mark_safe("\n".join(html))


@register.filter
def markdown(source: str) -> SafeString:
    return render_markdown(source or "")


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def duration(value: timedelta | None) -> str:
    """A time span in words: "2 days", "1 day 6 hours", "45 minutes"."""
    if value is None:
        return ""
    minutes = int(value.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [
        f"{n} {unit}{'s' if n != 1 else ''}"
        for n, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"))
        if n
    ]
    return " ".join(parts[:2]) or "0 minutes"


@register.filter
def fixed_deal_notice(game: Any) -> str:
    """What the creator of a fixed-deal game chose instead of the seed, as a sentence: "The deck
    and the first seat were chosen by …". From the rule set's declarations (any rule set)."""
    names = [f"the {name.replace('_', ' ')}" for name in fixed_deal_parts(game)] or ["the deal"]
    what = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    verb = "was" if len(names) == 1 else "were"
    return f"{what[0].upper()}{what[1:]} {verb} chosen by the game's creator, not drawn from the seed."


@register.filter
def all_bots(seats: Any) -> bool:
    """Whether every seat of a game's summary (``selectors.seats_summary``) is played by a bot."""
    seats = list(seats or [])
    return bool(seats) and all(seat.get("bot") for seat in seats)


@register.filter
def seat_list(seats: Any) -> str:
    """A game's seats (``Seat`` rows) named in seat order, bots of one level numbered."""
    return ", ".join(seat_labels(seats).values())
