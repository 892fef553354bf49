"""The rules of each rule set, with every clarification, rendered from games/rules_docs/."""

from __future__ import annotations

from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

import engine

DOCS = Path(__file__).resolve().parent.parent / "rules_docs"


@require_GET
def rules(request: HttpRequest, rules_id: str) -> HttpResponse:
    titles = dict(engine.available_rules())
    path = DOCS / f"{rules_id}.md"
    if rules_id not in titles or not path.is_file():
        raise Http404("No rules page for that game.")
    return render(
        request,
        "games/rules.html",
        {"title": titles[rules_id], "source": path.read_text("utf-8"), "rules_id": rules_id},
    )
