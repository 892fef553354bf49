"""The REST API: thin views that parse input, call one service (or selector), and render.

Errors of every kind come out as ``{"error": code, "detail": message}`` through
``games.api.exceptions.exception_handler``. The seat a player acts for is always the caller's
own seat, found by the service; no request can name a seat.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import eventlog, players, selectors, services
from games.api import serializers as s
from games.models import Event, Game, person_name
from games.services.accounts import address_verified
from games.services.chat import chat_lines
from games.throttling import GameCreateThrottle, InvitationThrottle, LoginThrottle

AnyUser = User | AnonymousUser

ERRORS = {
    400: OpenApiResponse(s.ErrorOutput, description="Invalid input, malformed JSON or an illegal action."),
    401: OpenApiResponse(s.ErrorOutput, description="Not signed in."),
    403: OpenApiResponse(s.ErrorOutput, description="Not allowed for you."),
    404: OpenApiResponse(s.ErrorOutput, description="No such game (or a private one)."),
    409: OpenApiResponse(s.ErrorOutput, description="The game moved on or is in another phase."),
    429: OpenApiResponse(
        s.ErrorOutput, description="Too many requests (or failed log-ins): wait the seconds in Retry-After."
    ),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


class BadCredentials(exceptions.APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "Unknown username or wrong password."
    default_code = "bad_credentials"


def _user(request: Request) -> AnyUser:
    user = request.user
    assert isinstance(user, User | AnonymousUser)
    return user


def _person(request: Request) -> User:
    """The signed-in caller (the permission classes guarantee one)."""
    user = request.user
    assert isinstance(user, User)
    return user


def _detail(game_id: int, user: AnyUser) -> dict[str, Any]:
    """The game as ``user`` may see it now (the selector's dict, not yet rendered)."""
    return selectors.game_detail(selectors.visible_game(game_id, user), user)


def _render_detail(game_id: int, user: AnyUser) -> Response:
    # The selector's dict is already the documented GameDetailOutput shape; rendering it through
    # the serializer again costs ~3 ms a request on the hottest endpoint and changes nothing.
    return Response(_detail(game_id, user))


class TokenView(APIView):
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    # Per address; the password checks themselves are counted by django-axes (games/throttling.py).
    throttle_classes = [LoginThrottle]

    @extend_schema(
        operation_id="auth_token",
        summary="Trade a username and password for an API token",
        request=s.TokenInput,
        responses={200: s.TokenOutput, **errors(400, 429)},
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = s.TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None or not user.is_active:
            raise BadCredentials()
        token, _ = Token.objects.get_or_create(user=user)
        return Response(s.TokenOutput({"token": token.key}).data)


class PingView(APIView):
    """The smallest authenticated round trip with one database write (a yardstick for benchmarks)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="ping",
        summary="Check the token; records the time",
        request=None,
        responses={200: s.PingOutput, **errors(401)},
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        user = _person(request)
        user.last_login = timezone.now()
        user.save(update_fields=["last_login"])
        return Response(s.PingOutput({"ok": True, "user": user.get_username()}).data)

    @extend_schema(
        operation_id="ping_get",
        summary="Check the token; records the time",
        responses={200: s.PingOutput, **errors(401)},
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        return self.post(request)


class GameListView(APIView):
    LIMIT = 100
    throttle_classes = [GameCreateThrottle]  # counts POSTs only

    @extend_schema(
        operation_id="games_list",
        summary="Your games (your move first) and open public games",
        description=(
            f"Your games come {LIMIT} a page (`?page=2` for the next); `next_page` is the number of "
            "the next page, null on the last. `open` is the newest open games on every page."
        ),
        parameters=[OpenApiParameter("page", int, description="Page of your games, from 1 (default 1).")],
        responses={200: s.GameListOutput, **errors(400, 401)},
        tags=["games"],
    )
    def get(self, request: Request) -> Response:
        user = _user(request)
        text = request.query_params.get("page", "1")
        if not re.fullmatch(r"[0-9]{1,6}", text) or int(text) < 1:
            raise exceptions.ValidationError({"page": ["page must be a whole number from 1."]})
        page = int(text)
        start = (page - 1) * self.LIMIT
        # One more than a page: whether another follows, without counting all the user's games.
        mine = []
        if isinstance(user, User):
            mine = list(selectors.games_for_user(user)[start : start + self.LIMIT + 1])
        next_page = page + 1 if len(mine) > self.LIMIT else None
        open_games = list(selectors.open_public_games(user)[: self.LIMIT])
        listed = {"mine": mine[: self.LIMIT], "open": open_games, "page": page, "next_page": next_page}
        return Response(s.GameListOutput(listed, context={"user": user}).data)

    @extend_schema(
        operation_id="games_create",
        summary="Create a game; you take the first seat",
        request=s.GameCreateInput,
        responses={201: s.GameCreatedOutput, **errors(400, 401, 429)},
        tags=["games"],
    )
    def post(self, request: Request) -> Response:
        data = s.GameCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        game = services.game_create(
            creator=_person(request),
            rules_id=v["rules"],
            players=v["players"],
            options=v["options"],
            title=v["title"],
            move_time=timedelta(hours=v["move_hours"]),
            timeout_policy=v["timeout_policy"],
            is_public=v["public"],
            bot_seats=v["bot_seats"],
            bot_kind=v["bot_kind"],
        )
        return Response(s.GameCreatedOutput({"id": game.pk}).data, status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    @extend_schema(
        operation_id="games_detail",
        summary="A game as you may see it",
        responses={200: s.GameDetailOutput, **errors(404)},
        tags=["games"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        return _render_detail(game_id, _user(request))


class GameJoinView(APIView):
    @extend_schema(
        operation_id="games_join",
        summary="Take a free seat of a game in the lobby",
        request=None,
        responses={200: s.GameDetailOutput, **errors(401, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        selectors.visible_game(game_id, user)  # a private game is joined through its invitation
        services.seat_join(game_id=game_id, user=user)
        return _render_detail(game_id, user)


class GameLeaveView(APIView):
    @extend_schema(
        operation_id="games_leave",
        summary="Give up your seat before the game starts",
        request=None,
        responses={200: s.GameDetailOutput, **errors(400, 401, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        selectors.visible_game(game_id, user)
        services.seat_leave(game_id=game_id, user=user)
        return _render_detail(game_id, user)


class GameBotsView(APIView):
    @extend_schema(
        operation_id="games_bots",
        summary="Fill every empty seat with a bot (creator only)",
        request=s.BotsInput,
        responses={200: s.BotsOutput, **errors(400, 401, 403, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = s.BotsInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        selectors.visible_game(game_id, user)
        added = services.seats_fill_with_bots(game_id=game_id, by=user, kind=data.validated_data["kind"])
        return Response(s.BotsOutput({"added": added, "game": _detail(game_id, user)}).data)


class GameStartView(APIView):
    @extend_schema(
        operation_id="games_start",
        summary="Deal and start (creator only, every seat taken)",
        request=None,
        responses={200: s.GameDetailOutput, **errors(401, 403, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        selectors.visible_game(game_id, user)
        services.game_start(game_id=game_id, by=user)
        return _render_detail(game_id, user)


class GameAbortView(APIView):
    @extend_schema(
        operation_id="games_abort",
        summary="Abort a game (creator only)",
        request=None,
        responses={200: s.GameDetailOutput, **errors(401, 403, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        selectors.visible_game(game_id, user)
        services.game_abort(game_id=game_id, by=user)
        return _render_detail(game_id, user)


class GameActionsView(APIView):
    @extend_schema(
        operation_id="games_actions",
        summary="Play an action for your seat",
        description=(
            "201 with the new event; 200 with the first result when the idempotency key was used "
            "before (nothing is appended); 409 stale_seq with current_seq when the game moved on."
        ),
        request=s.ActionInput,
        responses={201: s.ActionOutput, 200: s.ActionOutput, **errors(400, 401, 403, 404, 409)},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = s.ActionInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        v = data.validated_data
        # The service finds the caller's seat (403 without one); no visibility pre-check here,
        # so a move costs one read of the game fewer.
        submitted = services.action_submit(
            game_id=game_id,
            user=user,
            action=v["action"],
            expected_seq=v["expected_seq"],
            idempotency_key=v["idempotency_key"],
        )
        body = {
            "seq": submitted.event.seq,
            "event": eventlog.shape(
                submitted.event, selectors.log_viewer(submitted.game, user, submitted.seats)
            ),
            # The game as the service left it (locked, up to date): no second read.
            "game": selectors.game_detail(submitted.game, user, seats=submitted.seats),
        }
        return Response(
            body,  # already the ActionOutput shape (see _render_detail)
            status=status.HTTP_201_CREATED if submitted.created else status.HTTP_200_OK,
        )


class GameEventsView(APIView):
    @extend_schema(
        operation_id="games_events",
        summary="The game's log after seq `after`",
        parameters=[
            OpenApiParameter(
                "after", OpenApiTypes.INT, description="Only events with a larger seq.", required=False
            )
        ],
        responses={200: s.EventOutput(many=True), **errors(400, 404)},
        tags=["log"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        query = s.EventsQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        user = _user(request)
        game = selectors.visible_game(game_id, user)
        rows = selectors.events_for(game, user, after=query.validated_data["after"])
        return Response(s.EventOutput(rows, many=True).data)


class GameReplayView(APIView):
    @extend_schema(
        operation_id="games_replay",
        summary="The game as it was after event `seq`",
        responses={200: s.ReplayOutput, **errors(400, 403, 404)},
        tags=["log"],
    )
    def get(self, request: Request, game_id: int, seq: int) -> Response:
        user = _user(request)
        frame = selectors.replay_frame(selectors.visible_game(game_id, user), user, seq)
        return Response(s.ReplayOutput(frame).data)


class GameExportView(APIView):
    @extend_schema(
        operation_id="games_export",
        summary="The whole log as JSON lines, once the game is over",
        description=(
            "Readable by `python -m engine replay FILE`, which also checks each event's `hash` "
            "(the hash chain); the last line is the recorded result."
        ),
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, **errors(403, 404)},
        tags=["log"],
    )
    def get(self, request: Request, game_id: int) -> HttpResponse:
        game: Game = selectors.visible_game(game_id, _user(request))
        # One compact JSON object per line: the engine's game-log format (engine.gamelog).
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in selectors.export_rows(game))
        response = HttpResponse(text, content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.jsonl"'
        return response


class PlayerView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_detail",
        summary="A player: ratings per rule set with their history, and the games you may see",
        responses={200: s.PlayerOutput, **errors(404)},
        tags=["players"],
    )
    def get(self, request: Request, username: str) -> Response:
        page = players.player_page(username, _user(request))
        page.pop("titles")
        return Response(s.PlayerOutput(page).data)


class LeaderboardView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="ratings_leaderboard",
        summary="The best ratings of a rule set (public games, and private ones players opted in)",
        responses={200: s.LeaderboardOutput, **errors(404)},
        tags=["players"],
    )
    def get(self, request: Request, rules: str) -> Response:
        return Response(s.LeaderboardOutput({"results": players.leaderboard(rules)}).data)
# ---- invitations ----------------------------------------------------------------------------


class GameInvitationsView(APIView):
    permission_classes = [IsAuthenticated]
    # The site's limits: the same throttle (per account, POSTs only) and the service's own
    # checks (at most 10 at once, each address once per game, INVITATIONS_PER_DAY a day).
    throttle_classes = [InvitationThrottle]

    @extend_schema(
        operation_id="games_invitations",
        summary="The invitations sent for a game (its players only)",
        responses={200: s.InvitationOutput(many=True), **errors(401, 403, 404)},
        tags=["lobby"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        game = selectors.visible_game(game_id, user)
        return Response(s.InvitationOutput(selectors.game_invitations(game, user), many=True).data)

    @extend_schema(
        operation_id="games_invite",
        summary="Invite people by email to a game in the lobby (its players only)",
        description=(
            "Each address gets an email with its own link; only an account that verified the "
            "address can take the seat with it (invitations/{token}/accept/). 201 with every "
            "invitation of the game."
        ),
        request=s.InvitationsInput,
        responses={201: s.InvitationOutput(many=True), **errors(400, 401, 403, 404, 409, 429)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = s.InvitationsInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        services.invitation_create(game_id=game_id, by=user, emails=data.validated_data["emails"])
        game = selectors.visible_game(game_id, user)
        return Response(
            s.InvitationOutput(selectors.game_invitations(game, user), many=True).data,
            status=status.HTTP_201_CREATED,
        )


class InvitationAcceptView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="invitations_accept",
        summary="Take a seat with an emailed invitation's token",
        description=(
            "Only an account that verified the invited address may (403 address_not_verified "
            "otherwise); accepting one's own accepted invitation again changes nothing."
        ),
        request=None,
        responses={200: s.GameDetailOutput, **errors(401, 403, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, token: str) -> Response:
        user = _person(request)
        seat = services.invitation_accept(token=token, user=user)
        return _render_detail(seat.game_id, user)


# ---- table talk, take-back, resign ----------------------------------------------------------


class GameChatView(APIView):
    @extend_schema(
        operation_id="games_chat",
        summary="The latest lines of table talk, oldest first",
        description="Whoever may see the game may read them: a private game's only its players.",
        responses={200: s.ChatLineOutput(many=True), **errors(404)},
        tags=["play"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game = selectors.visible_game(game_id, _user(request))
        return Response(s.ChatLineOutput(chat_lines(game), many=True).data)

    @extend_schema(
        operation_id="games_chat_post",
        summary="Write a line of table talk (the game's players only)",
        request=s.ChatInput,
        responses={201: s.ChatLineOutput, **errors(400, 401, 403, 404, 409)},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = s.ChatInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        game = selectors.visible_game(game_id, user)
        line = services.chat_post(game=game, user=user, text=data.validated_data["text"])
        body = {"id": line.pk, "user": user.get_username(), "name": person_name(user), "text": line.text,
                "created_at": line.created_at}
        return Response(s.ChatLineOutput(body).data, status=status.HTTP_201_CREATED)


def _event_answer(game_id: int, user: User, seq: int) -> Response:
    """The ActionOutput of an event a service just appended for ``user``."""
    game = selectors.visible_game(game_id, user)
    event = Event.objects.get(game=game, seq=seq)
    body = {
        "seq": seq,
        "event": eventlog.shape(event, selectors.log_viewer(game, user)),
        "game": selectors.game_detail(game, user),
    }
    return Response(body, status=status.HTTP_201_CREATED)


class GameTakeBackView(APIView):
    @extend_schema(
        operation_id="games_take_back",
        summary="Take back your last move, before anyone else acts",
        description=(
            "Only your own last move, while it is the game's latest event, and only if it revealed "
            "nothing (the rule set decides move by move: 409 conflict says why not). 409 stale_seq "
            "when the game moved on since expected_seq."
        ),
        request=s.TakeBackInput,
        responses={201: s.ActionOutput, **errors(400, 401, 403, 404, 409)},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = s.TakeBackInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        event = services.move_take_back(
            game_id=game_id, user=user, expected_seq=data.validated_data["expected_seq"]
        )
        return _event_answer(game_id, user, event.seq)


class GameResignView(APIView):
    @extend_schema(
        operation_id="games_resign",
        summary="Leave a running game: a bot plays your seat from now on",
        request=None,
        responses={201: s.ActionOutput, **errors(401, 403, 404, 409)},
        tags=["play"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        user = _person(request)
        event = services.seat_resign(game_id=game_id, user=user)
        return _event_answer(game_id, user, event.seq)


# ---- the caller's account -------------------------------------------------------------------


def _me(user: User) -> dict[str, Any]:
    profile = services.profile_for(user)
    return {
        "username": user.get_username(),
        "email": user.email,
        "email_verified": address_verified(user),
        "display_name": profile.display_name,
        "timezone": profile.timezone,
        "notify": profile.notify,
        "confirm_moves": profile.confirm_moves,
        "away_until": profile.away_until,
    }


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="me",
        summary="Your account: name, time zone and how you are notified",
        responses={200: s.MeOutput, **errors(401)},
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        return Response(s.MeOutput(_me(_person(request))).data)

    @extend_schema(
        operation_id="me_update",
        summary="Change some of your preferences (the others stay as they are)",
        description="The profile page's checks: a known time zone, a display name of at most 40 "
        "characters, a time away in the future and at most 14 days ahead.",
        request=s.MePatchInput,
        responses={200: s.MeOutput, **errors(400, 401)},
        tags=["auth"],
    )
    def patch(self, request: Request) -> Response:
        data = s.MePatchInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = _person(request)
        services.profile_change(user=user, changes=dict(data.validated_data))
        return Response(s.MeOutput(_me(user)).data)
