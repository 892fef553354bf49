"""The replay viewer: a slider over the log, one board per seq, and a chart of what the
rule set's table plots per seat (ducats for Pirates)."""

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
from games.tables import Table, table_for
from games.tables.base import colour_name, seat_names
from games.views.charts import line_chart
from games.views.table import _game_or_404


def _series(game: Game, table: Table, seat: int | None, last: int) -> list[list[int]]:
    """What the table plots for each seat after every event 1..last, as the replay's seat
    would see it (a value the table leaves out counts as 0)."""
    rules = rules_for(game)
    state = load_state(game, 1)

    def row(view: dict[str, Any]) -> list[int]:
        return [table.chart_value(view, s) or 0 for s in range(game.players)]

    series = [row(rules.view(state, seat))]
    for event in Event.objects.filter(game=game, seq__gt=1, seq__lte=last).order_by("seq"):
        state = apply_events(rules, state, [event])
        series.append(row(rules.view(state, seat)))
    return series


def _as_seat(request: HttpRequest) -> int | None:
    """``?as=<seat>``: whose eyes a finished game's replay is watched through."""
    requested = request.GET.get("as", "")
    return int(requested) if requested.isdigit() else None


def _frame_context(request: HttpRequest, game: Game, seq: int) -> dict[str, Any]:
    frame = selectors.replay_frame(game, request.user, seq, _as_seat(request))
    summary = selectors.seats_summary(game)
    table = table_for(game.rules_id)
    return {"game": game, "frame": frame, "board": table.board(frame.view, summary), "replay": True,
            "table": table}


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
        seat, last = selectors.replay_access(game, request.user, _as_seat(request))
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("game", game_id=game_id)
    seq = _seq_param(request.GET.get("seq", ""), last)
    context = _frame_context(request, game, seq)
    names = seat_names(selectors.seats_summary(game))
    colours = context["frame"].view["colours"]
    perspectives: list[dict[str, Any]] = []
    if selectors.replay_perspectives(game):
        perspectives = [{"seat": None, "label": "Everyone", "colour": "", "current": seat is None}] + [
            {"seat": s, "label": colour_name(colours, s), "name": names.get(s, ""), "colour": colours[s],
             "current": seat == s}
            for s in range(game.players)
        ]
    context.update(
        {
            "last": last,
            "viewer_seat": seat,
            "watching_as": seat if game.is_over else None,
            "perspectives": perspectives,
            "chart": line_chart(
                _series(game, context["table"], seat, last), colours, names,
                title=context["table"].chart_title, unit=context["table"].chart_unit,
            ),
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
