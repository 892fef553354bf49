"""Top-level URLs: the web site, the REST API and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("games.api.urls")),
    path("", include("games.urls")),
]

# An outage met outside a view (in a middleware) is a 503 as well (games/unavailable.py).
handler500 = "games.unavailable.server_error"
