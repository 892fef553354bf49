"""The API of webhooks: a game's players add, list and delete the game's, a crew's members
the crew's (games/services/webhooks.py), with one input, one output and one answer shape for
both; the secret that signs JSON deliveries is shown once, in the answer that made the hook."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.api import serializers as s
from games.models import Webhook
from games.services import webhooks

ERRORS = {
    400: OpenApiResponse(s.ErrorOutput, description="A bad URL, format, event or mention."),
    401: OpenApiResponse(s.ErrorOutput, description="Not signed in."),
    403: OpenApiResponse(s.ErrorOutput, description="You have no seat in this game."),
    404: OpenApiResponse(
        s.ErrorOutput, description="No such game (or a private one), or no such hook in it."
    ),
    409: OpenApiResponse(s.ErrorOutput, description="The game is over, or has as many hooks as it may."),
}


CREW_ERRORS = {
    400: ERRORS[400],
    401: ERRORS[401],
    404: OpenApiResponse(
        s.ErrorOutput, description="No such crew (or not yours), or no such hook in it."
    ),
    409: OpenApiResponse(s.ErrorOutput, description="The crew has as many hooks as it may."),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: ERRORS[code] for code in codes}


def crew_errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: CREW_ERRORS[code] for code in codes}


class WebhookCreateInput(serializers.Serializer[Any]):
    url = s.StrictCharField(
        max_length=webhooks.MAX_URL, help_text="https in production (http and loopback in development only)."
    )
    format = serializers.ChoiceField(choices=Webhook.Format.values)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=list(Webhook.EVENTS)), required=False, min_length=1,
        max_length=len(Webhook.EVENTS),
        help_text=f"Default: {', '.join(webhooks.DEFAULT_EVENTS)}.",
    )
    mentions = serializers.DictField(
        child=s.StrictCharField(max_length=40), required=False,
        help_text="Display name -> chat handle (<@123456> on Discord, <@U0123ABC> on Slack), "
        "mentioned in turn notices.",
    )


class WebhookOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    url = serializers.CharField()
    format = serializers.ChoiceField(choices=Webhook.Format.values)
    events = serializers.ListField(child=serializers.CharField())
    mentions = serializers.DictField(child=serializers.CharField())
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    failures = serializers.IntegerField(help_text="Failed attempts in a row.")
    disabled = serializers.BooleanField()
    disabled_at = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField()


class WebhookCreatedOutput(WebhookOutput):
    secret = serializers.CharField(
        help_text="Signs JSON deliveries: X-Pirates-Signature is sha256=<hex HMAC-SHA256 of the body>. "
        "Shown only now."
    )


class WebhookListOutput(serializers.Serializer[Any]):
    webhooks = WebhookOutput(many=True)


def _person(request: Request) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


def _listed(hooks: list[Webhook]) -> Response:
    return Response(WebhookListOutput({"webhooks": [webhooks.describe(h) for h in hooks]}).data)


def _created(request: Request, create: Callable[..., tuple[Webhook, str]], **owner: int) -> Response:
    """Checks the input and makes the hook with ``create(**owner, …)``: the secret is answered once."""
    data = WebhookCreateInput(data=request.data)
    data.is_valid(raise_exception=True)
    v = data.validated_data
    hook, secret = create(
        **owner, user=_person(request), url=v["url"], format=v["format"],
        events=v.get("events"), mentions=v.get("mentions"),
    )
    answer = {**webhooks.describe(hook), "secret": secret}
    return Response(WebhookCreatedOutput(answer).data, status=status.HTTP_201_CREATED)


CREATE_SUMMARY = "Add a webhook: turn notices and other news to Discord, Slack or your own program"


class GameWebhooksView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_webhooks_list",
        summary="The game's webhooks (players only; secrets are never listed)",
        responses={200: WebhookListOutput, **errors(401, 403, 404)},
        tags=["webhooks"],
    )
    def get(self, request: Request, game_id: int) -> Response:
        return _listed(webhooks.webhook_list(game_id=game_id, user=_person(request)))

    @extend_schema(
        operation_id="games_webhooks_create",
        summary=CREATE_SUMMARY,
        request=WebhookCreateInput,
        responses={201: WebhookCreatedOutput, **errors(400, 401, 403, 404, 409)},
        tags=["webhooks"],
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _created(request, webhooks.webhook_create, game_id=game_id)


class GameWebhookView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="games_webhooks_delete",
        summary="Delete one of the game's webhooks (any player of the game)",
        responses={204: None, **errors(401, 403, 404)},
        tags=["webhooks"],
    )
    def delete(self, request: Request, game_id: int, hook_id: int) -> Response:
        webhooks.webhook_delete(game_id=game_id, hook_id=hook_id, user=_person(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CrewWebhooksView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="crews_webhooks_list",
        summary="The crew's webhooks: each hears every game of the crew (members only; secrets never listed)",
        responses={200: WebhookListOutput, **crew_errors(401, 404)},
        tags=["webhooks"],
    )
    def get(self, request: Request, crew_id: int) -> Response:
        return _listed(webhooks.crew_webhook_list(crew_id=crew_id, user=_person(request)))

    @extend_schema(
        operation_id="crews_webhooks_create",
        summary=f"{CREATE_SUMMARY}, for every game of the crew",
        request=WebhookCreateInput,
        responses={201: WebhookCreatedOutput, **crew_errors(400, 401, 404, 409)},
        tags=["webhooks"],
    )
    def post(self, request: Request, crew_id: int) -> Response:
        return _created(request, webhooks.crew_webhook_create, crew_id=crew_id)


class CrewWebhookView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="crews_webhooks_delete",
        summary="Delete one of the crew's webhooks (any member of the crew)",
        responses={204: None, **crew_errors(401, 404)},
        tags=["webhooks"],
    )
    def delete(self, request: Request, crew_id: int, hook_id: int) -> Response:
        webhooks.crew_webhook_delete(crew_id=crew_id, hook_id=hook_id, user=_person(request))
        return Response(status=status.HTTP_204_NO_CONTENT)
