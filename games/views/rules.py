"""The rules of each rule set for players, from its table plugin's rules document, and an
index of every game the site plays."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

import engine
from games.tables import table_for


@require_GET
def rules_index(request: HttpRequest) -> HttpResponse:
    games = []
    for rules_id, title in engine.available_rules():
        rules = engine.get_rules(rules_id)
        counts = rules.player_counts
        games.append({"id": rules_id, "title": title, "players": f"{counts[0]}–{counts[-1]}"})
    return render(request, "games/rules_index.html", {"games": games})


@require_GET
def rules(request: HttpRequest, rules_id: str) -> HttpResponse:
    titles = dict(engine.available_rules())
    if rules_id not in titles:
        raise Http404("No rules page for that game.")
    table = table_for(rules_id)
    context: dict[str, object] = {"title": titles[rules_id], "rules_id": rules_id, "table": table}
    if table.how_to_play_template:
        context["guide"] = table.how_to_play()
    else:
        doc = table.rules_doc
        context["source"] = doc.read_text("utf-8") if doc is not None and doc.is_file() else ""
    return render(request, "games/rules.html", context)
