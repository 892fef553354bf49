"""Player pages and leaderboards, as the site and the API show them.

Only what the viewer may see: games counted per rule set, wins and recent games come from the
games the viewer may open (public ones, and private ones they sit in or created); ratings and
their history come from ``games.ratings``, where a private game counts only for players who
opted in. So a private game changes nothing an outsider sees, unless its player chose so.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Exists, OuterRef, Q, QuerySet

import engine
from games import ratings, seat_names
from games.charts import Series, line_chart
from games.errors import NotFound
from games.models import Game, Rating, RatingChange, Seat, person_name

AnyUser = User | AnonymousUser
RECENT = 10
LEADERBOARD = 100


def rules_titles() -> dict[str, str]:
    return dict(engine.available_rules())


def known_rules(rules_id: object) -> str:
    """``rules_id`` if it names a rule set, else NotFound naming the known ones."""
    titles = rules_titles()
    if not isinstance(rules_id, str) or rules_id not in titles:
        raise NotFound(f"No rule set {rules_id!r}; known rule sets: {', '.join(sorted(titles))}.")
    return rules_id


def player(username: object) -> User:
    if not isinstance(username, str) or not username:
        raise NotFound("No such player.")
    found = User.objects.filter(username=username, is_active=True).select_related("profile").first()
    if found is None:
        raise NotFound(f"No player called {username!r}.")
    return found


def visible_games(user: User, viewer: AnyUser | None) -> QuerySet[Game]:
    """``user``'s games (lobby excluded) that ``viewer`` may open, newest first."""
    games = Game.objects.filter(seats__user=user).exclude(status=Game.Status.LOBBY)
    if viewer is not None and viewer.is_authenticated:
        viewer_seat = Seat.objects.filter(game_id=OuterRef("pk"), user_id=viewer.pk)
        games = games.filter(Q(is_public=True) | Q(created_by_id=viewer.pk) | Exists(viewer_seat))
    else:
        games = games.filter(is_public=True)
    return games.order_by("-finished_at", "-started_at", "-pk")


def _place(game: Game, position: int | None) -> dict[str, Any]:
    result = game.result or {}
    winners = result.get("winners") or []
    scores = result.get("scores") or []
    if position is None or game.status != Game.Status.FINISHED:
        return {"won": None, "score": None}
    return {"won": position in winners, "score": scores[position] if position < len(scores) else None}


def player_page(username: object, viewer: AnyUser | None) -> dict[str, Any]:
    """What ``viewer`` may know of the player called ``username``: the API's shape, plus
    the per-rule-set counts and each rating's history (for the chart)."""
    user = player(username)
    titles = rules_titles()
    games = list(visible_games(user, viewer).prefetch_related("seats"))
    positions = {g.pk: next((s.position for s in g.seats.all() if s.user_id == user.pk), None) for g in games}
    per_rules: dict[str, dict[str, int]] = {}
    for game in games:
        if game.status != Game.Status.FINISHED:
            continue
        counts = per_rules.setdefault(game.rules_id, {"games": 0, "wins": 0})
        counts["games"] += 1
        counts["wins"] += 1 if _place(game, positions[game.pk])["won"] else 0
    rows = Rating.objects.filter(user=user).order_by("rules_id")
    changes = RatingChange.objects.filter(user=user).order_by("rules_id", "finished_at", "game_id")
    history: dict[str, list[float]] = {}
    for change in changes:
        history.setdefault(change.rules_id, []).append(ratings.shown(change.mu_after, change.sigma_after))
    recent = [
        {
            "id": game.pk,
            "title": game.display_name,
            "rules": game.rules_id,
            "status": game.status,
            "is_public": game.is_public,
            "finished_at": game.finished_at,
            **_place(game, positions[game.pk]),
        }
        for game in games[:RECENT]
    ]
    return {
        "username": user.get_username(),
        "display_name": person_name(user),
        "ratings": {row.rules_id: {"rating": row.shown, "games": row.games} for row in rows},
        "played": per_rules,
        "history": {rules_id: [0.0, *points] for rules_id, points in history.items()},
        "recent_games": recent,
        "titles": titles,
    }


def rating_chart(title: str, points: list[float]) -> dict[str, Any]:
    """One rule set's rating after each rated game (0: before the first)."""
    series = [Series(title, [(i, value) for i, value in enumerate(points)])]
    return line_chart(series, title=f"Rating in {title}", unit="rating", x_label="games rated")


def leaderboard(rules_id: object) -> list[dict[str, Any]]:
    """The best ``LEADERBOARD`` ratings of a rule set, people and bot kinds alike."""
    rules_id = known_rules(rules_id)
    rows = (
        Rating.objects.filter(rules_id=rules_id)
        .select_related("user__profile")
        .order_by("-shown", "-games", "user__username", "bot")[:LEADERBOARD]
    )
    return [
        {
            "username": row.user.get_username() if row.user is not None else f"bot:{row.bot}",
            "display_name": person_name(row.user) if row.user is not None else bot_name(row.bot),
            "is_bot": row.user is None,
            "rating": row.shown,
            "games": row.games,
        }
        for row in rows
    ]


def bot_name(kind: str) -> str:
    """A bot level rated as one player: named as at the table ("Strong bot")."""
    return seat_names.bot_name(kind)
