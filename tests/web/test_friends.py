"""The rematch and crew pages: buttons with CSRF, clear errors that change nothing, and a
crew page that shows a private game only to those who may see it."""

from __future__ import annotations

import pytest
from django.test import Client

from games.models import Crew, CrewGame, Game, Rematch, RematchReply, Seat
from games.services.crews import crew_create, crew_invitation_accept, crew_invite
from tests.services.friends_support import finished_game
from tests.web.helpers import logged_in, make_user

pytestmark = pytest.mark.django_db


def test_play_again_from_the_table_and_answers_at_the_table() -> None:
    anne, bob = make_user("anne"), make_user("bob")
    old = finished_game([anne, bob])
    page = logged_in(anne).get(f"/games/{old.pk}/").content.decode()
    assert 'id="play-again"' in page and f'action="/games/{old.pk}/rematch/"' in page
    # Without the CSRF token nothing happens.
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(anne)
    assert strict.post(f"/games/{old.pk}/rematch/").status_code == 403
    assert Rematch.objects.count() == 0
    response = logged_in(anne).post(f"/games/{old.pk}/rematch/")
    new = Rematch.objects.get(source=old).game
    assert response.status_code == 302 and response["Location"] == f"/games/{new.pk}/"
    again = logged_in(anne).post(f"/games/{old.pk}/rematch/", follow=True)
    assert "already in the rematch" in again.content.decode() and Rematch.objects.count() == 1
    bob_page = logged_in(bob).get(f"/games/{new.pk}/").content.decode()
    assert 'id="answer-in"' in bob_page and 'id="answer-out"' in bob_page
    bad = logged_in(bob).post(f"/games/{new.pk}/answer/", {"answer": "perhaps"}, follow=True)
    assert "nothing was changed" in bad.content.decode()
    assert RematchReply.objects.get(rematch__game=new, user=bob).answer == "waiting"
    out = logged_in(bob).post(f"/games/{new.pk}/answer/", {"answer": "out"})
    assert out.status_code == 302 and not Seat.objects.filter(game=new, user=bob).exists()
    logged_in(bob).post(f"/games/{new.pk}/answer/", {"answer": "in"})
    assert Game.objects.get(pk=new.pk).status == Game.Status.ACTIVE
    # The replay of the finished game offers "Play again" too.
    assert (
        f'href="/games/{old.pk}/rematch/"' in logged_in(anne).get(f"/games/{old.pk}/replay/").content.decode()
    )


def test_rematch_pages_refuse_outsiders_and_unknown_games() -> None:
    anne, bob, olga = make_user("anne"), make_user("bob"), make_user("olga")
    private = finished_game([anne, bob], public=False)
    assert logged_in(olga).get(f"/games/{private.pk}/rematch/").status_code == 404
    assert logged_in(olga).post(f"/games/{private.pk}/rematch/").status_code == 404
    assert logged_in(anne).post("/games/999999/rematch/").status_code == 404
    assert logged_in(olga).post("/games/999999/answer/", {"answer": "in"}).status_code == 404
    assert Client().post(f"/games/{private.pk}/rematch/").status_code == 302  # to the log-in page
    assert Rematch.objects.count() == 0
    assert Client().get("/rematch/forged-token/in/").status_code == 404
    assert Client().get("/rematch/forged-token/sideways/").status_code == 404


def test_crew_pages_forms_and_private_games() -> None:
    anne, bob, olga = make_user("anne"), make_user("bob"), make_user("olga")
    made = logged_in(anne).post("/crews/", {"name": "Black Gulls"})
    crew = Crew.objects.get()
    assert made["Location"] == f"/crews/{crew.pk}/"
    for name in ("", " " * 5, "x" * 61, "a\x00b"):
        page = logged_in(anne).post("/crews/", {"name": name}, follow=True)
        assert page.status_code in (200, 400)
    assert Crew.objects.count() == 1
    assert logged_in(olga).get(f"/crews/{crew.pk}/").status_code == 404
    assert logged_in(olga).post(f"/crews/{crew.pk}/invite/", {"emails": "x@example.com"}).status_code == 404
    many = ", ".join(f"p{i}@example.com" for i in range(500))
    refused = logged_in(anne).post(f"/crews/{crew.pk}/invite/", {"emails": many}, follow=True)
    assert "at most 10" in refused.content.decode()
    logged_in(anne).post(f"/crews/{crew.pk}/invite/", {"emails": bob.email})
    token = crew.invitations.get(email=bob.email).token
    assert logged_in(olga).post(f"/crews/join/{token}/").status_code == 200  # told why, not joined
    assert not crew.members.filter(user=olga).exists()
    joined = logged_in(bob).post(f"/crews/join/{token}/")
    assert joined["Location"] == f"/crews/{crew.pk}/" and crew.members.filter(user=bob).exists()

    # A private crew game anne played with olga (a rematch of it is the crew's too) shows only to
    # anne, not to bob, who may not see it.
    private = finished_game([anne, olga], public=False)
    CrewGame.objects.create(crew=crew, game=private)
    public = finished_game([anne, bob])
    CrewGame.objects.create(crew=crew, game=public)
    anne_page = logged_in(anne).get(f"/crews/{crew.pk}/").content.decode()
    bob_page = logged_in(bob).get(f"/crews/{crew.pk}/").content.decode()
    assert f'href="/games/{private.pk}/"' in anne_page and f'href="/games/{public.pk}/"' in anne_page
    assert f'href="/games/{private.pk}/"' not in bob_page and f'href="/games/{public.pk}/"' in bob_page
    assert "1 finished game" in bob_page and "2 finished games" in anne_page
    # New game for the crew: bad rule sets and bot counts say so and make nothing.
    for fields in (
        {"rules": "chess"},
        {"rules": "libertalia", "bot_seats": "x"},
        {"rules": "pirates", "bot_seats": "9"},
    ):
        page = logged_in(anne).post(f"/crews/{crew.pk}/new-game/", fields, follow=True)
        assert page.status_code == 200
    assert CrewGame.objects.count() == 2
    made_game = logged_in(anne).post(f"/crews/{crew.pk}/new-game/", {"rules": "pirates", "bot_seats": "1"})
    new_game = CrewGame.objects.exclude(game__in=[private, public]).get().game
    assert made_game["Location"] == f"/games/{new_game.pk}/" and not new_game.is_public


def test_crew_invitation_link_for_a_visitor_leads_to_sign_up() -> None:
    anne = make_user("anne")
    crew = crew_create(by=anne, name="Gulls")
    (invitation,) = crew_invite(crew_id=crew.pk, by=anne, emails=["new@example.net"])
    response = Client().get(f"/crews/join/{invitation.token}/")
    assert response.status_code == 302 and response["Location"].startswith(
        "/accounts/signup/?next=/crews/join/"
    )
    assert Client().get("/crews/join/not-a-token/").status_code == 302
    newcomer = make_user("newcomer")
    newcomer.email = "new@example.net"
    newcomer.save()
    from games.services.accounts import mark_verified

    mark_verified(newcomer)
    assert crew_invitation_accept(token=invitation.token, user=newcomer) == crew
