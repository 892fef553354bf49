"""Ratings (games/ratings.py): the game-over side effect, recomputed independently with the
library, idempotent, in finish order, resigned seats last and bots rated per kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from openskill.models import PlackettLuce

from games import ratings, services, tasks
from games.models import Game, Outbox, PlayerProfile, RatedGame, Rating, RatingChange, Seat
from games.players import leaderboard
from tests.module_rows import module_rows
from tests.services.ratings_support import finish, new_game, relay_all
from tests.services.support import make_users

pytestmark = pytest.mark.django_db


def snapshot() -> dict[str, Any]:
    return {
        "ratings": sorted(
            (r.rules_id, r.user_id or 0, r.bot, round(r.mu, 9), round(r.sigma, 9), r.games)
            for r in Rating.objects.all()
        ),
        "changes": sorted(
            (c.game_id, c.user_id or 0, c.bot, c.rank, round(c.mu_after, 9))
            for c in RatingChange.objects.all()
        ),
    }


def recomputed() -> dict[tuple[int | None, str], tuple[float, float, int]]:
    """The ratings computed here, straight from the library, over the finished games in the
    order they finished: winners first, then by score; resigned seats last; everyone public."""
    model = PlackettLuce()
    current: dict[tuple[int | None, str], tuple[float, float, int]] = {}
    for game in Game.objects.filter(status=Game.Status.FINISHED).order_by("finished_at", "pk"):
        assert game.is_public, "this recomputation covers public games only"
        resigned = {
            e.payload["seat"]
            for e in game.events.filter(kind="seat_to_bot")
            if e.payload.get("reason") == "resigned"
        }
        seats = list(Seat.objects.filter(game=game).order_by("position"))
        who = [(s.user_id, "") if s.user_id else (None, s.bot) for s in seats]
        assert game.result is not None
        scores, winners = game.result["scores"], set(game.result["winners"])
        order = sorted({(p not in winners, -scores[p]) for p in range(len(seats)) if p not in resigned})
        ranks = [
            len(order) + 1 if p in resigned else order.index((p not in winners, -scores[p])) + 1
            for p in range(len(seats))
        ]
        teams = [[model.rating(*current.get(w, (25.0, 25 / 3, 0))[:2])] for w in who]
        after = model.rate(teams, ranks=[float(r) for r in ranks])
        assert len(set(who)) == len(who), "this recomputation has one seat per participant"
        for w, (rating,) in zip(who, after, strict=True):
            current[w] = (rating.mu, rating.sigma, current.get(w, (0, 0, 0))[2] + 1)
    return current


def stored() -> dict[tuple[int | None, str], tuple[float, float, int]]:
    return {(r.user_id, r.bot): (r.mu, r.sigma, r.games) for r in Rating.objects.filter(rules_id="pirates")}


def assert_agree(a: dict[Any, tuple[float, float, int]], b: dict[Any, tuple[float, float, int]]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key][0] == pytest.approx(b[key][0], abs=1e-9), key
        assert a[key][1] == pytest.approx(b[key][1], abs=1e-9), key
        assert a[key][2] == b[key][2], key


@pytest.fixture(scope="class")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[list[User]]:
    """Four people, five finished public games of three and four seats, bots of both kinds;
    played once for the tests of ``TestFiveFinishedGames`` (tests/module_rows.py)."""
    with module_rows(django_db_blocker):
        anne, bob, cat, dan = people = make_users(4, "p")
        finish(new_game([anne, bob, cat]), seed=1)
        finish(new_game([bob, cat, dan], bots=1, bot_kind="random"), seed=2)
        finish(new_game([dan, anne], bots=1, bot_kind="greedy"), seed=3)
        finish(new_game([anne, bob, cat, dan]), seed=4)
        finish(new_game([cat, anne, dan]), seed=5)
        relay_all()
        yield people


def test_a_resigned_seat_is_last_even_when_its_bot_went_on_to_win() -> None:
    who = [ratings.Who(i, "") for i in range(1, 5)]
    result = {"scores": [30, 10, 10, 5], "winners": [0]}
    placed = ratings.places(result, list(enumerate(who)), resigned={0, 3})
    assert [p.rank for p in placed] == [2, 1, 1, 2]
    placed = ratings.places(result, list(enumerate(who)), resigned=set())
    assert [p.rank for p in placed] == [1, 2, 2, 3]


def test_a_player_who_resigns_is_rated_last() -> None:
    anne, bob, cat = make_users(3, "r")
    game = finish(new_game([anne, bob, cat]), seed=7, resign=bob)
    relay_all()
    change = RatingChange.objects.get(game=game, user=bob)
    others = RatingChange.objects.filter(game=game).exclude(user=bob)
    assert change.rank > max(c.rank for c in others)
    assert change.mu_after < change.mu_before
    assert_agree(stored(), recomputed())


def test_several_seats_of_one_bot_kind_rate_the_kind_once_with_their_mean() -> None:
    anne, bob = make_users(2, "b")
    game = finish(new_game([anne, bob], bots=2, bot_kind="random"), seed=3)
    relay_all()
    (change,) = RatingChange.objects.filter(game=game, bot="random")
    model = PlackettLuce()
    seats = list(Seat.objects.filter(game=game).order_by("position"))
    assert game.result is not None
    placed = ratings.places(game.result, [(s.position, ratings.seat_who(s)) for s in seats], set())
    after = model.rate([[model.rating()] for _ in seats], ranks=[float(p.rank) for p in placed])
    bot_mus = [after[i][0].mu for i, s in enumerate(seats) if s.user_id is None]
    assert change.mu_after == pytest.approx(sum(bot_mus) / 2)
    assert Rating.objects.get(bot="random").games == 1


def test_each_bot_level_is_rated_as_one_player_and_an_unrecorded_level_as_greedy() -> None:
    anne, bob = make_users(2, "s")
    finish(new_game([anne, bob], bots=1, bot_kind="strong", rules_id="captain-lucky"), seed=5)
    relay_all()
    assert Rating.objects.get(rules_id="captain-lucky", bot="strong").games == 1
    assert not Rating.objects.filter(bot="greedy").exists()
    # A bot seat from before levels were recorded counts for the greedy bot it played; a seat
    # handed to a (strong) bot keeps its person's place.
    assert ratings.seat_who(Seat(position=0, user=None, bot="")) == ratings.Who(None, "greedy")
    assert ratings.seat_who(Seat(position=1, user=None, bot="strong")) == ratings.Who(None, "strong")
    handed = Seat(position=2, user=anne, bot="strong", replaced_by_bot=True)
    assert ratings.seat_who(handed) == ratings.Who(anne.pk, "")
    bots = {row["username"]: row["display_name"] for row in leaderboard("captain-lucky") if row["is_bot"]}
    assert bots == {"bot:strong": "Strong bot"}


def test_a_private_game_counts_only_for_those_who_opted_in() -> None:
    anne, bob, cat = make_users(3, "q")
    PlayerProfile.objects.create(user=cat, rate_private_games=True)
    finish(new_game([anne, bob, cat], public=False), seed=4)
    relay_all()
    assert list(Rating.objects.values_list("user_id", flat=True)) == [cat.pk]
    assert list(RatingChange.objects.values_list("user_id", flat=True)) == [cat.pk]


def test_changing_the_opt_in_recomputes_the_rule_sets_of_ones_private_games(client: Any) -> None:
    anne, bob, cat = make_users(3, "o")
    finish(new_game([anne, bob, cat], public=False), seed=4)
    relay_all()
    assert not Rating.objects.exists()
    services.profile_update(user=anne, display_name="", notify="when_away", timezone_name="UTC",
                            away_until=None, rate_private_games=True)
    relay_all()
    assert list(Rating.objects.values_list("user_id", flat=True)) == [anne.pk]
    services.profile_update(user=anne, display_name="", notify="when_away", timezone_name="UTC",
                            away_until=None, rate_private_games=False)
    relay_all()
    assert not Rating.objects.exists()


class TestFiveFinishedGames:
    """The tests over ``played``: its rows last as long as this class (tests/module_rows.py),
    so the tests after it start from an empty database."""

    def test_ratings_agree_with_the_library_recomputed_over_the_finished_games(
        self, played: list[User]
    ) -> None:
        assert Game.objects.filter(status=Game.Status.FINISHED).count() == 5
        # Every game-over row ran its rating update as the outbox side effect.
        rows = Outbox.objects.filter(kind=Outbox.Kind.RATINGS)
        assert rows.count() == 5 and set(rows.values_list("status", flat=True)) == {"done"}
        assert_agree(stored(), recomputed())
        # Bots are pseudo-players, one per kind and rule set.
        assert Rating.objects.get(rules_id="pirates", bot="random").games == 1
        assert Rating.objects.get(rules_id="pirates", bot="greedy").games == 1
        anne = played[0]
        assert Rating.objects.get(rules_id="pirates", user=anne).games == 4
        assert RatingChange.objects.filter(user=anne).count() == 4

    def test_running_the_side_effect_again_or_rebuilding_twice_counts_nothing_twice(
        self, played: list[User]
    ) -> None:
        before = snapshot()
        for game in Game.objects.all():
            assert tasks.update_ratings(game.pk) == 0
            assert ratings.update_for_game(game.pk) == 0
        # A given-up row put back (the repair path) runs again and changes nothing.
        Outbox.objects.filter(kind=Outbox.Kind.RATINGS).update(status="pending", attempts=0)
        relay_all()
        assert snapshot() == before
        call_command("rebuild_ratings")
        first = snapshot()
        call_command("rebuild_ratings", "pirates")
        assert snapshot() == first
        assert first["ratings"] == before["ratings"]
        assert sorted(x[:4] for x in first["changes"]) == sorted(x[:4] for x in before["changes"])

    def test_a_pending_earlier_game_is_applied_before_a_later_one(self, played: list[User]) -> None:
        expected = stored()
        games = list(Game.objects.order_by("finished_at", "pk"))
        # As if no rating update had run yet: the last game's task runs first.
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        RatedGame.objects.all().delete()
        assert tasks.update_ratings(games[-1].pk) == 5
        assert list(RatedGame.objects.order_by("rated_at", "pk").values_list("game_id", flat=True)) == [
            g.pk for g in games
        ]
        assert_agree(stored(), expected)
        for game in games:
            assert tasks.update_ratings(game.pk) == 0

    def test_a_game_that_turns_up_after_a_later_one_was_applied_is_put_in_its_place(
        self, played: list[User]
    ) -> None:
        expected = stored()
        first, *rest = list(Game.objects.order_by("finished_at", "pk"))
        RatingChange.objects.all().delete()
        Rating.objects.all().delete()
        RatedGame.objects.all().delete()
        # The later games were applied while the first one's transaction had not committed yet.
        for game in rest:
            ratings._apply(ratings.finished(game))
        assert Rating.objects.get(user=played[0]).games == 3
        assert ratings.update_for_game(first.pk) == 5  # the rule set is recomputed in order
        assert_agree(stored(), expected)
        assert RatedGame.objects.count() == 5

    def test_rebuild_refuses_an_unknown_rule_set_and_changes_nothing(self, played: list[User]) -> None:
        from django.core.management.base import CommandError

        before = snapshot()
        with pytest.raises(CommandError, match="Unknown rule set"):
            call_command("rebuild_ratings", "chess")
        assert snapshot() == before
