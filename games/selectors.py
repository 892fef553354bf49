"""Reading games: who may see what, lobby lists, the caller's view, the log and replays.

Hidden information is filtered here, in one place: the seed only once the game is over, the
engine's ``view`` for the caller's own seat (a spectator's view otherwise), replays of a
running game only for its players and only from their own seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from games import eventlog, rows
from games.errors import Forbidden, InvalidInput, NotFound
from games.eventlog import Viewer, public_actor
from games.models import Event, Game, Invitation, Seat, person_name
from games.read import SeatTable, fixed_deal_options, rules_for, seat_table
from games.seat_names import UNRECORDED_BOT

AnyUser = User | AnonymousUser


def _is_authenticated(user: AnyUser | None) -> bool:
    return user is not None and bool(user.is_authenticated)


def user_seat(game: Game, user: AnyUser | None, seats: list[Seat] | None = None) -> Seat | None:
    if not _is_authenticated(user):
        return None
    candidates = game.seats.all() if seats is None else seats
    return next((seat for seat in candidates if seat.user_id == user.pk), None)  # type: ignore[union-attr]


def visible_game(game_id: object, user: AnyUser | None) -> Game:
    """The game, if ``user`` may see it: public games for everyone, private ones for their players."""
    if isinstance(game_id, bool) or not isinstance(game_id, int):
        raise NotFound("No such game.")
    game = rows.game_with_seats(game_id)
    if game is None:
        raise NotFound(f"No game with id {game_id}.")
    if (
        not game.is_public
        and user_seat(game, user) is None
        and not (
            _is_authenticated(user) and game.created_by_id == user.pk  # type: ignore[union-attr]
        )
    ):
        raise NotFound(f"No game with id {game_id}.")
    return game


def visible_options(game: Game) -> dict[str, Any]:
    """The game's options, without those its rule set declares secret (an explicit deck is the
    deck order): hidden like the seed until the end, and for ever when the rule set never
    reveals the seed (Captain Lucky's deck would give away the hands, K-END-4)."""
    if seed_revealed(game):
        return dict(game.options)
    secret = {info.name for info in rules_for(game).options if info.secret}
    return {name: value for name, value in game.options.items() if name not in secret}


def fixed_deal_parts(game: Game) -> list[str]:
    """The options of ``game`` that fixed what the seed would have drawn (empty for a fair
    shuffle). Their names are public from the start; their values only if not secret."""
    return fixed_deal_options(rules_for(game), game.options) if game.fixed_deal else []


def seats_summary(game: Game, seats: list[Seat] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "seat": seat.position,
            "user": seat.user.get_username() if seat.user else None,
            # What people see: the display name (the username identifies, for the API).
            "name": person_name(seat.user) if seat.user else None,
            "bot": (seat.bot or UNRECORDED_BOT) if (seat.user_id is None or seat.replaced_by_bot) else None,
            "colour": seat.colour or None,
            "must_act": seat.must_act,
        }
        for seat in sorted(game.seats.all() if seats is None else seats, key=lambda s: s.position)
    ]


def game_detail(
    game: Game, user: AnyUser | None, seats: list[Seat] | None = None, table: SeatTable | None = None
) -> dict[str, Any]:
    """Everything the caller may know about ``game`` now; ``table`` is the caller's
    ``seats_table`` when the caller has it already (the site's table page)."""
    seat = user_seat(game, user, seats)
    detail: dict[str, Any] = {
        "id": game.pk,
        "title": game.display_name,
        "rules": game.rules_id,
        "rules_version": game.rules_version,
        "status": game.status,
        "players": game.players,
        "is_public": game.is_public,
        "fixed_deal": game.fixed_deal,
        "fixed_deal_options": fixed_deal_parts(game),
        "options": visible_options(game),
        "created_by": game.created_by.get_username(),
        "seq": game.seq,
        "seats": seats_summary(game, seats),
        "your_seat": seat.position if seat is not None and game.status != Game.Status.LOBBY else None,
        "to_act": list(game.to_act),
        "deadline": game.deadline,
        "move_time_seconds": int(game.move_time.total_seconds()),
        "timeout_policy": game.timeout_policy,
        "view": None,
        "legal_actions": [],
        "moves": [],
        "result": game.result,
        "seed_sha256": game.seed_sha256 or None,
        "seed": game.seed if seed_revealed(game) else None,
    }
    if game.seq >= 1:
        table = seats_table(game, seat) if table is None else table
        detail["view"] = table.view
        detail["legal_actions"] = table.legal_actions
        # Numbered, grouped and previewed as the turn email lists them (one numbering).
        detail["moves"] = table.move_rows
    return detail


def seats_table(game: Game, seat: Seat | None, seq: int | None = None) -> SeatTable:
    """The table of the caller's ``seat`` (a spectator's without one): a seat a bot plays is
    offered no moves. The game must have started."""
    position = seat.position if seat is not None else None
    return seat_table(game, position, seq=seq, playing=seat is not None and not seat.replaced_by_bot)


def games_for_user(user: User) -> QuerySet[Game]:
    """The user's games: their move first, then running, waiting to start, and ended.

    The user's seats are read first (their index on user), then their games by id: a join
    of seats and games lets PostgreSQL walk the whole games table's primary key in a merge
    join for a busy player, which grows with the site; this grows with the player's games
    only. No DISTINCT is needed: a user has at most one seat per game (seat_unique_user)."""
    seats = list(Seat.objects.filter(user=user).values_list("game_id", "must_act"))
    to_move = [game_id for game_id, must_act in seats if must_act]
    return (
        Game.objects.filter(pk__in=[game_id for game_id, _ in seats])
        .annotate(
            my_turn=Case(
                When(Q(pk__in=to_move, status="active"), then=Value(1)),
                default=Value(0),
                output_field=IntegerField(),
            ),
            phase=Case(
                When(status="active", then=Value(0)),
                When(status="lobby", then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            ),
        )
        .order_by("-my_turn", "phase", "deadline", "-created_at", "-pk")
        .prefetch_related("seats__user__profile")
    )


def open_public_games(user: AnyUser | None) -> QuerySet[Game]:
    games = Game.objects.filter(status=Game.Status.LOBBY, is_public=True)
    games = games.prefetch_related("seats__user__profile")
    if isinstance(user, User) and user.is_authenticated:
        games = games.exclude(seats__user=user)
    return games.order_by("-created_at")


def _actor_names(game: Game, seats: list[Seat] | None = None) -> dict[str, str]:
    names = {f"user:{game.created_by_id}": f"user:{game.created_by.get_username()}"}
    for seat in game.seats.all() if seats is None else seats:
        if seat.user is not None:
            names[f"user:{seat.user_id}"] = f"user:{seat.user.get_username()}"
    return names


def log_viewer(game: Game, user: AnyUser | None, seats: list[Seat] | None = None) -> Viewer:
    """Whose eyes the log is shaped for: the user's seat (if any) and whether the game is over."""
    seat = user_seat(game, user, seats)
    position = seat.position if seat is not None else None
    names = _actor_names(game, seats)
    return Viewer(seat=position, game_over=game.is_over, seed_revealed=seed_revealed(game), names=names)


def seed_revealed(game: Game) -> bool:
    """Whether the seed may be shown: once the game is over, unless its rule set keeps
    something secret for ever that the seed would give away."""
    return game.is_over and bool(game.seed) and rules_for(game).reveal_seed_at_end


def events_for(game: Game, user: AnyUser | None, after: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
    """Log entries after ``after``, each shaped for the caller (``games.eventlog``)."""
    viewer = log_viewer(game, user)
    events = Event.objects.filter(game=game, seq__gt=after).order_by("seq")[:limit]
    return [eventlog.shape(event, viewer) for event in events]


@dataclass(frozen=True)
class ReplayFrame:
    seq: int
    last_seq: int
    view: dict[str, Any]
    text: str
    seat: int | None


def replay_perspectives(game: Game) -> bool:
    """Whether a replay of ``game`` may be watched through any seat's eyes (hands, secret
    picks): once it is over, unless its rule set keeps something secret for ever."""
    return game.is_over and game.seq >= 1 and rules_for(game).reveal_seed_at_end


def replay_access(game: Game, user: AnyUser | None, as_seat: int | None = None) -> tuple[int | None, int]:
    """(the seat whose view a replay shows, the last seq it may show), or Forbidden.
    ``as_seat`` asks for a seat's own view of a finished game (``replay_perspectives``)."""
    if game.seq < 1:
        raise Forbidden("The game has not started yet: there is nothing to replay.")
    seat = user_seat(game, user)
    if game.is_over:
        if as_seat is not None and 0 <= as_seat < game.players and replay_perspectives(game):
            return as_seat, game.seq
        return None, game.seq
    if seat is None:
        raise Forbidden("A running game can be replayed only by its players; watch it again when it ends.")
    return seat.position, game.seq


def replay_frame(game: Game, user: AnyUser | None, seq: object, as_seat: int | None = None) -> ReplayFrame:
    seat, last = replay_access(game, user, as_seat)
    if isinstance(seq, bool) or not isinstance(seq, int) or not (1 <= seq <= last):
        raise InvalidInput(f"seq must be a whole number from 1 to {last}.")
    view = seat_table(game, seat, seq=seq, playing=False).view
    event = Event.objects.get(game=game, seq=seq)
    text = eventlog.text_for(event, Viewer(seat=seat, game_over=game.is_over))
    return ReplayFrame(seq=seq, last_seq=last, view=view, text=text, seat=seat)


def export_rows(game: Game) -> list[dict[str, Any]]:
    """The game's log as the engine's JSON-lines rows with their chain hashes, and the recorded
    result. Finished games only."""
    if not game.is_over or game.seq < 1:
        raise Forbidden("The log of a game is exported only once the game is over (it contains the seed).")
    if not rules_for(game).reveal_seed_at_end:
        raise Forbidden(
            f"The log of a game of {game.rules_title} cannot be exported: its seed would reveal the "
            "hands, which stay secret for ever."
        )
    rows: list[dict[str, Any]] = []
    names = _actor_names(game)
    for event in Event.objects.filter(game=game).order_by("seq"):
        row: dict[str, Any] = {
            "seq": event.seq,
            "kind": event.kind,
            "seat": event.seat,
            "payload": event.payload,
            "actor": public_actor(event.actor, names),
            # The chain (engine/chain.py) lets anyone check the log with `python -m engine
            # replay`. Only exported after the end: while a game runs, two consecutive hashes
            # would let a player test guesses of a hidden action against them.
            "hash": event.hash,
        }
        rows.append(row)
    if game.result is not None:
        rows.append({"kind": "result", "payload": game.result})
    return rows


def game_invitations(game: Game, user: AnyUser | None) -> list[dict[str, Any]]:
    """The invitations sent for ``game`` (a game ``visible_game`` gave the caller), oldest
    first: for its players only (the addresses are theirs to see, not a spectator's). The
    tokens never show: each is its invitee's key, sent to their address alone."""
    if user_seat(game, user) is None:
        raise Forbidden("Only the game's players see its invitations.")
    rows = Invitation.objects.filter(game=game).select_related("invited_by", "accepted_by").order_by("id")
    return [
        {
            "email": invitation.email,
            "invited_by": invitation.invited_by.get_username(),
            "created_at": invitation.created_at,
            "accepted_by": invitation.accepted_by.get_username() if invitation.accepted_by else None,
            "accepted_at": invitation.accepted_at,
        }
        for invitation in rows
    ]
