"""Rematches: "Play again" from a finished game, and the answers of the people it seated.

A rematch is a new game of the same rule set and options (a fresh seed; options that fix a
deal are left out) in which every person of the old game has a seat at once and bot seats are
bots again. Each person is emailed; "I'm in" confirms the seat, "Not this time" frees it. The
game starts when every person seated has said yes and every seat is taken (or when its creator
starts it). Each finished game is offered once: "Play again" from another of its players joins
the first rematch. A crew's new game (``games.services.crews``) is called the same way.

Locking as in ``games.services.lobby``: the old game's row, then the new game's row.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core import signing
from django.db import transaction
from django.utils import timezone

import engine
from games import side_effects
from games.models import CrewGame, Game, Rematch, RematchReply, Seat
from games.read.options import fixed_deal_options
from games.services.errors import Conflict, Forbidden, InvalidInput, NotFound
from games.services.lobby import game_create, game_start, lock_visible_game, take_free_seat
from games.services.play import lock_game

Answer = RematchReply.Answer
TOKEN_SALT = "games.rematch.answer"
# A link in the email works for 30 days; a game that started or ended meanwhile says so.
TOKEN_MAX_AGE = 30 * 24 * 3600


def rematch_create(*, game_id: int, by: User) -> tuple[Game, bool]:
    """Play again from finished game ``game_id``: the new game and whether this call made it
    (False: ``by`` joined the rematch another player asked for)."""
    with transaction.atomic():
        old = lock_visible_game(game_id, by)
        if not Seat.objects.filter(game=old, user=by).exists():
            raise Forbidden("Only the people who played this game can ask for a rematch.")
        if old.status != Game.Status.FINISHED:
            state = (
                "is still waiting for players"
                if old.status == Game.Status.LOBBY
                else ("is still running" if old.status == Game.Status.ACTIVE else "was aborted")
            )
            raise Conflict(f"Only a finished game can be played again; this one {state}.")
        existing = Rematch.objects.filter(source=old).first()
        if existing is not None:
            return _join(existing, by), False
        new = _seat_group(
            creator=by,
            template=old,
            seats=list(Seat.objects.filter(game=old).order_by("position")),
            source=old,
        )
        crew_game = CrewGame.objects.filter(game=old).first()
        if crew_game is not None:
            CrewGame.objects.create(crew_id=crew_game.crew_id, game=new)
        return new, True


def _join(call: Rematch, user: User) -> Game:
    """``user``'s second "Play again": their "I'm in" for the rematch already asked for."""
    game = lock_game(call.game_id)
    reply = RematchReply.objects.filter(rematch=call, user=user).first()
    if reply is not None and reply.answer == Answer.IN:
        raise Conflict(f"You are already in the rematch ({game.display_name}); nothing was changed.")
    _answer(game, call, user, reply, accept=True)
    game.refresh_from_db()
    return game


def _seat_group(
    *,
    creator: User,
    template: Game,
    seats: list[Seat],
    source: Game | None,
    title: str | None = None,
) -> Game:
    """A new game like ``template`` seating ``seats``' people and bots at their positions,
    every person but ``creator`` still to answer, each of them emailed. Caller holds the
    locks it needs and is inside a transaction."""
    rules = engine.get_rules(template.rules_id)
    options = {
        k: v for k, v in template.options.items() if k not in fixed_deal_options(rules, template.options)
    }
    new = game_create(
        creator=creator,
        rules_id=template.rules_id,
        players=template.players,
        options=options,
        title=template.title if title is None else title,
        move_time=template.move_time,
        timeout_policy=template.timeout_policy,
        is_public=template.is_public,
    )
    Seat.objects.filter(game=new).delete()
    call = Rematch.objects.create(game=new, source=source, created_by=creator)
    waiting: list[int] = []
    for position, seat in enumerate(seats):
        if seat.user_id is None:
            Seat.objects.create(game=new, position=position, bot=seat.bot or Seat.BotKind.GREEDY)
            continue
        Seat.objects.create(game=new, position=position, user_id=seat.user_id)
        answer = Answer.IN if seat.user_id == creator.pk else Answer.WAITING
        RematchReply.objects.create(
            rematch=call,
            user_id=seat.user_id,
            answer=answer,
            answered_at=timezone.now() if answer == Answer.IN else None,
        )
        if answer == Answer.WAITING:
            waiting.append(seat.user_id)
    side_effects.after_rematch_seats(new, waiting)
    _start_if_ready(new, call)
    return new


def _start_if_ready(game: Game, call: Rematch) -> None:
    """Start once nobody is left to answer and every seat is taken; with seats freed by "Not
    this time", the game starts by itself when the last of them is taken."""
    if RematchReply.objects.filter(rematch=call, answer=Answer.WAITING).exists():
        return
    if Seat.objects.filter(game=game).count() == game.players:
        game_start(game_id=game.pk, by=game.created_by)
    elif not game.auto_start:
        game.auto_start = True
        game.save(update_fields=["auto_start", "updated_at"])


def _answer(game: Game, call: Rematch, user: User, reply: RematchReply | None, *, accept: bool) -> None:
    if game.status != Game.Status.LOBBY:
        raise Conflict(
            f"{game.display_name} has already {'started' if game.status == Game.Status.ACTIVE else 'ended'}: "
            "this answer changes nothing."
        )
    if accept:
        if reply is not None and reply.answer == Answer.IN:
            raise Conflict("You already said you are in; nothing was changed.")
        if not Seat.objects.filter(game=game, user=user).exists():
            # Conflict when the freed seat went to someone else; the last seat taken may
            # start the game (auto start), after which there is nothing left to start.
            take_free_seat(game, user)
            game.refresh_from_db()
    else:
        if reply is None or reply.answer == Answer.OUT:
            raise Conflict("You have no seat waiting in this game; nothing was changed.")
        if game.created_by_id == user.pk:
            raise InvalidInput("You asked for this game: abort it instead of leaving.")
        Seat.objects.filter(game=game, user=user).delete()
    answer = Answer.IN if accept else Answer.OUT
    if reply is None:
        RematchReply.objects.create(rematch=call, user=user, answer=answer, answered_at=timezone.now())
    else:
        reply.answer = answer
        reply.answered_at = timezone.now()
        reply.save(update_fields=["answer", "answered_at"])
    if game.status == Game.Status.LOBBY:
        _start_if_ready(game, call)


def rematch_answer(*, game_id: object, user: User, accept: bool) -> Game:
    """``user`` says "I'm in" (``accept``) or "Not this time" (which frees their seat) to the
    rematch or crew game ``game_id``."""
    with transaction.atomic():
        game = lock_game(game_id)
        call = Rematch.objects.filter(game=game).first()
        reply = RematchReply.objects.filter(rematch=call, user=user).first() if call is not None else None
        if call is None or reply is None:
            if not game.is_public and not Seat.objects.filter(game=game, user=user).exists():
                raise NotFound(f"No game with id {game_id}.")
            raise Forbidden("This game did not offer you a seat to answer for.")
        _answer(game, call, user, reply, accept=accept)
        game.refresh_from_db()
        return game


def answer_token(game_id: int, user_id: int) -> str:
    """The signed part of the "I'm in" / "Not this time" links emailed to ``user_id``."""
    return signing.dumps({"g": game_id, "u": user_id}, salt=TOKEN_SALT, compress=True)


def token_target(token: str) -> tuple[Game, User]:
    """The game and person a link names; NotFound for a link that is not ours or too old."""
    try:
        data: Any = signing.loads(token, salt=TOKEN_SALT, max_age=TOKEN_MAX_AGE)
    except signing.SignatureExpired:
        raise NotFound("This link has expired; open the game from the lobby instead.") from None
    except signing.BadSignature:
        raise NotFound("This link is not valid.") from None
    game_id = data.get("g") if isinstance(data, dict) else None
    user_id = data.get("u") if isinstance(data, dict) else None
    if not isinstance(game_id, int) or not isinstance(user_id, int):
        raise NotFound("This link is not valid.")
    game = Game.objects.filter(pk=game_id).first()
    user = User.objects.filter(pk=user_id).first()
    if game is None or user is None:
        raise NotFound("This link is not valid.")
    return game, user


def rematch_answer_by_token(*, token: str, accept: bool) -> Game:
    """An answer from a link in the email: the signed link names the game and the person."""
    game, user = token_target(token)
    return rematch_answer(game_id=game.pk, user=user, accept=accept)


def reply_of(game: Game, user: Any) -> str | None:
    """``user``'s answer to the call that made ``game`` ("waiting", "in", "out"), or None."""
    if not getattr(user, "is_authenticated", False):
        return None
    reply = (
        RematchReply.objects.filter(rematch__game=game, user=user).values_list("answer", flat=True).first()
    )
    return str(reply) if reply is not None else None


def rematch_of(game: Game) -> Game | None:
    """The rematch asked for from ``game``, if any."""
    call = Rematch.objects.filter(source=game).select_related("game").first()
    return call.game if call is not None else None
