"""The game page: lobby phase (seats, invitations) and the table (board, moves, log)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from games import presence, safejson, selectors, services
from games.context_processors import games_waiting
from games.forms import InviteForm
from games.models import Event, Game, PlayerProfile
from games.services.chat import chat_lines, chat_post, chat_version
from games.tables import table_for
from games.tables.base import seat_names
from games.views.accounts import current_user
from games.views.friends import answers_version, rematch_context
from games.views.webhooks import settings_context as webhook_settings

LOG_ROWS = 40


def _game_or_404(game_id: int, request: HttpRequest) -> Game:
    try:
        return selectors.visible_game(game_id, request.user)
    except services.NotFound as exc:
        raise Http404(exc.detail) from None


def version_of(game: Game) -> str:
    """Changes whenever anything on the page changes: a new event, a status, a seat or a chat line."""
    seated = sum(1 for s in game.seats.all() if s.user_id)
    version = f"{game.seq}.{game.status}.{len(game.seats.all())}.{seated}.{chat_version(game)}"
    if game.status == Game.Status.LOBBY:
        version += f".{answers_version(game)}"  # "I'm in" changes the seat list of a rematch
    return version


def table_context(request: HttpRequest, game: Game, version: str | None = None) -> dict[str, Any]:
    """What the table page and its live fragment show; ``version`` is ``version_of(game)``
    when the caller has it already (the live poll compares it first)."""
    seat = selectors.user_seat(game, request.user)
    seats_table = selectors.seats_table(game, seat) if game.seq >= 1 else None
    detail = selectors.game_detail(game, request.user, table=seats_table)
    table = table_for(game.rules_id)
    user_id = request.user.pk if request.user.is_authenticated else None
    has_seat = seat is not None
    context: dict[str, Any] = {
        "game": game,
        "detail": detail,
        "version": version if version is not None else version_of(game),
        "has_seat": has_seat,
        "is_creator": user_id == game.created_by_id,
        "free_seats": game.players - len(detail["seats"]),
        "names": seat_names(detail["seats"]),
        "invite_form": InviteForm(),
        "table": table,
        "chat": chat_lines(game),
    }
    if seats_table is not None:
        context["board"] = table.board(seats_table.view, detail["seats"])
        # The game row's seats to act: the same turn as the page's seq (one row read).
        context["waiting_for"] = seats_table.waiting_for(context["names"], detail["to_act"])
        log = selectors.events_for(game, request.user, after=max(0, game.seq - LOG_ROWS))
        context["log"] = list(reversed(log))
        if seats_table.legal_actions:
            context["steps"] = seats_table.controls
            # By legal action, as each move button's index: the confirm step says which are final.
            context["finals"] = seats_table.finals
            context["confirm_moves"] = _confirm_moves(request)
    if seat is not None and game.is_running and context.get("log"):
        last = Event.objects.filter(game=game, seq=game.seq).first()
        context["can_take_back"] = services.take_back_check(game, last, seat).allowed
    context["can_resign"] = seat is not None and game.is_running and not seat.replaced_by_bot
    context.update(rematch_context(game, request.user))
    waiting = games_waiting(request.user)
    your_move = bool(context.get("steps"))
    context["games_waiting_now"] = waiting
    # The live fragment carries only the prefix (it names no game: two games' fragments differ
    # only where the games do); static/js/live.js puts it before the page's own title.
    context["title_prefix"] = (f"({waiting}) " if waiting else "") + ("Your move · " if your_move else "")
    context["page_title"] = context["title_prefix"] + game.display_name
    if context.get("log"):
        latest = context["log"][0]
        who = context["names"].get(latest["seat"]) if latest.get("seat") is not None else None
        said = (f"{who}: " if who else "") + latest["text"]
        # What happened last, without "Your move": static/js/table.js says it when a live
        # update changed the player's choices under an open confirm step.
        context["latest_said"] = said
        context["announce"] = said + (" Your move." if your_move else "")
    return context


def _confirm_moves(request: HttpRequest) -> bool:
    """The player's choice: confirm each move with a preview first (the default)."""
    profile = PlayerProfile.objects.filter(user=current_user(request)).only("confirm_moves").first()
    return profile.confirm_moves if profile is not None else True


@require_GET
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id, request)
    presence.seat_seen(selectors.user_seat(game, request.user))
    context = table_context(request, game)
    context.update(webhook_settings(request, game, context["has_seat"]))
    return render(request, "games/game.html", context)


@never_cache
@require_GET
def game_live(request: HttpRequest, game_id: int) -> HttpResponse:
    """Polled every few seconds: nothing (204) while unchanged, else the fresh live fragment."""
    game = _game_or_404(game_id, request)
    # The poll is how we know the player is at the table (turn emails wait while they are).
    presence.seat_seen(selectors.user_seat(game, request.user))
    version = version_of(game)
    if request.GET.get("v") == version:
        return HttpResponse(status=204)
    return render(request, "games/_live.html", table_context(request, game, version))


@login_required
@require_POST
def game_act(request: HttpRequest, game_id: int) -> HttpResponse:
    """One move. The seat is the user's own: services.action_submit never takes it from the page."""
    target = reverse("game", args=[game_id])
    try:
        action = safejson.loads(request.POST.get("action", ""))
        expected_seq = int(request.POST.get("expected_seq", ""))
    except (ValueError, TypeError):
        messages.error(request, "That move could not be read. Choose one of the offered moves.")
        return redirect(target)
    try:
        services.action_submit(
            game_id=game_id,
            user=current_user(request),
            action=action,
            expected_seq=expected_seq,
            idempotency_key=request.POST.get("key", "")[:100],
        )
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    except services.StaleSeq:
        messages.error(
            request,
            "The game moved on before your move arrived; nothing was changed. "
            "Here is the table as it is now.",
        )
    except services.ServiceError as exc:
        messages.error(request, f"That move was not accepted: {exc.detail} Nothing was changed.")
    return redirect(target)


@login_required
@require_POST
def game_take_back(request: HttpRequest, game_id: int) -> HttpResponse:
    """Take back the player's own last move, until the next player acts."""
    _game_or_404(game_id, request)  # a private game does not exist for those outside it
    target = reverse("game", args=[game_id])
    try:
        expected_seq = int(request.POST.get("expected_seq", ""))
    except (ValueError, TypeError):
        messages.error(request, "That take-back could not be read; nothing was changed.")
        return redirect(target)
    try:
        services.move_take_back(game_id=game_id, user=current_user(request), expected_seq=expected_seq)
    except services.ServiceError as exc:
        messages.error(request, f"Your move could not be taken back: {exc.detail}")
    else:
        messages.success(request, "Your move was taken back. It is your turn again.")
    return redirect(target)


@login_required
@require_POST
def game_chat(request: HttpRequest, game_id: int) -> HttpResponse:
    """One line of table talk."""
    game = _game_or_404(game_id, request)
    try:
        chat_post(game=game, user=current_user(request), text=request.POST.get("text", ""))
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    return redirect(f"{reverse('game', args=[game_id])}#chat")


@login_required
@require_POST
def game_resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Leave a running game: a bot takes the seat for the rest of it."""
    _game_or_404(game_id, request)
    try:
        services.seat_resign(game_id=game_id, user=current_user(request))
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, "You left the game; a bot plays your seat from now on.")
    return redirect("game", game_id=game_id)
