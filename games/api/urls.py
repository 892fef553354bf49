"""URLs of the REST API, mounted at /api/."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

from games.api import docs, friends, views
from games.api import webhooks as webhook_views
from games.api.exceptions import not_found

urlpatterns = [
    path("auth/token/", views.TokenView.as_view(), name="api-token"),
    path("ping/", views.PingView.as_view(), name="api-ping"),
    path("games/", views.GameListView.as_view(), name="api-games"),
    path("games/<int:game_id>/", views.GameDetailView.as_view(), name="api-game"),
    path("games/<int:game_id>/join/", views.GameJoinView.as_view(), name="api-game-join"),
    path("games/<int:game_id>/leave/", views.GameLeaveView.as_view(), name="api-game-leave"),
    path("games/<int:game_id>/bots/", views.GameBotsView.as_view(), name="api-game-bots"),
    path("games/<int:game_id>/start/", views.GameStartView.as_view(), name="api-game-start"),
    path("games/<int:game_id>/abort/", views.GameAbortView.as_view(), name="api-game-abort"),
    path("games/<int:game_id>/actions/", views.GameActionsView.as_view(), name="api-game-actions"),
    path("games/<int:game_id>/events/", views.GameEventsView.as_view(), name="api-game-events"),
    path("games/<int:game_id>/replay/<int:seq>/", views.GameReplayView.as_view(), name="api-game-replay"),
    path("games/<int:game_id>/export/", views.GameExportView.as_view(), name="api-game-export"),
    path("games/<int:game_id>/rematch/", friends.RematchView.as_view(), name="api-game-rematch"),
    path("games/<int:game_id>/answer/", friends.AnswerView.as_view(), name="api-game-answer"),
    path("crews/", friends.CrewListView.as_view(), name="api-crews"),
    path("crews/<int:crew_id>/", friends.CrewDetailView.as_view(), name="api-crew"),
    path(
        "crews/<int:crew_id>/invitations/", friends.CrewInvitationsView.as_view(), name="api-crew-invitations"
    ),
    path("crews/<int:crew_id>/games/", friends.CrewGamesView.as_view(), name="api-crew-games"),
    path("crews/<int:crew_id>/webhooks/", webhook_views.CrewWebhooksView.as_view(), name="api-crew-webhooks"),
    path(
        "crews/<int:crew_id>/webhooks/<int:hook_id>/", webhook_views.CrewWebhookView.as_view(),
        name="api-crew-webhook",
    ),
    path("games/<int:game_id>/invitations/", views.GameInvitationsView.as_view(), name="api-invitations"),
    path("games/<int:game_id>/chat/", views.GameChatView.as_view(), name="api-game-chat"),
    path("games/<int:game_id>/take-back/", views.GameTakeBackView.as_view(), name="api-game-take-back"),
    path("games/<int:game_id>/resign/", views.GameResignView.as_view(), name="api-game-resign"),
    re_path(
        r"^invitations/(?P<token>[A-Za-z0-9_-]{1,64})/accept/$",
        views.InvitationAcceptView.as_view(),
        name="api-invitation-accept",
    ),
    path("me/", views.MeView.as_view(), name="api-me"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", docs.api_docs, name="api-docs"),
    path("players/<str:username>/", views.PlayerView.as_view(), name="api-player"),
    path("ratings/<str:rules>/", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("games/<int:game_id>/webhooks/", webhook_views.GameWebhooksView.as_view(), name="api-game-webhooks"),
    path(
        "games/<int:game_id>/webhooks/<int:hook_id>/", webhook_views.GameWebhookView.as_view(),
        name="api-game-webhook",
    ),
    re_path(r"^(?P<path>.*)$", not_found),
]
