"""URLs of the REST API, mounted at /api/."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

from games.api import docs, views
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
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", docs.api_docs, name="api-docs"),
    path("games/<int:game_id>/webhooks/", webhook_views.GameWebhooksView.as_view(), name="api-game-webhooks"),
    path(
        "games/<int:game_id>/webhooks/<int:hook_id>/", webhook_views.GameWebhookView.as_view(),
        name="api-game-webhook",
    ),
    re_path(r"^(?P<path>.*)$", not_found),
]
