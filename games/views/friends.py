"""Rematches ("Play again", "I'm in", "Not this time") and crews (pages, invitations, games)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

import engine
from games import charts, selectors, services
from games.models import CrewGame, Game, RematchReply, Seat, person_name
from games.services import crews as crew_services
from games.services import rematch as rematch_services
from games.throttling import GameCreateThrottle, InvitationThrottle, throttle, throttled_response
from games.views.accounts import current_user
from games.views.webhooks import crew_settings_context

MAX_FIELD = 2000


def rematch_context(game: Game, user: Any) -> dict[str, Any]:
    """What the table shows about rematches: the one asked for from a finished game, and a
    seated person's answer in a game that called them."""
    context: dict[str, Any] = {"rematch": None, "call_answer": None, "call_source": None, "crew": None}
    if game.status == Game.Status.FINISHED:
        context["rematch"] = rematch_services.rematch_of(game)
        context["may_rematch"] = bool(
            getattr(user, "is_authenticated", False) and Seat.objects.filter(game=game, user=user).exists()
        )
    if game.status == Game.Status.LOBBY:
        context["call_answer"] = rematch_services.reply_of(game, user)
        call = getattr(game, "call", None) if hasattr(game, "call") else None
        context["call_source"] = call.source if call is not None else None
        # Each seated person's answer, by username (the seat list shows who is in).
        context["call_answers"] = (
            dict(call.replies.values_list("user__username", "answer")) if call is not None else {}
        )
    # Not while the game runs: the table polls then, and this would be two queries a poll.
    crew_game = (
        CrewGame.objects.filter(game=game).select_related("crew").first() if not game.is_running else None
    )
    if (
        crew_game is not None
        and getattr(user, "is_authenticated", False)
        and crew_game.crew.members.filter(user=user).exists()
    ):
        context["crew"] = crew_game.crew
    return context


def answers_version(game: Game) -> int:
    """How many seated people have said "I'm in" to the game's call (0 for other games)."""
    return RematchReply.objects.filter(rematch__game=game, answer=RematchReply.Answer.IN).count()


@login_required
@require_http_methods(["GET", "POST"])
@throttle(GameCreateThrottle)
def game_rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    """Play again: GET asks (the game-over email links here), POST makes or joins the rematch."""
    try:
        game = selectors.visible_game(game_id, request.user)
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    if request.method == "POST":
        try:
            new, made = rematch_services.rematch_create(game_id=game_id, by=current_user(request))
        except services.NotFound as exc:
            raise Http404(exc.detail) from None
        except services.ServiceError as exc:
            messages.error(request, exc.detail)
            return redirect("game", game_id=game_id)
        messages.success(
            request,
            "Rematch asked for: everyone has a seat and has been emailed."
            if made
            else "You are in the rematch.",
        )
        return redirect("game", game_id=new.pk)
    return render(
        request,
        "friends/rematch.html",
        {
            "game": game,
            "rematch": rematch_services.rematch_of(game),
            "has_seat": selectors.user_seat(game, request.user) is not None,
        },
    )


@login_required
@require_POST
def game_answer(request: HttpRequest, game_id: int) -> HttpResponse:
    """I'm in, or Not this time, from the table."""
    answer = request.POST.get("answer", "")
    if answer not in ("in", "out"):
        messages.error(request, "Answer “in” or “out”; nothing was changed.")
        return redirect("game", game_id=game_id)
    try:
        game = rematch_services.rematch_answer(
            game_id=game_id, user=current_user(request), accept=answer == "in"
        )
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("game", game_id=game_id)
    if answer == "in":
        messages.success(request, "You are in." + (" The game has started." if game.is_running else ""))
        return redirect("game", game_id=game_id)
    messages.success(request, f"Your seat in {game.display_name} is free again.")
    return redirect("lobby")


@require_http_methods(["GET", "POST"])
def answer_link(request: HttpRequest, token: str, answer: str) -> HttpResponse:
    """The "I'm in" / "Not this time" link of the email: the signed link names the game and
    the person, so it works without logging in. GET asks, POST answers (a link checker that
    opens the link changes nothing)."""
    if answer not in ("in", "out"):
        raise Http404("No such answer.")
    try:
        game, person = rematch_services.token_target(token)
    except services.NotFound as exc:
        return render(request, "friends/answer.html", {"problem": exc.detail}, status=404)
    done = ""
    problem = ""
    if request.method == "POST":
        try:
            game = rematch_services.rematch_answer_by_token(token=token, accept=answer == "in")
        except services.ServiceError as exc:
            problem = exc.detail
        else:
            done = (
                ("You are in." + (" The game has started." if game.is_running else ""))
                if answer == "in"
                else ("Your seat is free again. Maybe next time!")
            )
    return render(
        request,
        "friends/answer.html",
        {
            "game": game,
            "person": person_name(person),
            "answer": answer,
            "done": done,
            "problem": problem,
            "current": rematch_services.reply_of(game, person),
        },
    )


# ---------------------------------------------------------------------------------------------
# Crews


def _crew_or_404(request: HttpRequest, crew_id: int) -> Any:
    try:
        return crew_services.crew_for(crew_id, request.user)
    except services.NotFound as exc:
        raise Http404(exc.detail) from None


@login_required
@require_http_methods(["GET", "POST"])
@throttle(GameCreateThrottle)
def crew_list(request: HttpRequest) -> HttpResponse:
    """Your crews, and a form for a new one."""
    user = current_user(request)
    if request.method == "POST":
        try:
            crew = crew_services.crew_create(by=user, name=request.POST.get("name", "")[:MAX_FIELD])
        except services.ServiceError as exc:
            messages.error(request, exc.detail)
        else:
            messages.success(request, f"Crew {crew.name} is made: invite your friends.")
            return redirect("crew", crew_id=crew.pk)
    return render(request, "friends/crews.html", {"crews": list(crew_services.crews_of(user))})


@login_required
def crew(request: HttpRequest, crew_id: int) -> HttpResponse:
    crew = _crew_or_404(request, crew_id)
    games = list(crew_services.crew_games(crew, request.user).prefetch_related("seats__user__profile"))
    standings = crew_services.crew_standings(crew, request.user)
    return render(
        request,
        "friends/crew.html",
        {
            "crew": crew,
            "members": [person_name(m) for m in crew_services.members_of(crew)],
            "running": [g for g in games if not g.is_over],
            "finished": [g for g in games if g.status == Game.Status.FINISHED],
            "standings": [(table, _wins_chart(table)) for table in standings],
            "rule_sets": engine.available_rules(),
            **crew_settings_context(request, crew),
        },
    )


# The seat colours the chart stylesheet draws lines in (a member's colour, not a seat's).
CHART_COLOURS = ("red", "blue", "green", "yellow", "black")


def _wins_chart(table: crew_services.RulesStandings) -> dict[str, Any]:
    """The crew's standings over time in one rule set: each member's wins so far after each of
    its finished games."""
    series = [
        charts.Series(row.name, [(0, 0), *table.wins_over_time.get(row.user_id, [])],
                      colour=CHART_COLOURS[i % len(CHART_COLOURS)])
        for i, row in enumerate(table.rows)
    ]
    return charts.line_chart(series, title=f"{table.title}: wins over the crew's games", unit="wins",
                             x_label="finished games", y_from_zero=True, min_top=1)


@login_required
@require_POST
@throttle(InvitationThrottle)
def crew_invite(request: HttpRequest, crew_id: int) -> HttpResponse:
    _crew_or_404(request, crew_id)
    try:
        sent = crew_services.crew_invite(
            crew_id=crew_id,
            by=current_user(request),
            emails=request.POST.get("emails", "")[:MAX_FIELD],
        )
    except services.Throttled as exc:
        return throttled_response(request, exc.wait, exc.detail)
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, f"Invitation sent to {', '.join(i.email for i in sent)}.")
    return redirect("crew", crew_id=crew_id)


@login_required
@require_POST
@throttle(GameCreateThrottle)
def crew_new_game(request: HttpRequest, crew_id: int) -> HttpResponse:
    """New game for the crew: every member seated, as a rematch."""
    _crew_or_404(request, crew_id)
    try:
        bots = int(request.POST.get("bot_seats", "0") or "0")
    except ValueError:
        messages.error(request, "Bot seats must be a whole number; nothing was made.")
        return redirect("crew", crew_id=crew_id)
    try:
        game = crew_services.crew_game_create(
            crew_id=crew_id,
            by=current_user(request),
            rules_id=request.POST.get("rules", ""),
            bot_seats=bots,
            is_public=request.POST.get("visibility") == "public",
        )
    except services.NotFound as exc:
        raise Http404(exc.detail) from None
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("crew", crew_id=crew_id)
    messages.success(request, "A new game for the crew: everyone has a seat and has been emailed.")
    return redirect("game", game_id=game.pk)


@require_http_methods(["GET", "POST"])
def crew_join(request: HttpRequest, token: str) -> HttpResponse:
    """A crew invitation link: sign up (or log in) on the way, then join."""
    try:
        invitation = crew_services.crew_invitation_for(token)
    except services.ServiceError as exc:
        messages.error(request, exc.detail)
        return redirect("home")
    if not request.user.is_authenticated:
        messages.info(
            request,
            f"{person_name(invitation.invited_by)} invites you to the crew "
            f"{invitation.crew.name}. Sign up (or log in) to join.",
        )
        return redirect(f"{reverse('signup')}?next={reverse('crew-join', args=[token])}")
    problem = ""
    if request.method == "POST":
        try:
            crew = crew_services.crew_invitation_accept(token=token, user=current_user(request))
        except services.ServiceError as exc:
            problem = exc.detail
        else:
            messages.success(request, f"You are in the crew {crew.name}.")
            return redirect("crew", crew_id=crew.pk)
    return render(
        request,
        "friends/crew_join.html",
        {
            "invitation": invitation,
            "inviter_name": person_name(invitation.invited_by),
            "problem": problem,
        },
    )
