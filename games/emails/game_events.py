"""Game emails: a timeout, a seat handed to a bot, game over."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives

from games.emails.rendering import MAX_SENTENCES, _game_context, event_text, render, replay_url
from games.emails.sending import Kind, deliver_once
from games.emails.unsubscribe import Notify, preference
from games.links import login_url
from games.models import Event, Game, Seat, person_name, seat_labels
from games.services.accounts import mail_address


def _seated_people(game: Game) -> list[Seat]:
    seats = Seat.objects.filter(game=game, user__isnull=False).select_related("user")
    return list(seats.order_by("position"))


def _send_to_everyone(
    game: Game, kind: str, key: str, make: Callable[[User, Seat], EmailMultiAlternatives]
) -> int:
    sent = 0
    for seat in _seated_people(game):
        user = seat.user
        if user is None or not mail_address(user) or preference(user) == Notify.NONE:
            continue

        def build(user: User = user, seat: Seat = seat) -> EmailMultiAlternatives:
            return make(user, seat)

        sent += deliver_once(user=user, game=game, kind=kind, key=key, build=build)
    return sent


def _event_and_seat(game_id: int, seq: int, kind: str) -> tuple[Event, Seat | None] | None:
    """The event of ``kind`` at ``seq`` and the seat it is about (None when there is no such event)."""
    event = Event.objects.filter(game_id=game_id, seq=seq, kind=kind).select_related("game").first()
    if event is None or event.seat is None:
        return None
    seat = Seat.objects.filter(game=event.game, position=event.seat).select_related("user").first()
    return event, seat


def send_timeout_emails(*, game_id: int, seq: int) -> int:
    """Everyone in the game hears that the seat of event ``seq`` (a timeout) ran out of time."""
    found = _event_and_seat(game_id, seq, Event.Kind.TIMEOUT)
    if found is None:
        return 0
    event, late = found
    game = event.game
    late_label = late.label if late is not None else f"Seat {event.seat}"
    # A turn of several actions timed out as a whole: the timeout's move and the bot's moves
    # that finished the turn for the same seat, by the same actor.
    run = [event]
    for later in Event.objects.filter(game=game, seq__gt=seq).order_by("seq")[:MAX_SENTENCES]:
        if later.kind != Event.Kind.BOT or later.seat != event.seat or later.actor != event.actor:
            break
        run.append(later)

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "late_player": late_label,
            "is_you": seat.position == event.seat,
            "move": " ".join(event_text(e, game, seat.position) for e in run),
        }
        who = "you" if context["is_you"] else late_label
        subject = f"Timeout in {game.display_name}: {who} ran out of time"
        return render("timeout", to=mail_address(user), subject=subject, context=context, user=user)

    return _send_to_everyone(game, Kind.TIMEOUT, str(seq), make)


def send_seat_to_bot_emails(*, game_id: int, seq: int) -> int:
    """Everyone in the game hears that the seat of event ``seq`` is now played by a bot."""
    found = _event_and_seat(game_id, seq, Event.Kind.SEAT_TO_BOT)
    if found is None:
        return 0
    event, seat_row = found
    game = event.game
    owner = seat_row.user if seat_row is not None else None
    person = person_name(owner) if owner is not None else "A player"

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "person": person,
            "is_you": seat.position == event.seat,
            "timeouts": settings.TIMEOUTS_BEFORE_BOT,
        }
        whose = "your" if context["is_you"] else f"{person}'s"
        subject = f"A bot takes over {whose} seat in {game.display_name}"
        return render("seat_to_bot", to=mail_address(user), subject=subject, context=context, user=user)

    return _send_to_everyone(game, Kind.SEAT_TO_BOT, str(seq), make)


def final_scores(game: Game) -> list[dict[str, Any]]:
    result = game.result or {}
    scores = result.get("scores") or []
    winners = set(result.get("winners") or [])
    seats = {seat.position: seat for seat in Seat.objects.filter(game=game).select_related("user__profile")}
    names = seat_labels(seats.values())
    rows = []
    for position, score in enumerate(scores):
        seat = seats.get(position)
        rows.append({
            "position": position,
            "player": names[position] if seat is not None else f"Seat {position}",
            "colour": seat.colour if seat is not None else "",
            "score": score,
            "winner": position in winners,
        })
    return sorted(rows, key=lambda row: (-row["score"], row["position"]))


def send_game_over_emails(*, game_id: int) -> int:
    """The final scores and a replay link to everyone in a finished game."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None:
        return 0
    scores = final_scores(game)
    winners = [row["player"] for row in scores if row["winner"]]

    def make(user: User, seat: Seat) -> EmailMultiAlternatives:
        context = {
            **_game_context(user, game, seat.position, game.seq),
            "scores": scores,
            "winners": winners,
            "replay_url": replay_url(user, game),
            # "Play again" opens the page that asks for (or joins) the rematch.
            "rematch_url": login_url(user, f"/games/{game.pk}/rematch/"),
        }
        return render("game_over", to=mail_address(user), subject=f"Game over: {game.display_name}",
                      context=context, user=user)

    return _send_to_everyone(game, Kind.GAME_OVER, str(game.seq), make)
