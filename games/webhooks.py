"""Delivering a game's news to its webhooks: outbox side effects like the emails.

A settled position's outbox row (kind ``webhook``, games/side_effects.py) owes every live hook
of the game the events it asked for: ``move`` for each event since the previous such row,
``game_started``, ``game_finished``, and ``turn`` (whom the game waits for) while the game is
still at that position; a chat line's row owes ``chat``. Each (hook, event) has one
``WebhookDelivery`` row whose id goes with every attempt, so a receiver can drop repeats, and
a delivered event is never sent again.

Only what every player may read goes out: the public sentence of each event (``eventlog``
with a viewer of no seat, before the end), the public names of the seats to act, the final
scores. Never a private sentence, a hand or a secret pick.

The HTTP POST runs with no lock or transaction held, with short timeouts, to the address the
host resolved to and was checked for (games/services/webhooks.py ``allowed_address``), and
follows no redirect. 2xx is delivered; 429, 5xx, timeouts and connection errors are worth a
retry; anything else (or a refused address) is a failure not retried. Every failed attempt
counts against the hook; ``WEBHOOK_DISABLE_AFTER`` in a row disable it and its creator is
emailed once.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import re
import socket
import ssl
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from games import emails, eventlog, side_effects
from games.emails.game_events import final_scores
from games.models import (
    ChatMessage,
    Event,
    Game,
    Notification,
    Seat,
    Webhook,
    WebhookDelivery,
    person_name,
    seat_labels,
)
from games.services.accounts import mail_address
from games.services.errors import InvalidInput
from games.services.webhooks import IPAddress, Target, allowed_address, check_url

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Pirates-Signature"
DELIVERY_HEADER = "X-Pirates-Delivery"
EVENT_HEADER = "X-Pirates-Event"
USER_AGENT = "PiratesByMail-Webhook/1"
MAX_RESPONSE = 64 * 1024

# Events whose public sentence is a "move" notice.
MOVE_KINDS = frozenset({
    Event.Kind.ACTION, Event.Kind.AUTO_PASS, Event.Kind.BOT, Event.Kind.TIMEOUT,
    Event.Kind.SEAT_TO_BOT, Event.Kind.TAKE_BACK,
})


@dataclass(frozen=True)
class Notice:
    """One event as every hook of the game may hear it."""

    event: str  # one of Webhook.EVENTS
    key: str  # the delivery's event key: "move:12"
    text: str  # the plain sentence
    data: dict[str, Any] = field(default_factory=dict)  # what the JSON body adds
    # Display names that a hook's mention mapping may turn into handles (the seats to act).
    names: tuple[str, ...] = ()


def table_url(game: Game) -> str:
    return f"{settings.SITE_URL}{reverse('game', args=[game.pk])}"


def _game_data(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk, "title": game.display_name, "rules": game.rules_id, "url": table_url(game),
    }


def _seat_names(game: Game) -> dict[int, str]:
    seats = Seat.objects.filter(game=game).select_related("user__profile")
    return seat_labels(seats)


def position_notices(game: Game, seq: int, since: int) -> list[Notice]:
    """What the position after event ``seq`` owes: a notice per event in (``since``, ``seq``],
    the end of the game, and whose turn it is if the game still waits at ``seq``."""
    viewer = eventlog.Viewer()  # no seat, game not over: the public sentence only
    notices: list[Notice] = []
    events = Event.objects.filter(game=game, seq__gt=max(since, 0), seq__lte=seq).order_by("seq")
    for event in events:
        if event.kind == Event.Kind.GAME_STARTED:
            notices.append(Notice("game_started", f"game_started:{event.seq}", eventlog.started_text(event),
                                  {"seq": event.seq}))
        elif event.kind in MOVE_KINDS:
            text = eventlog.text_for(event, viewer)
            if text:
                notices.append(Notice("move", f"move:{event.seq}", text, {"seq": event.seq}))
    names = _seat_names(game)
    if game.status == Game.Status.FINISHED and game.seq == seq:
        scores = final_scores(game)
        winners = [row["player"] for row in scores if row["winner"]]
        listed = ", ".join(f"{row['player']} {row['score']}" for row in scores)
        # The chat formats head the line "Game over" already (LABELS).
        text = f"{' and '.join(winners) or 'Nobody'} won. Scores: {listed}."
        data = {"seq": seq, "scores": [{"player": r["player"], "score": r["score"], "winner": r["winner"]}
                                       for r in scores]}
        notices.append(Notice("game_finished", f"game_finished:{seq}", text, data))
    elif game.status == Game.Status.ACTIVE and game.seq == seq and game.to_act:
        # The table's own words ("Waiting for …"), people and bots alike.
        waiting = [names.get(int(p), f"Seat {p}") for p in game.to_act]
        notices.append(Notice("turn", f"turn:{seq}", f"Waiting for {', '.join(waiting)}",
                              {"seq": seq, "to_act": waiting}, tuple(waiting)))
    return notices


def chat_notices(game: Game, message_id: int) -> list[Notice]:
    line = ChatMessage.objects.filter(pk=message_id, game=game).select_related("user__profile").first()
    if line is None:
        return []
    author = person_name(line.user)
    data = {"author": author, "message": line.text}
    return [Notice("chat", f"chat:{line.pk}", f"{author}: {line.text}", data)]


# ---------------------------------------------------------------------------------------------
# Bodies


_DISCORD_SPECIAL = re.compile(r"([\\*_~`|<>\[\]()@])")


def _discord_escape(text: str) -> str:
    return _DISCORD_SPECIAL.sub(r"\\\1", text)


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _with_mentions(
    text: str, escape: Any, names: tuple[str, ...], mentions: dict[str, str]
) -> tuple[str, list[str]]:
    """``text`` escaped for the chat's markup, each name to act followed by its handle."""
    handles = [mentions[name] for name in names if name in mentions]
    escaped = escape(text)
    if handles:
        escaped = f"{escaped} {' '.join(handles)}"
    return escaped, handles


LABELS = {
    # A hook posts to a channel everyone reads: "Turn", then whose it is, not "Your turn".
    "turn": "Turn", "move": "Move", "game_started": "Game started", "game_finished": "Game over",
    "chat": "Chat",
}


def body(hook: Webhook, game: Game, notice: Notice, delivery_id: str) -> bytes:
    """The bytes POSTed for ``notice`` in ``hook``'s format."""
    title = game.display_name
    url = table_url(game)
    if hook.format == Webhook.Format.DISCORD:
        text, handles = _with_mentions(notice.text, _discord_escape, notice.names, hook.mentions)
        content = f"**{LABELS[notice.event]}** · [{_discord_escape(title)}](<{url}>): {text}"
        users = [re.sub(r"\D", "", handle) for handle in handles]
        document: dict[str, Any] = {
            "content": content[:2000],
            # Only the mapped players are pinged: never @everyone, @here or a role, whatever a
            # display name or a chat line says.
            "allowed_mentions": {"parse": [], "users": [u for u in users if u]},
        }
    elif hook.format == Webhook.Format.SLACK:
        text, _handles = _with_mentions(notice.text, _slack_escape, notice.names, hook.mentions)
        document = {"text": f"*{LABELS[notice.event]}* · <{url}|{_slack_escape(title)}>: {text}"}
    else:
        document = {
            "delivery_id": delivery_id, "event": notice.event, "game": _game_data(game), "text": notice.text,
            **notice.data,
        }
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode()


def signature(secret: str, data: bytes) -> str:
    """The ``X-Pirates-Signature`` value: ``sha256=`` and the hex HMAC-SHA256 of the body."""
    return "sha256=" + hmac.new(secret.encode(), data, hashlib.sha256).hexdigest()


# ---------------------------------------------------------------------------------------------
# HTTP


class Refused(Exception):
    """The hook's URL or the address it resolves to may not be reached."""


@dataclass(frozen=True)
class Attempt:
    ok: bool
    retry: bool  # worth trying again later
    status: int | None
    error: str


def resolve(target: Target) -> IPAddress:
    """The address to connect to: every address the host resolves to must be allowed (a name
    that also resolves to a private address is refused), and the first is used, so the
    connection goes where the check looked."""
    try:
        literal: IPAddress | None = ipaddress.ip_address(target.host)
    except ValueError:
        literal = None
    if literal is not None:
        found = [literal]
    else:
        try:
            infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise ConnectionError(f"could not resolve {target.host}: {exc}") from exc
        found = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    if not found:
        raise ConnectionError(f"{target.host} has no address")
    refused = [str(a) for a in found if not allowed_address(a)]
    if refused:
        raise Refused(f"{target.host} resolves to an address that is not public ({refused[0]})")
    return found[0]


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Talks to ``address`` while naming ``host`` in the Host header."""

    def __init__(self, host: str, port: int, address: IPAddress, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = str(address)

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """TLS to ``address``, the certificate checked against ``host`` (SNI too)."""

    def __init__(self, host: str, port: int, address: IPAddress, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = str(address)

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def post(url: str, data: bytes, headers: dict[str, str]) -> Attempt:
    """One POST of ``data`` to ``url``; never raises for what the network or receiver does."""
    try:
        target = check_url(url)
        address = resolve(target)
    except Refused as exc:
        return Attempt(False, False, None, str(exc))
    except ConnectionError as exc:
        return Attempt(False, True, None, str(exc))
    except InvalidInput as exc:  # a URL that passed once and no longer does (settings changed)
        return Attempt(False, False, None, f"refused: {exc.detail}")
    timeout = float(settings.WEBHOOK_TIMEOUT_SECONDS)
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target.host, target.port, address, timeout)
    try:
        connection.request("POST", target.path, body=data, headers={
            "Content-Type": "application/json", "User-Agent": USER_AGENT, **headers,
        })
        response = connection.getresponse()
        response.read(MAX_RESPONSE)
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        # Timeouts, refused or reset connections, TLS failures, a garbled answer.
        return Attempt(False, True, None, f"{type(exc).__name__}: {exc}"[:200])
    finally:
        connection.close()
    if 200 <= status < 300:
        return Attempt(True, False, status, "")
    retry = status == 429 or status >= 500
    return Attempt(False, retry, status, f"HTTP {status}")


# ---------------------------------------------------------------------------------------------
# Delivering


def _delivery(hook: Webhook, key: str) -> WebhookDelivery:
    delivery, _ = WebhookDelivery.objects.get_or_create(
        hook=hook, event_key=key, defaults={"delivery_id": uuid.uuid4()}
    )
    return delivery


def _record(hook: Webhook, delivery: WebhookDelivery, attempt: Attempt, *, final: bool) -> None:
    """Write down one attempt: the delivery's state and the hook's run of failures; the
    failure that completes the run disables the hook and owes its creator an email."""
    now = timezone.now()
    with transaction.atomic():
        if attempt.ok:
            WebhookDelivery.objects.filter(pk=delivery.pk).update(
                status=WebhookDelivery.Status.DELIVERED, delivered_at=now, attempts=F("attempts") + 1,
                last_status_code=attempt.status,
            )
            Webhook.objects.filter(pk=hook.pk).update(failures=0, last_error="")
            return
        gave_up = final or not attempt.retry
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=WebhookDelivery.Status.FAILED if gave_up else WebhookDelivery.Status.PENDING,
            attempts=F("attempts") + 1, last_status_code=attempt.status,
        )
        Webhook.objects.filter(pk=hook.pk).update(failures=F("failures") + 1, last_error=attempt.error[:200])
        disabled = Webhook.objects.filter(
            pk=hook.pk, disabled_at__isnull=True, failures__gte=settings.WEBHOOK_DISABLE_AFTER
        ).update(disabled_at=now)
        if disabled:
            log.warning("webhook %s disabled after %s failures in a row (%s)",
                        hook.pk, settings.WEBHOOK_DISABLE_AFTER, attempt.error)
            side_effects.after_webhook_disabled(hook)


def deliver(game: Game, notices: Iterable[Notice], *, final: bool = False) -> int:
    """POST each notice to each live hook of ``game`` (its own and its crews') that asked for
    its event and has not had it yet; returns how many are still owed and worth a retry (with
    ``final``, none: the last try gives those up). No lock or transaction is held during a POST."""
    notices = list(notices)
    owed = 0
    for hook in Webhook.live_for(game.pk).order_by("pk"):
        for notice in notices:
            if notice.event not in hook.events:
                continue
            delivery = _delivery(hook, hook.event_key(game.pk, notice.key))
            if delivery.status != WebhookDelivery.Status.PENDING:
                continue
            if Webhook.objects.filter(pk=hook.pk, disabled_at__isnull=False).exists():
                break  # disabled by the failure before this one
            delivery_id = str(delivery.delivery_id)
            data = body(hook, game, notice, delivery_id)
            headers = {DELIVERY_HEADER: delivery_id, EVENT_HEADER: notice.event}
            if hook.format == Webhook.Format.JSON:
                headers[SIGNATURE_HEADER] = signature(hook.secret, data)
            attempt = post(hook.url, data, headers)
            _record(hook, delivery, attempt, final=final)
            if not attempt.ok:
                log.info("webhook %s: %s of game %s failed (%s)", hook.pk, notice.key, game.pk, attempt.error)
                if attempt.retry and not final:
                    owed += 1
    return owed


def deliver_position(*, game_id: int, seq: int, since: int, final: bool = False) -> int:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    return deliver(game, position_notices(game, seq, since), final=final)


def deliver_chat(*, game_id: int, message_id: int, final: bool = False) -> int:
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return 0
    return deliver(game, chat_notices(game, message_id), final=final)


def send_disabled_email(*, hook_id: int) -> bool:
    """Tells the hook's creator it was disabled, once (``Notification`` kind webhook_off)."""
    hook = Webhook.objects.select_related("created_by", "game", "crew").filter(pk=hook_id).first()
    if hook is None or hook.disabled_at is None:
        return False
    creator = hook.created_by
    if not mail_address(creator):
        return False
    game = hook.game

    crew = hook.crew

    def build() -> EmailMultiAlternatives:
        if game is not None:
            name, page = game.display_name, emails.game_url(creator, game)
        elif crew is not None:  # a crew's hook: its page, where its members set hooks
            name, page = f"the crew {crew.name}", f"{settings.SITE_URL}{reverse('crew', args=[crew.pk])}"
        else:
            name, page = "your crew", settings.SITE_URL
        context = {
            "game": game, "game_name": name, "hook_url": _shown_url(hook.url),
            "failures": settings.WEBHOOK_DISABLE_AFTER, "last_error": hook.last_error,
            "game_url": page,
        }
        return emails.render("webhook_disabled", to=mail_address(creator),
                             subject=f"A webhook of {name} was turned off", context=context, user=creator)

    return emails.deliver_once(user=creator, game=game, kind=Notification.Kind.WEBHOOK_DISABLED,
                               key=str(hook.pk), build=build)


def _shown_url(url: str) -> str:
    """The hook's URL without its path: Discord and Slack URLs carry their token in the path."""
    try:
        target = check_url(url)
    except InvalidInput:
        return "(an invalid URL)"
    return f"{target.scheme}://{target.host}/…"
