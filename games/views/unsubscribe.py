"""One-click unsubscribe from game emails (the link and the List-Unsubscribe header of each email).

GET shows a confirmation button (mail scanners follow links, so a GET changes nothing); POST
turns the player's emails off. Mail clients send the RFC 8058 one-click POST without a CSRF
token, so the view is exempt: the signed token in the URL is what authorises the change.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from games.emails import user_for_unsubscribe_token
from games.models import PlayerProfile


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    user = user_for_unsubscribe_token(token)
    if user is None:
        return render(request, "emails/unsubscribe_page.html", {"invalid": True}, status=404)
    if request.method == "POST":
        profile, _ = PlayerProfile.objects.get_or_create(user_id=user.pk)
        if profile.notify != PlayerProfile.Notify.NONE:
            profile.notify = PlayerProfile.Notify.NONE
            profile.save(update_fields=["notify"])
        return render(request, "emails/unsubscribe_page.html", {"done": True, "person": user})
    return render(request, "emails/unsubscribe_page.html", {"person": user})
