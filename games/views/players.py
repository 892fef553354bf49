"""Player pages and rating leaderboards (games/players.py reads them; the API shows the same)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games import players
from games.errors import NotFound


@require_GET
def player(request: HttpRequest, username: str) -> HttpResponse:
    try:
        page = players.player_page(username, request.user)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    titles = page["titles"]
    rules = sorted(set(page["ratings"]) | set(page["played"]))
    rows = [
        {
            "rules": rules_id,
            "title": titles.get(rules_id, rules_id),
            "rating": page["ratings"].get(rules_id),
            "played": page["played"].get(rules_id, {"games": 0, "wins": 0}),
            "chart": (
                players.rating_chart(titles.get(rules_id, rules_id), page["history"][rules_id])
                if rules_id in page["history"]
                else None
            ),
        }
        for rules_id in rules
    ]
    for game in page["recent_games"]:
        game["rules_title"] = titles.get(game["rules"], game["rules"])
    return render(request, "games/player.html", {"page": page, "rows": rows})


@require_GET
def ratings_index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/ratings_index.html", {"titles": sorted(players.rules_titles().items())})


@require_GET
def leaderboard(request: HttpRequest, rules_id: str) -> HttpResponse:
    try:
        results = players.leaderboard(rules_id)
    except NotFound as exc:
        raise Http404(exc.detail) from None
    titles = players.rules_titles()
    return render(
        request,
        "games/leaderboard.html",
        {
            "rules_id": rules_id, "title": titles[rules_id], "results": results,
            "titles": sorted(titles.items()),
        },
    )
