"""Rendering an email from its templates, with the game's links and the log summary its
reader may see."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from games import eventlog, rows
from games.emails.sending import AUTOMATIC_HEADERS, thread_headers
from games.emails.unsubscribe import unsubscribe_url
from games.eventlog import Viewer
from games.links import login_url
from games.models import Event, Game, PlayerProfile, loaded_with, person_name

# Re-exported: games.emails names them for its callers.
from games.presence import OWN_MOVE_KINDS, last_own_move  # noqa: F401
from games.services.chat import chat_lines

MAX_SENTENCES = 25


def _local(user: User, moment: datetime | None) -> str:
    if moment is None:
        return ""
    loaded, profile = loaded_with(user, "profile")
    if not loaded:
        profile = PlayerProfile.objects.filter(user_id=user.pk).only("timezone").first()
    try:
        zone = ZoneInfo(profile.timezone if profile is not None else "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return moment.astimezone(zone).strftime("%a %d %b %Y, %H:%M %Z")


def render(
    template: str, *, to: str, subject: str, context: dict[str, Any], user: User | None
) -> EmailMultiAlternatives:
    """The email ``emails/<template>.txt`` + ``.html`` with the unsubscribe headers for ``user``.

    Every email is marked as sent by a machine (``AUTOMATIC_HEADERS``; answers to replies mark
    themselves "auto-replied" over it). An email about one game (``context["game"]``) to a
    player threads under that game's root for them (``thread_headers``): turn emails,
    reminders, timeouts, seats handed to bots, game over, "every seat is taken", invitations to
    an account and answers to replies all land in one thread per game and player."""
    context = {"site_url": settings.SITE_URL, "user": user, "name": person_name(user), **context}
    headers: dict[str, str] = dict(AUTOMATIC_HEADERS)
    if user is not None:
        link = unsubscribe_url(user)
        context["unsubscribe_url"] = link
        headers["List-Unsubscribe"] = f"<{link}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        game = context.get("game")
        if isinstance(game, Game) and game.pk is not None:
            headers.update(thread_headers(game.pk, user.pk))
    text = render_to_string(f"emails/{template}.txt", context)
    html = render_to_string(f"emails/{template}.html", context)
    message = EmailMultiAlternatives(
        subject=" ".join(subject.split()), body=text, from_email=settings.DEFAULT_FROM_EMAIL, to=[to],
        headers=headers,
    )
    message.attach_alternative(html, "text/html")
    return message


def game_url(user: User, game: Game) -> str:
    return login_url(user, f"/games/{game.pk}/")


def replay_url(user: User, game: Game) -> str:
    return login_url(user, f"/games/{game.pk}/replay/")


def event_text(event: Event, game: Game, position: int | None) -> str:
    """The event's sentence as the seat at ``position`` (None: a spectator) may read it."""
    return eventlog.text_for(event, Viewer(seat=position, game_over=game.is_over))


@dataclass(frozen=True)
class Summary:
    sentences: list[str]
    earlier: int  # how many older sentences were left out


def summary(game: Game, *, after: int, upto: int, position: int | None) -> Summary:
    """The log sentences of events ``after`` < seq <= ``upto``, the latest ``MAX_SENTENCES``,
    as the seat at ``position`` may read them."""
    latest = rows.latest_events(game.pk, after, upto, MAX_SENTENCES)
    # Counted only when there may be more than were read: most turns are a few events long.
    if len(latest) < MAX_SENTENCES:
        total = len(latest)
    else:
        total = Event.objects.filter(game=game, seq__gt=after, seq__lte=upto).count()
    sentences = [text for text in (event_text(e, game, position) for e in reversed(latest)) if text]
    return Summary(sentences, max(total - len(latest), 0))


def _game_context(
    user: User, game: Game, position: int | None, upto: int, after: int | None = None
) -> dict[str, Any]:
    """What every game email shows; the summary covers ``after`` < seq <= ``upto`` (by default
    from the seat's last move)."""
    if after is None:
        after = last_own_move(game, position) if position is not None else max(upto - MAX_SENTENCES, 0)
    return {
        "game": game,
        "game_name": game.display_name,
        "game_url": game_url(user, game),
        "summary": summary(game, after=after, upto=upto, position=position),
        "deadline": _local(user, game.deadline),
        # Table talk since the player's last move.
        "chat": chat_lines(game, limit=MAX_SENTENCES, since_seq=after),
    }
