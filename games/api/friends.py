"""The API of rematches and crews: thin views over ``games.services.rematch`` and
``games.services.crews``, with their own serializers."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api.serializers import StrictBooleanField, StrictCharField, StrictIntegerField, StrictSerializer
from games.api.views import _person, errors
from games.models import Game, person_name
from games.services import crews as crew_services
from games.services import rematch as rematch_services
from games.services.crews import MAX_NAME
from games.services.invitations import MAX_INVITES
from games.throttling import GameCreateThrottle, InvitationThrottle


class RematchGameOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.values)


class AnswerInput(StrictSerializer):
    answer = serializers.ChoiceField(choices=["in", "out"], help_text='"in": I\'m in; "out": not this time.')


class CrewCreateInput(StrictSerializer):
    name = StrictCharField(max_length=MAX_NAME * 4, help_text=f"1 to {MAX_NAME} characters.")


class CrewIdOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()


class CrewSummaryOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


class CrewListOutput(serializers.Serializer[Any]):
    crews = CrewSummaryOutput(many=True)


class CrewMemberOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()


class CrewGameOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    title = serializers.CharField()
    rules = serializers.CharField()
    status = serializers.ChoiceField(choices=Game.Status.values)


class StandingRowOutput(serializers.Serializer[Any]):
    user_id = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    average_place = serializers.FloatField(allow_null=True)


class HeadToHeadOutput(serializers.Serializer[Any]):
    user_id = serializers.IntegerField()
    opponent_id = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Finished games both played.")
    ahead = serializers.IntegerField(help_text="Of those, how many user_id finished ahead of opponent_id.")


class StandingsOutput(serializers.Serializer[Any]):
    rules = serializers.CharField()
    title = serializers.CharField()
    games = serializers.IntegerField()
    players = StandingRowOutput(many=True)
    head_to_head = HeadToHeadOutput(many=True)


class CrewDetailOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    members = CrewMemberOutput(many=True)
    games = CrewGameOutput(many=True, help_text="The crew's games you may see, newest first.")
    standings = StandingsOutput(many=True, help_text="Per rule set, from the finished games you may see.")


class CrewInvitationsInput(StrictSerializer):
    emails = serializers.ListField(
        child=StrictCharField(max_length=320),
        min_length=1,
        max_length=MAX_INVITES,
        help_text=f"At most {MAX_INVITES} addresses.",
    )


class CrewInvitationsOutput(serializers.Serializer[Any]):
    invited = serializers.ListField(child=serializers.CharField())


class CrewGameInput(StrictSerializer):
    rules = StrictCharField(max_length=32)
    bot_seats = StrictIntegerField(min_value=0, max_value=9, required=False, default=0)
    public = StrictBooleanField(required=False, default=False)


class RematchView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [GameCreateThrottle]  # counts POSTs only

    @extend_schema(
        operation_id="games_rematch",
        summary="Play a finished game again",
        description=(
            "A new game of the same rule set and options (a fresh seed; a fixed deal is not copied), "
            "every person of the old game seated and emailed, bots as bots, someone else starting. "
            "201 when this call made it; 200 when it joined the rematch another player asked for."
        ),
        request=None,
        responses={201: RematchGameOutput, 200: RematchGameOutput, **errors(401, 403, 404, 409, 429)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        game, made = rematch_services.rematch_create(game_id=game_id, by=_person(request))
        return Response(
            RematchGameOutput({"id": game.pk, "status": game.status}).data,
            status=status.HTTP_201_CREATED if made else status.HTTP_200_OK,
        )


class AnswerView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_answer",
        summary="Answer a rematch or crew game's seat: I'm in, or not this time (frees the seat)",
        request=AnswerInput,
        responses={200: RematchGameOutput, **errors(400, 401, 403, 404, 409)},
        tags=["lobby"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = AnswerInput(data=request.data)
        data.is_valid(raise_exception=True)
        game = rematch_services.rematch_answer(
            game_id=game_id, user=_person(request), accept=data.validated_data["answer"] == "in"
        )
        return Response(RematchGameOutput({"id": game.pk, "status": game.status}).data)


class CrewListView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [GameCreateThrottle]  # counts POSTs only: making crews is capped as games are

    @extend_schema(
        operation_id="crews_list",
        summary="Your crews",
        responses={200: CrewListOutput, **errors(401)},
        tags=["crews"],
    )
    def get(self, request: Request) -> Response:
        crews = crew_services.crews_of(_person(request))
        return Response({"crews": [{"id": c.pk, "name": c.name} for c in crews]})

    @extend_schema(
        operation_id="crews_create",
        summary="Make a crew (you are its first member)",
        request=CrewCreateInput,
        responses={201: CrewIdOutput, **errors(400, 401, 429)},
        tags=["crews"],
    )
    def post(self, request: Request) -> Response:
        data = CrewCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        crew = crew_services.crew_create(by=_person(request), name=data.validated_data["name"])
        return Response({"id": crew.pk}, status=status.HTTP_201_CREATED)


class CrewDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="crews_detail",
        summary="A crew of yours: members, games and standings",
        responses={200: CrewDetailOutput, **errors(401, 404)},
        tags=["crews"],
    )
    def get(self, request: Request, crew_id: int) -> Response:
        user = _person(request)
        crew = crew_services.crew_for(crew_id, user)
        return Response(
            {
                "id": crew.pk,
                "name": crew.name,
                "members": [{"id": m.pk, "name": person_name(m)} for m in crew_services.members_of(crew)],
                "games": [
                    {"id": g.pk, "title": g.display_name, "rules": g.rules_id, "status": g.status}
                    for g in crew_services.crew_games(crew, user)
                ],
                "standings": [t.to_json() for t in crew_services.crew_standings(crew, user)],
            }
        )


class CrewInvitationsView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [InvitationThrottle]

    @extend_schema(
        operation_id="crews_invite",
        summary="Invite people into a crew by email",
        request=CrewInvitationsInput,
        responses={201: CrewInvitationsOutput, **errors(400, 401, 404, 409, 429)},
        tags=["crews"],
    )
    def post(self, request: Request, crew_id: int) -> Response:
        data = CrewInvitationsInput(data=request.data)
        data.is_valid(raise_exception=True)
        sent = crew_services.crew_invite(
            crew_id=crew_id, by=_person(request), emails=data.validated_data["emails"]
        )
        return Response({"invited": [i.email for i in sent]}, status=status.HTTP_201_CREATED)


class CrewGamesView(APIView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [GameCreateThrottle]

    @extend_schema(
        operation_id="crews_new_game",
        summary="A new game for the crew: every member seated and emailed, as a rematch",
        request=CrewGameInput,
        responses={201: RematchGameOutput, **errors(400, 401, 404, 429)},
        tags=["crews"],
    )
    def post(self, request: Request, crew_id: int) -> Response:
        data = CrewGameInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        game = crew_services.crew_game_create(
            crew_id=crew_id,
            by=_person(request),
            rules_id=v["rules"],
            bot_seats=v["bot_seats"],
            is_public=v["public"],
        )
        return Response(
            RematchGameOutput({"id": game.pk, "status": game.status}).data, status=status.HTTP_201_CREATED
        )
