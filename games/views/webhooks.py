"""The webhook settings panel of the table page (a game's players add and delete its hooks)
and of the crew page (a crew's members, for every game of the crew): one small form, one
template (games/_webhooks.html), games/services/webhooks.py doing the work. The secret of a
new hook is shown once, on the page the form leads back to, from the session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from games import services
from games.models import Crew, Game, Webhook
from games.services import webhooks
from games.views.accounts import current_user

SESSION_KEY = "new_webhook"
LABELS = {
    "turn": "Whose turn it is", "move": "Every move", "game_started": "Game started",
    "game_finished": "Game over", "chat": "Table talk",
}


def _panel(
    request: HttpRequest, owner: dict[str, Any], delete_url: str, add_url: str, can_add: bool
) -> dict[str, Any]:
    """The panel's context for the hooks of ``owner`` (``{"game": pk}`` or ``{"crew": pk}``)."""
    new = request.session.pop(SESSION_KEY, None) if SESSION_KEY in request.session else None
    shown = new if isinstance(new, dict) and all(new.get(k) == v for k, v in owner.items()) else None
    rows = Webhook.objects.filter(**{f"{k}_id": v for k, v in owner.items()}).select_related("created_by")
    formats = dict(Webhook.Format.choices)
    hooks = []
    for row in rows.order_by("pk"):
        hook = webhooks.describe(row)
        hook["format_label"] = formats.get(hook["format"], hook["format"])
        hook["delete_url"] = reverse(delete_url, args=[*owner.values(), row.pk])
        hooks.append(hook)
    return {
        "show_webhooks": True,
        "webhooks": hooks,
        "webhook_formats": Webhook.Format.choices,
        "webhook_events": [(e, LABELS[e], e in webhooks.DEFAULT_EVENTS) for e in Webhook.EVENTS],
        "new_webhook": shown,
        "webhooks_can_add": can_add,
        "webhook_add_url": reverse(add_url, args=list(owner.values())),
    }


def settings_context(request: HttpRequest, game: Game, has_seat: bool) -> dict[str, Any]:
    """What the settings panel shows a player of ``game`` (nothing for anyone else)."""
    if not has_seat:
        return {}
    return _panel(request, {"game": game.pk}, "game-webhook-delete", "game-webhook-add", not game.is_over)


def crew_settings_context(request: HttpRequest, crew: Crew) -> dict[str, Any]:
    """What the settings panel shows a member of ``crew`` (the crew page is members only)."""
    context = _panel(request, {"crew": crew.pk}, "crew-webhook-delete", "crew-webhook-add", True)
    context["webhooks_of_crew"] = True
    return context


def _add(request: HttpRequest, owner: dict[str, int], create: Callable[..., tuple[Webhook, str]]) -> None:
    try:
        hook, secret = create(
            **{f"{k}_id": v for k, v in owner.items()}, user=current_user(request),
            url=request.POST.get("url", ""), format=request.POST.get("format", ""),
            events=request.POST.getlist("events") or [],
        )
    except services.ServiceError as exc:
        messages.error(request, exc.detail.replace("`", ""))
    else:
        request.session[SESSION_KEY] = {**owner, "id": hook.pk, "secret": secret}
        messages.success(request, "Webhook added.")


def _delete(request: HttpRequest, delete: Callable[[], None]) -> None:
    try:
        delete()
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, "Webhook deleted.")


def _back(game_id: int) -> HttpResponse:
    return redirect(f"{reverse('game', args=[game_id])}#webhooks")


def _crew_back(crew_id: int) -> HttpResponse:
    return redirect(f"{reverse('crew', args=[crew_id])}#webhooks")


@login_required
@require_POST
def webhook_add(request: HttpRequest, game_id: int) -> HttpResponse:
    _add(request, {"game": game_id}, webhooks.webhook_create)
    return _back(game_id)


@login_required
@require_POST
def webhook_delete(request: HttpRequest, game_id: int, hook_id: int) -> HttpResponse:
    user = current_user(request)
    _delete(request, lambda: webhooks.webhook_delete(game_id=game_id, hook_id=hook_id, user=user))
    return _back(game_id)


@login_required
@require_POST
def crew_webhook_add(request: HttpRequest, crew_id: int) -> HttpResponse:
    _add(request, {"crew": crew_id}, webhooks.crew_webhook_create)
    return _crew_back(crew_id)


@login_required
@require_POST
def crew_webhook_delete(request: HttpRequest, crew_id: int, hook_id: int) -> HttpResponse:
    user = current_user(request)
    _delete(request, lambda: webhooks.crew_webhook_delete(crew_id=crew_id, hook_id=hook_id, user=user))
    return _crew_back(crew_id)
