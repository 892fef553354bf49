"""Crews: making one, inviting by email, joining with a verified address, the crew's games
and its standings."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core import mail
from pytest_django import Settings

from games import services
from games.models import Crew, CrewGame, CrewInvitation, CrewMember, Game, RematchReply, Seat, VerifiedAddress
from games.services.crews import (
    crew_create,
    crew_for,
    crew_game_create,
    crew_games,
    crew_invitation_accept,
    crew_invite,
    crew_standings,
    places,
)
from games.services.rematch import rematch_answer, rematch_create
from tests.services.support import make_user, make_users, play_to_end

pytestmark = pytest.mark.django_db


def _crew_of(people: list[User]) -> Crew:
    crew = crew_create(by=people[0], name="  The   Black Gulls ")
    for person in people[1:]:
        (invitation,) = crew_invite(crew_id=crew.pk, by=people[0], emails=[person.email])
        crew_invitation_accept(token=invitation.token, user=person)
    return crew


def test_a_crew_is_made_joined_with_a_verified_address_only() -> None:
    anne, bart = make_users(2)
    crew = crew_create(by=anne, name="  The   Black Gulls ")
    assert crew.name == "The Black Gulls"
    (invitation,) = crew_invite(crew_id=crew.pk, by=anne, emails="BART@example.com, ")
    assert invitation.email == "bart@example.com"
    impostor = make_user("impostor")
    with pytest.raises(services.AddressNotVerified):
        crew_invitation_accept(token=invitation.token, user=impostor)
    VerifiedAddress.objects.filter(user=bart).delete()  # bart has not verified his address
    with pytest.raises(services.AddressNotVerified):
        crew_invitation_accept(token=invitation.token, user=bart)
    assert not CrewMember.objects.filter(crew=crew, user=bart).exists()
    VerifiedAddress.objects.create(user=bart, address="bart@example.com")
    assert crew_invitation_accept(token=invitation.token, user=bart) == crew
    assert crew_invitation_accept(token=invitation.token, user=bart) == crew  # again: harmless
    with pytest.raises(services.Conflict, match="used by someone else"):
        crew_invitation_accept(token=invitation.token, user=impostor)
    assert crew_for(crew.pk, bart) == crew
    with pytest.raises(services.NotFound):
        crew_for(crew.pk, impostor)
    # A person may be in several crews.
    other = crew_create(by=bart, name="Tortuga")
    assert set(Crew.objects.filter(members__user=bart)) == {crew, other}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Give the crew a name"),
        ("   ", "Give the crew a name"),
        ("x" * 61, "at most 60"),
        ("Gulls\x07", "control characters"),
        (None, "must be text"),
        (["Gulls"], "must be text"),
    ],
)
def test_bad_crew_names_are_refused(name: object, message: str) -> None:
    with pytest.raises(services.InvalidInput, match=message):
        crew_create(by=make_user("anne"), name=name)
    assert Crew.objects.count() == 0


def test_bad_invitations_change_nothing(settings: Settings) -> None:
    anne, bart = make_users(2)
    olga = make_user("olga")
    crew = _crew_of([anne, bart])
    before = CrewInvitation.objects.count()
    cases: list[tuple[list[str] | str, type[Exception], str]] = [
        ([f"p{i}@example.com" for i in range(500)], services.InvalidInput, "at most 10"),
        ("", services.InvalidInput, "at least one"),
        ("not-an-address", services.InvalidInput, "not an email address"),
        ([bart.email], services.Conflict, "Already invited"),
        (["x" * 300 + "@example.com"], services.InvalidInput, "254"),
    ]
    for emails, error, message in cases:
        with pytest.raises(error, match=message):
            crew_invite(crew_id=crew.pk, by=anne, emails=emails)
    with pytest.raises(services.NotFound):
        crew_invite(crew_id=crew.pk, by=olga, emails=["eve@example.com"])
    with pytest.raises(services.NotFound):
        crew_invite(crew_id=424242, by=anne, emails=["eve@example.com"])
    # The daily cap counts game and crew invitations together.
    settings.INVITATIONS_PER_DAY = 3
    lobby = services.game_create(creator=anne, rules_id="pirates", players=3)
    services.invitation_create(game_id=lobby.pk, by=anne, emails=["g1@example.com"])
    with pytest.raises(services.Throttled):
        crew_invite(crew_id=crew.pk, by=anne, emails=["c1@example.com", "c2@example.com"])
    assert CrewInvitation.objects.count() == before


def test_crew_invitation_email_carries_the_join_link(
    settings: Settings, django_capture_on_commit_callbacks
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "http://pirates.test"
    anne, bart = make_users(2)
    crew = crew_create(by=anne, name="Gulls")
    with django_capture_on_commit_callbacks(execute=True):
        (invitation,) = crew_invite(
            crew_id=crew.pk,
            by=anne,
            emails=[
                bart.email,
            ],
        )
        (stranger,) = crew_invite(crew_id=crew.pk, by=anne, emails=["nobody@example.net"])
    sent = {m.to[0]: m for m in mail.outbox}
    assert set(sent) == {bart.email, "nobody@example.net"}
    assert sent[bart.email].subject == "player0 invites you to the crew Gulls"
    assert f"http://pirates.test/crews/join/{invitation.token}/" in sent[bart.email].body
    assert f"http://pirates.test/crews/join/{stranger.token}/" in sent["nobody@example.net"].body


def test_new_game_for_the_crew_seats_everyone_and_its_rematch_is_the_crews() -> None:
    anne, bart = make_users(2)
    olga = make_user("olga")
    crew = _crew_of([anne, bart])
    game = crew_game_create(crew_id=crew.pk, by=bart, rules_id="libertalia")
    assert (game.players, game.is_public, game.title, game.status) == (2, False, crew.name, Game.Status.LOBBY)
    assert list(Seat.objects.filter(game=game).order_by("position").values_list("user_id", flat=True)) == [
        bart.pk,
        anne.pk,
    ]
    assert RematchReply.objects.get(rematch__game=game, user=anne).answer == "waiting"
    game = rematch_answer(game_id=game.pk, user=anne, accept=True)
    assert game.status == Game.Status.ACTIVE
    game = play_to_end(game)
    rematch, _ = rematch_create(game_id=game.pk, by=anne)
    assert CrewGame.objects.get(game=rematch).crew == crew
    assert [g.pk for g in crew_games(crew, anne)] == [rematch.pk, game.pk]
    assert list(crew_games(crew, olga)) == []  # private games show only to their players
    # Bad input: a rule set that does not take the crew, unknown rules, an outsider.
    with pytest.raises(services.InvalidInput, match="takes 3 to 5 players"):
        crew_game_create(crew_id=crew.pk, by=anne, rules_id="pirates")
    with pytest.raises(services.InvalidInput):
        crew_game_create(crew_id=crew.pk, by=anne, rules_id="chess")
    with pytest.raises(services.InvalidInput):
        crew_game_create(crew_id=crew.pk, by=anne, rules_id="libertalia", bot_seats=-1)
    with pytest.raises(services.NotFound):
        crew_game_create(crew_id=crew.pk, by=olga, rules_id="libertalia")
    assert CrewGame.objects.count() == 2
    # With a bot the crew plays a three-player game.
    with_bot = crew_game_create(crew_id=crew.pk, by=anne, rules_id="pirates", bot_seats=1)
    assert Seat.objects.filter(game=with_bot, user=None).count() == 1


def test_places_follow_winners_then_scores() -> None:
    assert places({"scores": [10, 30, 20], "winners": [1]}, 3) == [3, 1, 2]
    assert places({"scores": [30, 30, 20], "winners": [0, 1]}, 3) == [1, 1, 3]
    # A tie broken by the rules: the winner is first, the other tied seat second.
    assert places({"scores": [30, 30, 5], "winners": [1]}, 3) == [2, 1, 3]


def test_standings_per_rule_set_with_head_to_head() -> None:
    anne, bart, cora = make_users(3)
    crew = _crew_of([anne, bart, cora])
    results = [
        ("pirates", [anne, bart, cora], {"scores": [30, 20, 10], "winners": [0]}),
        ("pirates", [anne, bart, cora], {"scores": [5, 25, 15], "winners": [1]}),
        ("libertalia", [anne, cora], {"scores": [1, 9], "winners": [1]}),
    ]
    for rules_id, people, result in results:
        game = services.game_create(creator=people[0], rules_id=rules_id, players=len(people))
        for position, person in enumerate(people[1:], start=1):
            Seat.objects.create(game=game, position=position, user=person)
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, result=result)
        CrewGame.objects.create(crew=crew, game=game)
    tables = {t.rules_id: t for t in crew_standings(crew, anne)}
    pirates = {r.name: (r.games, r.wins, r.average_place) for r in tables["pirates"].rows}
    assert pirates == {"player0": (2, 1, 2.0), "player1": (2, 1, 1.5), "player2": (2, 0, 2.5)}
    assert tables["pirates"].head_to_head[anne.pk][bart.pk] == 1
    assert tables["pirates"].head_to_head[cora.pk][anne.pk] == 1
    assert tables["pirates"].together[anne.pk][bart.pk] == 2
    libertalia = {r.name: (r.games, r.wins, r.average_place) for r in tables["libertalia"].rows}
    assert libertalia["player1"] == (0, 0, None)
    assert libertalia["player2"] == (1, 1, 1.0)
    rows = tables["pirates"].matrix()
    assert [r["name"] for r in rows] == ["player1", "player0", "player2"]  # wins, then average place
    assert rows[0]["cells"] == ["", "1/2", "2/2"]
    # Standings over time (the crew page's chart): wins so far after each finished game.
    assert tables["pirates"].wins_over_time == {anne.pk: [(1, 1), (2, 1)], bart.pk: [(1, 0), (2, 1)],
                                                cora.pk: [(1, 0), (2, 0)]}
    assert tables["libertalia"].wins_over_time[cora.pk] == [(1, 1)]
    assert tables["libertalia"].to_json()["head_to_head"] == [
        {"user_id": anne.pk, "opponent_id": cora.pk, "games": 1, "ahead": 0},
        {"user_id": cora.pk, "opponent_id": anne.pk, "games": 1, "ahead": 1},
    ]
