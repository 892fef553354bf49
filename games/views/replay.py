"""The replay viewer: a slider over the log, one board per seq, and a chart of each seat's
score if the game ended then (the rule set's ``score_now``)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from games import eventlog, selectors, services
from games.eventlog import Viewer
from games.models import Event, Game
from games.read.state import load_state, rules_for, states_after_each
from games.tables import table_for
from games.tables.base import colour_name, seat_names
from games.views.charts import line_chart
from games.views.table import _game_or_404


def _series(game: Game, events: list[Event]) -> list[list[int | float]]:
    """Each seat's score if the game ended then (``Rules.score_now``, read from public parts
    only) after every event of ``events`` (1..last, in order)."""
    rules = rules_for(game)
    return [rules.score_now(state) for state in states_after_each(rules, load_state(game, 1), events[1:])]


def _moves(game: Game, events: list[Event], seat: int | None, names: dict[int, str]) -> list[dict[str, Any]]:
    """The replay's move list: every event's log sentence as the replay's seat may read it."""
    viewer = Viewer(seat=seat, game_over=game.is_over)
    return [
        {"seq": event.seq, "kind": event.kind, "text": eventlog.text_for(event, viewer),
         "who": names.get(event.seat) if event.seat is not None else None}
        for event in events
    ]


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
    """``?seq=`` as a seq from 1 to ``last``; anything else shows the first one (a replay tells
    the story from the start). Only ASCII digits count: ``str.isdigit`` also accepts
    "²" and "٣", which ``int`` then refuses or reads."""
    if re.fullmatch(r"[0-9]{1,10}", text) and 1 <= int(text) <= last:
        return int(text)
    return 1


@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id, request)
    try:
        seat, last = selectors.replay_access(game, request.user, _as_seat(request))
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("game", game_id=game_id)
    # A replay tells the story from the start; ?seq= (the move list's links) opens elsewhere.
    seq = _seq_param(request.GET.get("seq", ""), last)
    context = _frame_context(request, game, seq)
    names = seat_names(selectors.seats_summary(game))
    colours = context["frame"].view["colours"]
    events = list(Event.objects.filter(game=game, seq__lte=last).order_by("seq"))
    series = _series(game, events)
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
            "moves": _moves(game, events, seat, names),
            "watching_as": seat if game.is_over else None,
            "perspectives": perspectives,
            "chart": line_chart(
                series, colours, names, title=context["table"].chart_title, unit=context["table"].chart_unit,
            ),
            "series": series,
        }
    )
    for line in context["chart"]["lines"]:
        line["now"] = series[seq - 1][line["seat"]]
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
