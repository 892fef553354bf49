"""Web URLs of the games app."""

from django.urls import path

from games.views import site

urlpatterns = [
    path("", site.home, name="home"),
    path("healthz", site.healthz, name="healthz"),
    path("dev/outbox/", site.outbox_list, name="outbox"),
    path("dev/outbox/<str:name>/", site.outbox_detail, name="outbox-detail"),
    path("dev/outbox/<str:name>/html/", site.outbox_html, name="outbox-html"),
    path("l/<str:token>/", site.login_link, name="login-link"),
]
