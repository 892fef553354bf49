"""Webhooks: a game's players point its news at a chat channel (Discord, Slack) or at a
program of theirs (signed JSON); a crew's members do the same for every game of the crew.
This module makes, lists and deletes hooks and decides which URLs and addresses a hook may
reach; games/webhooks.py delivers.

Server-side request forgery: a hook's URL is checked when it is saved (scheme, host, an IP
literal's address) and the address its host resolves to is checked again at every delivery,
which connects to exactly the address it checked (``allowed_address``). In production only
https to public addresses; ``WEBHOOK_ALLOW_LOOPBACK`` (on with DEBUG) also allows http and
loopback addresses, for development and tests.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from games.models import Crew, Game, Seat, Webhook
from games.services.crews import crew_for
from games.services.errors import Conflict, Forbidden, InvalidInput, NotFound

MAX_URL = 500
MAX_MENTIONS = 20
DEFAULT_EVENTS = ("turn", "game_started", "game_finished")
# A chat handle for a mention: Discord's <@123…> / <@!123…>, Slack's <@U123…>. Nothing else,
# so a mapping cannot smuggle "@everyone", a role or a link into a message.
HANDLE = re.compile(r"<@!?[A-Za-z0-9]{1,32}>")
# Names that only ever mean this machine or its private network.
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".localdomain", ".home.arpa")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def allowed_address(address: IPAddress) -> bool:
    """Whether a delivery may connect to ``address``: a public unicast address, or loopback
    where ``WEBHOOK_ALLOW_LOOPBACK`` is on. Private, link-local, multicast, reserved, shared
    and unspecified addresses never (an IPv4-mapped IPv6 address is judged as its IPv4)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return bool(settings.WEBHOOK_ALLOW_LOOPBACK)
    return (
        address.is_global
        and not address.is_multicast
        and not address.is_reserved
        and not address.is_link_local
        and not address.is_unspecified
    )


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str  # with its query


def check_url(url: object) -> Target:
    """The parts of a hook's URL, or InvalidInput saying what is wrong with it. Resolving the
    host is left to the delivery (a name may point elsewhere by then)."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidInput("`url` must be the webhook's URL, such as https://discord.com/api/webhooks/…")
    url = url.strip()
    if len(url) > MAX_URL:
        raise InvalidInput(f"`url` has at most {MAX_URL} characters.")
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise InvalidInput("`url` must not contain spaces or control characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise InvalidInput("`url` is not a valid URL.") from None
    insecure_ok = bool(settings.WEBHOOK_ALLOW_LOOPBACK)
    if parts.scheme not in ("https", "http"):
        raise InvalidInput("`url` must start with https://.")
    if parts.scheme == "http" and not insecure_ok:
        raise InvalidInput("`url` must use https.")
    if parts.username is not None or parts.password is not None:
        raise InvalidInput("`url` must not contain a user name or password.")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise InvalidInput("`url` must name a host.")
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        if not allowed_address(literal):
            raise InvalidInput("`url` must point at a public address.")
    else:
        local = host == "localhost" or host.endswith(LOCAL_SUFFIXES) or "." not in host
        if local and not insecure_ok:
            raise InvalidInput("`url` must name a public host.")
        if not re.fullmatch(r"[a-z0-9.-]+", host) and not re.fullmatch(r"[a-z0-9-]+", host):
            raise InvalidInput("`url` must name a host by its DNS name (letters, digits, dots and hyphens).")
    default_port = 443 if parts.scheme == "https" else 80
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(parts.scheme, host, port or default_port, path)


def _check_events(events: object) -> list[str]:
    if events is None:
        return list(DEFAULT_EVENTS)
    if not isinstance(events, list) or not events or not all(isinstance(e, str) for e in events):
        raise InvalidInput(f"`events` must be a non-empty list of: {', '.join(Webhook.EVENTS)}.")
    unknown = sorted(set(events) - set(Webhook.EVENTS))
    if unknown:
        raise InvalidInput(f"Unknown events: {', '.join(unknown)}. Choose from: {', '.join(Webhook.EVENTS)}.")
    return [e for e in Webhook.EVENTS if e in events]


def _check_format(format: object) -> str:
    if not isinstance(format, str) or format not in Webhook.Format.values:
        raise InvalidInput(f"`format` must be one of: {', '.join(Webhook.Format.values)}.")
    return format


def _check_mentions(mentions: object) -> dict[str, str]:
    if mentions is None:
        return {}
    if not isinstance(mentions, dict) or len(mentions) > MAX_MENTIONS:
        raise InvalidInput(f"`mentions` must map at most {MAX_MENTIONS} display names to chat handles.")
    checked: dict[str, str] = {}
    for name, handle in mentions.items():
        bad_name = not isinstance(name, str) or not name.strip() or len(name) > 40
        if bad_name or any(ord(ch) < 32 for ch in name):
            raise InvalidInput("Each key of `mentions` must be a player's display name.")
        if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
            raise InvalidInput(
                f"The handle for {name!r} must look like <@123456> (Discord) or <@U0123ABC> (Slack)."
            )
        checked[name.strip()] = handle
    return checked


def _game_for_player(game_id: object, user: User, *, lock: bool = False) -> Game:
    """The game ``game_id`` if ``user`` has a seat in it. Outsiders get NotFound for a private
    game (it does not exist for them) and Forbidden for a public one."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise NotFound(f"No game with id {game_id}.")
    games = Game.objects.select_for_update() if lock else Game.objects
    game = games.filter(pk=game_id).first()
    if game is None:
        raise NotFound(f"No game with id {game_id}.")
    if not user.is_authenticated or not Seat.objects.filter(game=game, user=user).exists():
        if not game.is_public:
            raise NotFound(f"No game with id {game_id}.")
        raise Forbidden("Only the game's players can set up its webhooks.")
    return game


def _checked(url: object, format: object, events: object, mentions: object) -> dict[str, Any]:
    """The fields of a new hook, or InvalidInput: checked before any row is read or locked."""
    check_url(url)
    return {
        "url": str(url).strip(), "format": _check_format(format), "events": _check_events(events),
        "mentions": _check_mentions(mentions),
    }


def _make(
    owner: dict[str, Any], user: User, fields: dict[str, Any], cap: int, whose: str
) -> tuple[Webhook, str]:
    """A new hook of ``owner`` (``{"game": …}`` or ``{"crew": …}``, its row locked by the
    caller) unless it has ``cap`` already; and its secret, shown only now."""
    if Webhook.objects.filter(**owner).count() >= cap:
        raise Conflict(f"{whose} has at most {cap} webhooks: delete one first.")
    secret = secrets.token_hex(32)
    hook = Webhook.objects.create(**owner, **fields, created_by=user, secret=secret)
    return hook, secret


def _delete(owner: dict[str, Any], hook_id: object, missing: str) -> None:
    deleted, _ = Webhook.objects.filter(**owner, pk=hook_id if isinstance(hook_id, int) else 0).delete()
    if not deleted:
        raise NotFound(missing)


def webhook_create(
    *, game_id: int, user: User, url: object, format: object, events: object = None, mentions: object = None
) -> tuple[Webhook, str]:
    """A new hook of ``game_id`` made by one of its players, and its secret (shown only now)."""
    fields = _checked(url, format, events, mentions)
    with transaction.atomic():
        game = _game_for_player(game_id, user, lock=True)
        if game.is_over:
            raise Conflict("The game is over: it has no news left to send.")
        return _make({"game": game}, user, fields, settings.WEBHOOK_MAX_PER_GAME, "A game")


def webhook_list(*, game_id: int, user: User) -> list[Webhook]:
    game = _game_for_player(game_id, user)
    return list(Webhook.objects.filter(game=game).order_by("pk"))


def webhook_delete(*, game_id: int, hook_id: object, user: User) -> None:
    """Any player of the game may delete its hooks; a hook of another game is not found."""
    with transaction.atomic():
        game = _game_for_player(game_id, user, lock=True)
        _delete({"game": game}, hook_id, f"Game {game.pk} has no webhook {hook_id}.")


def _crew_for_member(crew_id: object, user: User, *, lock: bool = False) -> Crew:
    """The crew ``crew_id`` if ``user`` is a member; anyone else is told there is no such crew
    (as everywhere in the crew API)."""
    crew = crew_for(crew_id, user)
    if lock:
        Crew.objects.select_for_update().filter(pk=crew.pk).first()
    return crew


def crew_webhook_create(
    *, crew_id: int, user: User, url: object, format: object, events: object = None, mentions: object = None
) -> tuple[Webhook, str]:
    """A new hook of ``crew_id`` made by one of its members: it hears every game of the crew."""
    fields = _checked(url, format, events, mentions)
    with transaction.atomic():
        crew = _crew_for_member(crew_id, user, lock=True)
        return _make({"crew": crew}, user, fields, settings.WEBHOOK_MAX_PER_CREW, "A crew")


def crew_webhook_list(*, crew_id: int, user: User) -> list[Webhook]:
    crew = _crew_for_member(crew_id, user)
    return list(Webhook.objects.filter(crew=crew).order_by("pk"))


def crew_webhook_delete(*, crew_id: int, hook_id: object, user: User) -> None:
    """Any member of the crew may delete its hooks; a hook of another crew is not found."""
    with transaction.atomic():
        crew = _crew_for_member(crew_id, user, lock=True)
        _delete({"crew": crew}, hook_id, f"Crew {crew.pk} has no webhook {hook_id}.")


def describe(hook: Webhook) -> dict[str, Any]:
    """A hook as its game's players (or crew's members) see it: never its secret."""
    return {
        "id": hook.pk,
        "url": hook.url,
        "format": hook.format,
        "events": list(hook.events),
        "mentions": dict(hook.mentions),
        "created_by": hook.created_by.get_username() if hook.created_by_id else "",
        "created_at": hook.created_at,
        "failures": hook.failures,
        "disabled": hook.disabled_at is not None,
        "disabled_at": hook.disabled_at,
        "last_error": hook.last_error,
    }
