"""Rematch: "Play again" from a finished game, "I'm in" and "Not this time"."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

import engine
from games import services
from games.models import Event, Game, Outbox, Rematch, RematchReply, Seat
from games.services.rematch import answer_token, rematch_answer, rematch_answer_by_token, rematch_create
from tests.services.friends_support import finished_game
from tests.services.support import make_user, make_users, started_game

pytestmark = pytest.mark.django_db


def _starter_user(game: Game) -> int | None:
    """The account whose seat acts first in ``game`` (from its revealed or current seed)."""
    rules = engine.get_rules(game.rules_id, game.rules_version)
    state = rules.new_game(players=game.players, seed=game.seed, options=game.options)
    (first,) = rules.to_act(state)
    return Seat.objects.get(game=game, position=first).user_id


def test_play_again_seats_everyone_and_starts_when_all_say_yes() -> None:
    anne, bart, cora = make_users(3)
    old = finished_game([anne, bart, cora], rules_id="pirates")
    new, made = rematch_create(game_id=old.pk, by=bart)
    assert made and new.status == Game.Status.LOBBY and new.pk != old.pk
    assert (new.rules_id, new.players, new.is_public, new.created_by_id) == ("pirates", 3, True, bart.pk)
    seated = dict(Seat.objects.filter(game=new).values_list("position", "user_id"))
    assert seated == dict(Seat.objects.filter(game=old).values_list("position", "user_id"))
    answers = dict(RematchReply.objects.filter(rematch__game=new).values_list("user_id", "answer"))
    assert answers == {anne.pk: "waiting", bart.pk: "in", cora.pk: "waiting"}
    # One seat offer email owed to each person still to answer.
    owed = set(Outbox.objects.filter(game=new, kind=Outbox.Kind.REMATCH).values_list("key", flat=True))
    assert owed == {anne.pk, cora.pk}

    assert rematch_answer(game_id=new.pk, user=anne, accept=True).status == Game.Status.LOBBY
    new = rematch_answer(game_id=new.pk, user=cora, accept=True)
    assert new.status == Game.Status.ACTIVE and new.seed != old.seed
    # Same neighbours, and the seat after the old starter starts now.
    old_order = [s.user_id for s in Seat.objects.filter(game=old).order_by("position")]
    old_first = old_order.index(_starter_user(old))
    assert _starter_user(new) == old_order[(old_first + 1) % 3]
    new_order = [s.user_id for s in Seat.objects.filter(game=new).order_by("position")]
    shift = new_order.index(old_order[0])
    assert [new_order[(shift + k) % 3] for k in range(3)] == old_order


def test_rotation_holds_over_many_seeds() -> None:
    """Whoever the fresh seed makes start, the person after the old starter starts (three
    rematches in a chain: each one's starter is the next person round the table)."""
    people = make_users(3)
    game = finished_game(people, rules_id="pirates")
    order = [s.user_id for s in Seat.objects.filter(game=game).order_by("position")]
    starter = order.index(_starter_user(game))
    for round_ in range(3):
        new, _ = rematch_create(game_id=game.pk, by=people[round_ % 3])
        for person in people:
            if RematchReply.objects.get(rematch__game=new, user=person).answer == "waiting":
                new = rematch_answer(game_id=new.pk, user=person, accept=True)
        assert new.status == Game.Status.ACTIVE
        starter = (starter + 1) % 3
        assert _starter_user(new) == order[starter]
        game = _force_finish(new)


def _force_finish(game: Game) -> Game:
    from tests.services.support import play_to_end

    return play_to_end(game)


def test_second_play_again_joins_the_first_and_double_click_is_refused() -> None:
    anne, bart = make_users(2)
    old = finished_game([anne, bart])
    first, made = rematch_create(game_id=old.pk, by=anne)
    with pytest.raises(services.Conflict, match="already in the rematch"):
        rematch_create(game_id=old.pk, by=anne)
    assert Rematch.objects.count() == 1 and Game.objects.count() == 2
    again, made_again = rematch_create(game_id=old.pk, by=bart)
    assert (again.pk, made, made_again) == (first.pk, True, False)
    assert again.status == Game.Status.ACTIVE  # bart was the last to say yes
    with pytest.raises(services.Conflict, match="already in the rematch"):
        rematch_create(game_id=old.pk, by=bart)
    assert Rematch.objects.count() == 1 and Game.objects.count() == 2


def test_bots_stay_bots_and_a_fixed_deal_is_not_copied() -> None:
    anne, bart = make_users(2)
    old = services.game_create(
        creator=anne,
        rules_id="pirates",
        players=3,
        bot_seats=1,
        bot_kind="random",
        options={"first_seat": 1},
        is_public=False,
    )
    assert old.fixed_deal
    (invitation,) = services.invitation_create(game_id=old.pk, by=anne, emails=[bart.email])
    services.invitation_accept(token=invitation.token, user=bart)
    services.game_start(game_id=old.pk, by=anne)
    old = Game.objects.get(pk=old.pk)
    Game.objects.filter(pk=old.pk).update(
        status=Game.Status.FINISHED, result={"scores": [1, 2, 3], "winners": [2]}
    )
    new, _ = rematch_create(game_id=old.pk, by=anne)
    assert new.options == {} and not new.fixed_deal and not new.is_public
    assert sorted(Seat.objects.filter(game=new, user=None).values_list("bot", flat=True)) == ["random"]
    assert set(Seat.objects.filter(game=new).exclude(user=None).values_list("user_id", flat=True)) == {
        anne.pk,
        bart.pk,
    }


def test_not_this_time_frees_the_seat_and_the_game_starts_when_it_is_taken() -> None:
    anne, bart, cora = make_users(3)
    dora = make_user("dora")
    old = finished_game([anne, bart, cora], rules_id="pirates")
    new, _ = rematch_create(game_id=old.pk, by=anne)
    rematch_answer(game_id=new.pk, user=bart, accept=True)
    new = rematch_answer(game_id=new.pk, user=cora, accept=False)
    assert not Seat.objects.filter(game=new, user=cora).exists() and new.status == Game.Status.LOBBY
    assert new.auto_start  # nobody left to answer: the last seat taken starts it
    with pytest.raises(services.Conflict, match="no seat waiting"):
        rematch_answer(game_id=new.pk, user=cora, accept=False)
    services.seat_join(game_id=new.pk, user=dora)
    assert Game.objects.get(pk=new.pk).status == Game.Status.ACTIVE


def test_the_creator_may_start_before_everyone_answered() -> None:
    anne, bart = make_users(2)
    old = finished_game([anne, bart])
    new, _ = rematch_create(game_id=old.pk, by=anne)
    services.game_start(game_id=new.pk, by=anne)
    with pytest.raises(services.Conflict, match="already started"):
        rematch_answer(game_id=new.pk, user=bart, accept=True)
    assert Game.objects.get(pk=new.pk).status == Game.Status.ACTIVE
    assert Event.objects.filter(game=new).count() == 1


def test_bad_rematches_change_nothing() -> None:
    anne, bart, cora = make_users(3)
    olga = make_user("olga")
    running = started_game([anne, bart, cora])
    with pytest.raises(services.Conflict, match="still running"):
        rematch_create(game_id=running.pk, by=anne)
    private = finished_game([anne, bart], public=False)
    with pytest.raises(services.NotFound):
        rematch_create(game_id=private.pk, by=olga)  # a private game does not exist for her
    public = finished_game([anne, bart])
    with pytest.raises(services.Forbidden, match="Only the people who played"):
        rematch_create(game_id=public.pk, by=olga)
    with pytest.raises(services.NotFound):
        rematch_create(game_id=999999, by=anne)
    lobby = services.game_create(creator=anne, rules_id="pirates", players=3)
    with pytest.raises(services.Conflict, match="waiting for players"):
        rematch_create(game_id=lobby.pk, by=anne)
    services.game_abort(game_id=lobby.pk, by=anne)
    with pytest.raises(services.Conflict, match="aborted"):
        rematch_create(game_id=lobby.pk, by=anne)
    assert Rematch.objects.count() == 0 and Game.objects.count() == 4
    # Answers: someone else's game, an unknown id, a game that called nobody.
    new, _ = rematch_create(game_id=public.pk, by=anne)
    with pytest.raises(services.Forbidden, match="did not offer you a seat"):
        rematch_answer(game_id=new.pk, user=olga, accept=True)
    with pytest.raises(services.NotFound):
        rematch_answer(game_id=123456, user=bart, accept=True)
    with pytest.raises(services.Forbidden):
        rematch_answer(game_id=running.pk, user=bart, accept=True)
    with pytest.raises(services.InvalidInput, match="abort it"):
        rematch_answer(game_id=new.pk, user=anne, accept=False)
    assert Seat.objects.filter(game=new).count() == 2
    assert RematchReply.objects.get(rematch__game=new, user=bart).answer == "waiting"


def test_signed_links_answer_for_their_person_only_and_stale_ones_say_so() -> None:
    anne, bart = make_users(2)
    old = finished_game([anne, bart])
    new, _ = rematch_create(game_id=old.pk, by=anne)
    token = answer_token(new.pk, bart.pk)
    with pytest.raises(services.NotFound, match="not valid"):
        rematch_answer_by_token(token=token[:-2] + "xx", accept=True)
    with pytest.raises(services.Forbidden):
        rematch_answer_by_token(token=answer_token(new.pk, make_user("olga").pk), accept=True)
    assert rematch_answer_by_token(token=token, accept=True).status == Game.Status.ACTIVE
    with pytest.raises(services.Conflict, match="already started"):
        rematch_answer_by_token(token=token, accept=False)
    assert Seat.objects.filter(game=new, user=bart).exists()


def test_the_seat_email_links_answer(client: Client, settings, django_capture_on_commit_callbacks) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "http://pirates.test"
    anne, bart, cora = make_users(3)
    old = finished_game([anne, bart, cora], rules_id="pirates")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        new, _ = rematch_create(game_id=old.pk, by=anne)
    offers = sorted((m for m in mail.outbox if "rematch" in m.subject), key=lambda m: m.to[0])
    assert [m.to for m in offers] == [[bart.email], [cora.email]]
    body = offers[0].body
    yes = next(line for line in body.splitlines() if line.endswith("/in/")).removeprefix(
        "http://pirates.test"
    )
    no = next(line for line in body.splitlines() if line.endswith("/out/")).removeprefix(
        "http://pirates.test"
    )
    assert client.get(yes).status_code == 200  # GET only asks: a link checker changes nothing
    assert RematchReply.objects.get(rematch__game=new, user=bart).answer == "waiting"
    assert client.post(yes).status_code == 200
    assert RematchReply.objects.get(rematch__game=new, user=bart).answer == "in"
    cora_no = next(line for line in offers[1].body.splitlines() if line.endswith("/out/")).removeprefix(
        "http://pirates.test"
    )
    assert no != cora_no
    response = client.post(cora_no)
    assert b"free again" in response.content
    assert not Seat.objects.filter(game=new, user=cora).exists()
    assert client.get("/rematch/nonsense/in/").status_code == 404
