"""The lobby, creating games, the lobby-phase buttons of a game and invitations."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games import selectors, services
from games.context_processors import games_waiting
from games.forms import GameCreateForm, InviteForm
from games.models import Game, person_name
from games.services.accounts import normal_address
from games.services.invitations import unverified_problem
from games.services.lobby import DEFAULT_BOT_KIND
from games.throttling import GameCreateThrottle, InvitationThrottle, throttle, throttled_response
from games.views.accounts import current_user

# The lobby lists a player's games a page at a time (their move first, the finished last):
# a busy player has hundreds, and the page must not grow with them.
LOBBY_PAGE_SIZE = 50


class BadPage(ValueError):
    pass


def lobby_page(request: HttpRequest) -> int:
    """``?page=`` as a page number from 1 (1 without it); BadPage for anything else."""
    text = request.GET.get("page", "1")
    if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) < 1:
        raise BadPage("page must be a whole number from 1.")
    return int(text)


def _lobby_context(request: HttpRequest, page: int) -> dict[str, Any]:
    user = current_user(request)
    start = (page - 1) * LOBBY_PAGE_SIZE
    # One row more than the page shows: whether there is a next page, without a COUNT.
    mine = list(selectors.games_for_user(user)[start : start + LOBBY_PAGE_SIZE + 1])
    has_next = len(mine) > LOBBY_PAGE_SIZE
    mine = mine[:LOBBY_PAGE_SIZE]
    your_move = [g for g in mine if getattr(g, "my_turn", 0) == 1]
    running = [g for g in mine if g.status == Game.Status.ACTIVE and g not in your_move]
    waiting = [g for g in mine if g.status == Game.Status.LOBBY]
    finished = [g for g in mine if g.is_over]
    open_games = list(selectors.open_public_games(user)[:20])
    # Changes whenever anything the lobby lists changes: a move, a seat taken, a status.
    version = hashlib.sha256(
        json.dumps([
            [(g.pk, g.seq, g.status, getattr(g, "my_turn", 0), len(g.seats.all())) for g in mine],
            [(g.pk, len(g.seats.all())) for g in open_games],
        ]).encode()
    ).hexdigest()[:16]
    return {
        "your_move": your_move,
        "running": running,
        "waiting": waiting,
        "finished": finished,
        "open_games": open_games,
        # Every game waiting for the player's move, also those on other pages: their move
        # comes first, so page 1 has them all unless they fill it.
        "waiting_count": (
            len(your_move) if page == 1 and len(your_move) < LOBBY_PAGE_SIZE else games_waiting(user)
        ),
        "lobby_version": version,
        "page": page,
        "next_page": page + 1 if has_next else None,
        "previous_page": page - 1 if page > 1 else None,
    }


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    try:
        page = lobby_page(request)
    except BadPage as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    return render(request, "games/lobby.html", _lobby_context(request, page))


@never_cache
@login_required
@require_GET
def lobby_live(request: HttpRequest) -> HttpResponse:
    """Polled by the lobby: nothing (204) while unchanged, else the fresh lists."""
    try:
        page = lobby_page(request)
    except BadPage as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    context = _lobby_context(request, page)
    if request.GET.get("v") == context["lobby_version"]:
        return HttpResponse(status=204)
    return render(request, "games/_lobby_live.html", context)


@login_required
@require_http_methods(["GET", "POST"])
@throttle(GameCreateThrottle)
def game_new(request: HttpRequest) -> HttpResponse:
    form = GameCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            game = services.game_create(
                creator=current_user(request),
                rules_id=data["rules"],
                players=data["players"],
                options=data["options"],
                title=data["title"],
                move_time=form.move_timedelta(),
                timeout_policy=data["timeout_policy"],
                is_public=form.is_public(request.POST.get("is_public")),
                bot_seats=data["bot_seats"],
                bot_kind=data["bot_kind"],
                auto_start=data["auto_start"],
            )
        except services.ServiceError as exc:
            form.add_error(None, exc.detail)
        else:
            messages.success(request, f"{game.display_name} is waiting for its crew.")
            if data["invite"].strip():
                try:
                    sent = services.invitation_create(
                        game_id=game.pk,
                        by=current_user(request),
                        emails=data["invite"],
                    )
                except services.ServiceError as exc:
                    messages.error(request, f"The game was created, but no invitation went out: {exc.detail}")
                else:
                    messages.success(request, f"Invitation sent to {', '.join(i.email for i in sent)}.")
            return redirect("game", game_id=game.pk)
    return render(request, "games/new.html", {"form": form})


def _game_action(request: HttpRequest, game_id: int, call: Callable[[], Any], done: str) -> HttpResponse:
    try:
        call()
    except services.NotFound as exc:
        # A missing game, or a private one the user is not in: the same 404 either way.
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, done)
    return redirect("game", game_id=game_id)


@login_required
@require_POST
def game_join(request: HttpRequest, game_id: int) -> HttpResponse:
    return _game_action(
        request,
        game_id,
        lambda: services.seat_join(game_id=game_id, user=current_user(request)),
        "You have a seat. The game starts when the creator starts it.",
    )


@login_required
@require_POST
def game_leave(request: HttpRequest, game_id: int) -> HttpResponse:
    return _game_action(
        request,
        game_id,
        lambda: services.seat_leave(game_id=game_id, user=current_user(request)),
        "You left the game.",
    )


@login_required
@require_POST
def game_fill(request: HttpRequest, game_id: int) -> HttpResponse:
    kind = request.POST.get("kind") or DEFAULT_BOT_KIND
    return _game_action(
        request,
        game_id,
        lambda: services.seats_fill_with_bots(game_id=game_id, by=current_user(request), kind=kind),
        "The empty seats are taken by bots.",
    )


@login_required
@require_POST
def game_start(request: HttpRequest, game_id: int) -> HttpResponse:
    return _game_action(
        request,
        game_id,
        lambda: services.game_start(game_id=game_id, by=current_user(request)),
        "The game has started. Good luck!",
    )


@login_required
@require_POST
def game_abort(request: HttpRequest, game_id: int) -> HttpResponse:
    return _game_action(
        request,
        game_id,
        lambda: services.game_abort(game_id=game_id, by=current_user(request)),
        "The game was aborted.",
    )


@login_required
@require_POST
@throttle(InvitationThrottle)
def game_invite(request: HttpRequest, game_id: int) -> HttpResponse:
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give at least one email address.")
        return redirect("game", game_id=game_id)
    try:
        sent = services.invitation_create(
            game_id=game_id,
            by=current_user(request),
            emails=form.cleaned_data["emails"],
        )
    except services.Throttled as exc:
        return throttled_response(request, exc.wait, exc.detail)
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, f"Invitation sent to {', '.join(i.email for i in sent)}.")
    return redirect("game", game_id=game_id)


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: sign up (or log in) on the way, then take the seat."""
    try:
        invitation = services.invitation_for(token)
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("home")
    if not request.user.is_authenticated:
        messages.info(
            request,
            f"{person_name(invitation.invited_by)} invites you to "
            f"{invitation.game.display_name}. Sign up (or log in) to take your seat.",
        )
        return redirect(f"{reverse('signup')}?next={reverse('invite', args=[token])}")
    user = current_user(request)
    # Only the account that verified the invited address takes the seat: anyone else is told
    # what to do (verify, with a button that sends the link again).
    problem = unverified_problem(invitation, user) if invitation.accepted_by_id is None else None
    if request.method == "POST" and problem is None:
        try:
            services.invitation_accept(token=token, user=user)
        except services.AddressNotVerified as exc:
            problem = exc
        except services.ServiceError as exc:
            messages.error(request, exc.detail)
            return redirect("lobby")
        else:
            messages.success(request, f"You have a seat in {invitation.game.display_name}.")
            return redirect("game", game_id=invitation.game_id)
    own_address_pending = problem is not None and (
        normal_address(user.email) == normal_address(invitation.email)
    )
    return render(
        request,
        "games/invite.html",
        {
            "invitation": invitation,
            "game": invitation.game,
            "inviter_name": person_name(invitation.invited_by),
            "problem": problem.detail if problem is not None else "",
            "own_address_pending": own_address_pending,
        },
        status=403 if request.method == "POST" and problem is not None else 200,
    )
