"""Ratings per rule set: OpenSkill's Weng-Lin Plackett-Luce model over the finished games.

Who is rated: every person who held a seat, and each bot level ("random", "greedy", "strong")
as one pseudo-player per rule set ("bot:strong"; a bot seat that never recorded its level
played the greedy bot, ``DEFAULT_BOT``). A game is applied once, in the order of (``finished_at``, game
id), as an outbox side effect of its game-over event (``games.tasks.update_ratings``), or by
``manage.py rebuild_ratings``, which recomputes everything from scratch in that order.

The rules, which the tests recompute independently with the library:

- Places: winners first, then by final score, highest first; equal (winner, score) tie. A
  seat its player resigned from (a ``seat_to_bot`` event with reason "resigned") is last,
  tied with any other resigned seat, whatever the bot made of it afterwards. A person whose
  seat was handed to a bot after timeouts keeps the seat's place.
- Each seat is one team of one in ``PlackettLuce().rate`` (the library's defaults:
  mu 25, sigma 25/3, tau 25/300). A bot kind holding several seats enters each with its
  rating before the game; its rating after is the mean of those seats' (mu, sigma).
- What counts: a public game counts for everyone in it; a private game only for the people
  in it who opted in (``PlayerProfile.rate_private_games``), never for bots, so a private game
  nobody opted in for changes no rating and no public page. The match is still computed with
  everyone in it; only the counted participants' ratings change.
- The rating shown is the conservative ``mu - 3 sigma`` (0 for a newcomer), rounded to 2
  places.

Order: applying is serialised per rule set (an advisory lock on PostgreSQL). A task for a game
first applies every earlier-finished game still unrated, so a game whose update is still
pending is applied before a later one. Should a game turn up that finished before one already
applied (its transaction committed late), the rule set is recomputed from scratch, so the
ratings always equal a rebuild in finish order.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, QuerySet
from openskill.models import PlackettLuce

from games.models import Event, Game, PlayerProfile, RatedGame, Rating, RatingChange, Seat

# A seat's bot when its kind was never recorded (as games.selectors shows it).
DEFAULT_BOT = "greedy"


@cache
def model() -> PlackettLuce:
    return PlackettLuce()


def shown(mu: float, sigma: float) -> float:
    """The rating people see: the conservative estimate mu - 3 sigma."""
    return round(mu - 3 * sigma, 2)


@dataclass(frozen=True)
class Who:
    """A rated participant: a person (``user_id``) or a bot kind (``bot``)."""

    user_id: int | None
    bot: str

    @property
    def username_key(self) -> str:
        return f"bot:{self.bot}" if self.user_id is None else f"user:{self.user_id}"


@dataclass(frozen=True)
class Place:
    """One seat at the end: who held it and its place (1 is first)."""

    who: Who
    rank: int


def places(result: dict[str, Any], seats: list[tuple[int, Who]], resigned: set[int]) -> list[Place]:
    """The seats' places from the engine's result (``{"scores", "winners"}``, by position):
    winners first, then by score; resigned seats last, tied."""
    scores = result.get("scores") or []
    winners = set(result.get("winners") or [])

    def key(position: int) -> tuple[int, float]:
        score = scores[position] if position < len(scores) else 0
        return (0 if position in winners else 1, -float(score))

    playing = [position for position, _who in seats if position not in resigned]
    keys = sorted({key(position) for position in playing})
    rank_of = {k: i + 1 for i, k in enumerate(keys)}
    last = len(keys) + 1
    return [
        Place(who, last if position in resigned else rank_of[key(position)])
        for position, who in sorted(seats, key=lambda item: item[0])
    ]


Ratings = dict[Who, tuple[float, float]]


def rate(
    current: Ratings, seat_places: list[Place], counted: set[Who]
) -> dict[Who, tuple[float, float, int]]:
    """The counted participants' (mu, sigma, best rank) after a game with ``seat_places``,
    from their ratings in ``current`` (a newcomer has the model's defaults)."""
    distinct = {place.who for place in seat_places}
    if len(distinct) < 2 or not counted & distinct:
        return {}
    pl = model()
    teams = [[pl.rating(*current.get(place.who, (pl.mu, pl.sigma)))] for place in seat_places]
    after = pl.rate(teams, ranks=[float(place.rank) for place in seat_places])
    sums: dict[Who, list[float]] = {}
    for place, (new,) in zip(seat_places, after, strict=True):
        entry = sums.setdefault(place.who, [0.0, 0.0, 0.0, float(place.rank)])
        entry[0] += new.mu
        entry[1] += new.sigma
        entry[2] += 1
        entry[3] = min(entry[3], place.rank)
    return {
        who: (mu / n, sigma / n, int(rank)) for who, (mu, sigma, n, rank) in sums.items() if who in counted
    }


# ---------------------------------------------------------------------------------------------
# A finished game as the rating rules see it


@dataclass(frozen=True)
class Finished:
    game_id: int
    rules_id: str
    seq: int
    finished_at: datetime
    places: list[Place]
    counted: set[Who]


def seat_who(seat: Seat) -> Who:
    if seat.user_id is not None:
        return Who(seat.user_id, "")
    return Who(None, seat.bot or DEFAULT_BOT)


def resigned_positions(game_id: int) -> set[int]:
    events = Event.objects.filter(game_id=game_id, kind=Event.Kind.SEAT_TO_BOT)
    payloads = events.values_list("payload", flat=True)
    return {
        int(p["seat"]) for p in payloads
        if isinstance(p, dict) and p.get("reason") == "resigned" and isinstance(p.get("seat"), int)
    }


def finished(game: Game) -> Finished:
    seats = list(Seat.objects.filter(game_id=game.pk).order_by("position"))
    who = [(seat.position, seat_who(seat)) for seat in seats]
    everyone = {w for _p, w in who}
    if game.is_public:
        counted = everyone
    else:
        opted = set(
            PlayerProfile.objects.filter(
                user_id__in=[w.user_id for w in everyone if w.user_id is not None], rate_private_games=True
            ).values_list("user_id", flat=True)
        )
        counted = {w for w in everyone if w.user_id in opted}
    assert game.finished_at is not None
    return Finished(
        game_id=game.pk,
        rules_id=game.rules_id,
        seq=game.seq,
        finished_at=game.finished_at,
        places=places(game.result or {}, who, resigned_positions(game.pk)),
        counted=counted,
    )


# ---------------------------------------------------------------------------------------------
# Applying games (in a transaction, under the rule set's lock)


def _lock(rules_id: str) -> None:
    """Serialise rating updates of one rule set until the transaction ends."""
    if connection.vendor == "postgresql":
        key = zlib.crc32(f"ratings:{rules_id}".encode())
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
    # SQLite: one writer at a time already.


def _unrated(rules_id: str) -> QuerySet[Game]:
    rated = RatedGame.objects.filter(game_id=OuterRef("pk"))
    return (
        Game.objects.filter(rules_id=rules_id, status=Game.Status.FINISHED, finished_at__isnull=False)
        .filter(~Exists(rated))
        .order_by("finished_at", "pk")
    )


def _ratings_of(rules_id: str, people: Iterable[Who]) -> dict[Who, Rating]:
    people = list(people)
    user_ids = [w.user_id for w in people if w.user_id is not None]
    bots = [w.bot for w in people if w.user_id is None]
    rows = Rating.objects.filter(rules_id=rules_id, user_id__in=user_ids) | Rating.objects.filter(
        rules_id=rules_id, bot__in=bots
    )
    return {Who(row.user_id, row.bot): row for row in rows}


def _apply(game: Finished) -> int:
    """Apply one finished game; returns the ratings changed."""
    pl = model()
    rows = _ratings_of(game.rules_id, {place.who for place in game.places})
    current = {who: (row.mu, row.sigma) for who, row in rows.items()}
    after = rate(current, game.places, game.counted)
    changes = []
    for who, (mu, sigma, rank) in sorted(after.items(), key=lambda item: item[0].username_key):
        mu_before, sigma_before = current.get(who, (pl.mu, pl.sigma))
        row = rows.get(who)
        if row is None:
            row = Rating(user_id=who.user_id, bot=who.bot, rules_id=game.rules_id, games=0)
        row.mu, row.sigma, row.shown = mu, sigma, shown(mu, sigma)
        row.games += 1
        row.save()
        changes.append(
            RatingChange(
                game_id=game.game_id, user_id=who.user_id, bot=who.bot, rules_id=game.rules_id,
                seq=game.seq, finished_at=game.finished_at, rank=rank,
                mu_before=mu_before, sigma_before=sigma_before, mu_after=mu, sigma_after=sigma,
            )
        )
    RatingChange.objects.bulk_create(changes)
    RatedGame.objects.create(game_id=game.game_id, rules_id=game.rules_id, finished_at=game.finished_at)
    return len(changes)


def apply_pending(rules_id: str, *, up_to: Game | None = None) -> int:
    """Apply the finished games of ``rules_id`` not applied yet, in finish order (up to and
    including ``up_to`` when given); returns how many games were applied. Idempotent."""
    with transaction.atomic():
        _lock(rules_id)
        pending = _unrated(rules_id)
        if up_to is not None:
            if up_to.finished_at is None or RatedGame.objects.filter(game_id=up_to.pk).exists():
                return 0
            pending = pending.filter(finished_at__lte=up_to.finished_at)
        games = list(pending)
        if not games:
            return 0
        latest = RatedGame.objects.filter(rules_id=rules_id).order_by("-finished_at", "-game_id").first()
        first = games[0]
        assert first.finished_at is not None
        if latest is not None and (first.finished_at, first.pk) < (latest.finished_at, latest.game_id):
            # A game that finished before one already applied: recompute in order.
            return _rebuild(rules_id)
        for game in games:
            _apply(finished(game))
        return len(games)


def update_for_game(game_id: int) -> int:
    """The game-over side effect: apply ``game_id`` (and any earlier-finished game still
    pending) if it is finished and not applied yet. Safe to run any number of times."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return 0
    return apply_pending(game.rules_id, up_to=game)


def _rebuild(rules_id: str) -> int:
    RatingChange.objects.filter(rules_id=rules_id).delete()
    Rating.objects.filter(rules_id=rules_id).delete()
    RatedGame.objects.filter(rules_id=rules_id).delete()
    games = list(_unrated(rules_id))
    for game in games:
        _apply(finished(game))
    return len(games)


def rebuild(rules_ids: Iterable[str] | None = None) -> dict[str, int]:
    """Recompute every rating of ``rules_ids`` (every rule set with finished games, or any
    ratings, by default) from the finished games in finish order; returns games per rule set."""
    if rules_ids is None:
        known = set(Game.objects.filter(status=Game.Status.FINISHED).values_list("rules_id", flat=True))
        known |= set(Rating.objects.values_list("rules_id", flat=True))
        rules_ids = sorted(known)
    applied: dict[str, int] = {}
    for rules_id in rules_ids:
        with transaction.atomic():
            _lock(rules_id)
            applied[rules_id] = _rebuild(rules_id)
    return applied


def private_rules_of(user_id: int) -> list[str]:
    """The rule sets in which ``user_id`` held a seat of a finished private game."""
    return sorted(
        set(
            Game.objects.filter(status=Game.Status.FINISHED, is_public=False, seats__user_id=user_id)
            .values_list("rules_id", flat=True)
        )
    )
