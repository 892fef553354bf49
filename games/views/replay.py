"""The replay viewer: a slider over the log, one board per seq, and a chart of ducats."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from games import selectors, services
from games.models import Event, Game
from games.services.state import apply_events, load_state, rules_for
from games.views.presenters import board, seat_names, treasury_chart
from games.views.table import _game_or_404


def _treasuries(game: Game, seat: int | None, last: int) -> list[list[int]]:
    """Each seat's treasury after every event 1..last, as the replay's seat would see it."""
    rules = rules_for(game)
    state = load_state(game, 1)
    series = [[s["treasury"] for s in rules.view(state, seat)["seats"]]]
    for event in Event.objects.filter(game=game, seq__gt=1, seq__lte=last).order_by("seq"):
        state = apply_events(rules, state, [event])
        series.append([s["treasury"] for s in rules.view(state, seat)["seats"]])
    return series


def _frame_context(request: HttpRequest, game: Game, seq: int) -> dict[str, Any]:
    frame = selectors.replay_frame(game, request.user, seq)
    summary = selectors.seats_summary(game)
    return {"game": game, "frame": frame, "board": board(frame.view, summary), "replay": True}


def _seq_param(text: str, last: int) -> int:
    """``?seq=`` as a seq from 1 to ``last``; anything else shows the last one. Only ASCII
    digits count: ``str.isdigit`` also accepts "²" and "٣", which ``int`` then refuses or reads."""
    if re.fullmatch(r"[0-9]{1,10}", text) and 1 <= int(text) <= last:
        return int(text)
    return last


@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id, request)
    try:
        seat, last = selectors.replay_access(game, request.user)
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("game", game_id=game_id)
    seq = _seq_param(request.GET.get("seq", ""), last)
    context = _frame_context(request, game, seq)
    names = seat_names(selectors.seats_summary(game))
    colours = context["frame"].view["colours"]
    context.update(
        {
            "last": last,
            "viewer_seat": seat,
            "chart": treasury_chart(_treasuries(game, seat, last), colours, names),
        }
    )
    return render(request, "games/replay.html", context)


@require_GET
def replay_frame(request: HttpRequest, game_id: int, seq: int) -> HttpResponse:
    game = _game_or_404(game_id, request)
    try:
        context = _frame_context(request, game, seq)
    except services.InvalidInput as exc:
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        return HttpResponse(exc.detail, status=exc.status, content_type="text/plain; charset=utf-8")
    return render(request, "games/_replay_frame.html", context)
