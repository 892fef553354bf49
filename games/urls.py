"""Web URLs of the games app."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from games.inbound.webhooks import inbound_webhook
from games.throttling import AccountEmailAddressThrottle, AccountEmailThrottle, LoginThrottle, throttle
from games.views import accounts, friends, lobby, players, replay, rules, site, table, unsubscribe
from games.views import webhooks as webhook_views

urlpatterns = [
    path("", site.home, name="home"),
    path("healthz", site.healthz, name="healthz"),
    path("dev/outbox/", site.outbox_list, name="outbox"),
    path("dev/outbox/<str:name>/", site.outbox_detail, name="outbox-detail"),
    path("dev/outbox/<str:name>/html/", site.outbox_html, name="outbox-html"),
    path("dev/outbox/<str:name>/reply/", site.outbox_reply, name="outbox-reply"),
    # Replies by email posted by hosted mail providers (django-anymail).
    path("mail/inbound/<slug:provider>/", inbound_webhook, name="mail-inbound"),
    path("l/<str:token>/", site.login_link, name="login-link"),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe, name="unsubscribe"),
    # Accounts: sign-up, log-in links and the profile; Django's auth views for the rest.
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login-link/", accounts.login_link_request, name="login-link-request"),
    path("accounts/profile/", accounts.profile, name="profile"),
    path("accounts/verify/<str:token>/", accounts.verify_address, name="verify-address"),
    path("accounts/verify-again/", accounts.verification_resend, name="verify-again"),
    # Django's log-in and password-reset views, throttled; the rest of its auth views as they are.
    path("accounts/login/", throttle(LoginThrottle)(auth_views.LoginView.as_view()), name="login"),
    path(
        "accounts/password_reset/",
        throttle(AccountEmailThrottle, AccountEmailAddressThrottle)(accounts.PasswordResetView.as_view()),
        name="password_reset",
    ),
    path("accounts/", include("django.contrib.auth.urls")),
    # Lobby and games.
    path("games/", lobby.lobby, name="lobby"),
    path("games/live/", lobby.lobby_live, name="lobby-live"),
    path("games/new/", lobby.game_new, name="game-new"),
    path("games/<int:game_id>/", table.game, name="game"),
    path("games/<int:game_id>/live/", table.game_live, name="game-live"),
    path("games/<int:game_id>/act/", table.game_act, name="game-act"),
    path("games/<int:game_id>/take-back/", table.game_take_back, name="game-take-back"),
    path("games/<int:game_id>/chat/", table.game_chat, name="game-chat"),
    path("games/<int:game_id>/resign/", table.game_resign, name="game-resign"),
    path("games/<int:game_id>/join/", lobby.game_join, name="game-join"),
    path("games/<int:game_id>/leave/", lobby.game_leave, name="game-leave"),
    path("games/<int:game_id>/fill/", lobby.game_fill, name="game-fill"),
    path("games/<int:game_id>/start/", lobby.game_start, name="game-start"),
    path("games/<int:game_id>/abort/", lobby.game_abort, name="game-abort"),
    path("games/<int:game_id>/invite/", lobby.game_invite, name="game-invite"),
    path("games/<int:game_id>/replay/", replay.replay, name="replay"),
    path("games/<int:game_id>/replay/<int:seq>/", replay.replay_frame, name="replay-frame"),
    path("invite/<str:token>/", lobby.invite, name="invite"),
    path("rules/", rules.rules_index, name="rules-index"),
    path("rules/<slug:rules_id>/", rules.rules, name="rules"),
    path("players/<str:username>/", players.player, name="player"),
    path("ratings/", players.ratings_index, name="ratings-index"),
    path("ratings/<slug:rules_id>/", players.leaderboard, name="leaderboard"),
    # Rematches and crews.
    path("games/<int:game_id>/rematch/", friends.game_rematch, name="game-rematch"),
    path("games/<int:game_id>/answer/", friends.game_answer, name="game-answer"),
    path("rematch/<str:token>/<str:answer>/", friends.answer_link, name="rematch-answer"),
    path("crews/", friends.crew_list, name="crews"),
    path("crews/<int:crew_id>/", friends.crew, name="crew"),
    path("crews/<int:crew_id>/invite/", friends.crew_invite, name="crew-invite"),
    path("crews/<int:crew_id>/new-game/", friends.crew_new_game, name="crew-new-game"),
    path("crews/join/<str:token>/", friends.crew_join, name="crew-join"),
    path("crews/<int:crew_id>/webhooks/", webhook_views.crew_webhook_add, name="crew-webhook-add"),
    path(
        "crews/<int:crew_id>/webhooks/<int:hook_id>/delete/", webhook_views.crew_webhook_delete,
        name="crew-webhook-delete",
    ),
    path("games/<int:game_id>/webhooks/", webhook_views.webhook_add, name="game-webhook-add"),
    path(
        "games/<int:game_id>/webhooks/<int:hook_id>/delete/", webhook_views.webhook_delete,
        name="game-webhook-delete",
    ),
]
