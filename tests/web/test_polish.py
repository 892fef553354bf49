"""Small wording and markup fixes, each checked in the HTML or text a person gets."""

from __future__ import annotations

import secrets

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives

from games import side_effects
from games.models import Invitation
from games.services import game_create
from tests.web.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("rules_id", "title"),
    [("captain-lucky", "Captain Lucky (2024)"), ("pirates-classic", "Pirates (classic)"), ("libertalia", "Libertalia")],
)
def test_invitation_names_the_game_by_its_title_not_its_rules_id(
    rules_id: str, title: str, django_capture_on_commit_callbacks: object
) -> None:
    anne = make_user("anne")
    game = game_create(creator=anne, rules_id=rules_id, players=2 if rules_id != "pirates-classic" else 3)
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        invitation = Invitation.objects.create(
            game=game, email="newcomer@example.test", token=secrets.token_urlsafe(16), invited_by=anne
        )
        side_effects.after_invitations([invitation])
    (message,) = [m for m in mail.outbox if isinstance(m, EmailMultiAlternatives)]
    html = next(str(content) for content, kind in message.alternatives if kind == "text/html")
    assert f"a game of {title} on Pirates by Mail" in str(message.body)
    assert f"a game of {title} on Pirates by Mail" in html.replace("&#x27;", "'")
    assert f"a game of {rules_id} " not in str(message.body) + html
