"""The table page's webhook settings: a game's players add and delete its hooks with a small
form (games/services/webhooks.py does the work). The secret of a new hook is shown once, on
the page the form leads back to, from the session."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from games import services
from games.models import Game, Webhook
from games.services import webhooks
from games.views.accounts import current_user

SESSION_KEY = "new_webhook"
LABELS = {
    "turn": "Whose turn it is", "move": "Every move", "game_started": "Game started",
    "game_finished": "Game over", "chat": "Table talk",
}


def settings_context(request: HttpRequest, game: Game, has_seat: bool) -> dict[str, Any]:
    """What the settings panel shows a player of ``game`` (nothing for anyone else)."""
    if not has_seat:
        return {}
    new = request.session.pop(SESSION_KEY, None) if SESSION_KEY in request.session else None
    shown = new if isinstance(new, dict) and new.get("game") == game.pk else None
    hooks = [webhooks.describe(h) for h in Webhook.objects.filter(game=game).select_related("created_by")]
    formats = dict(Webhook.Format.choices)
    for hook in hooks:
        hook["format_label"] = formats.get(hook["format"], hook["format"])
    return {
        "show_webhooks": True,
        "webhooks": hooks,
        "webhook_formats": Webhook.Format.choices,
        "webhook_events": [(e, LABELS[e], e in webhooks.DEFAULT_EVENTS) for e in Webhook.EVENTS],
        "new_webhook": shown,
        "webhooks_can_add": not game.is_over,
    }


def _back(game_id: int) -> HttpResponse:
    return redirect(f"{reverse('game', args=[game_id])}#webhooks")


@login_required
@require_POST
def webhook_add(request: HttpRequest, game_id: int) -> HttpResponse:
    try:
        hook, secret = webhooks.webhook_create(
            game_id=game_id, user=current_user(request), url=request.POST.get("url", ""),
            format=request.POST.get("format", ""), events=request.POST.getlist("events") or [],
        )
    except services.ServiceError as exc:
        messages.error(request, exc.detail.replace("`", ""))
    else:
        request.session[SESSION_KEY] = {"game": game_id, "id": hook.pk, "secret": secret}
        messages.success(request, "Webhook added.")
    return _back(game_id)


@login_required
@require_POST
def webhook_delete(request: HttpRequest, game_id: int, hook_id: int) -> HttpResponse:
    try:
        webhooks.webhook_delete(game_id=game_id, hook_id=hook_id, user=current_user(request))
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, "Webhook deleted.")
    return _back(game_id)
