"""Crews: named groups of people who play together, their games and their standings.

A person joins a crew through an emailed invitation, with the address they verified. A
crew's games are the games made from its page ("new game for the crew": every member seated,
as a rematch) and the rematches of those games (rule: a game is the crew's when it was made
for the crew or is a rematch of a crew game). Standings per rule set come from the finished
games' results: games, wins, average place and head to head. Only games the viewer may see
count, so a private game neither shows nor counts for someone outside it.
"""

from __future__ import annotations

import math
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

import engine
from games import side_effects
from games.models import Crew, CrewGame, CrewInvitation, CrewMember, Game, Invitation, Seat, person_name
from games.services.accounts import normal_address, speaks_for
from games.services.errors import AddressNotVerified, Conflict, InvalidInput, NotFound, Throttled
from games.services.invitations import INVITATION_WINDOW, MAX_INVITES, parse_emails
from games.services.play import bot_levels

MAX_NAME = 60


def _checked_name(name: object) -> str:
    if not isinstance(name, str):
        raise InvalidInput("The crew's name must be text.")
    name = " ".join(name.split())
    if not name:
        raise InvalidInput("Give the crew a name.")
    if len(name) > MAX_NAME:
        raise InvalidInput(f"A crew's name must be at most {MAX_NAME} characters.")
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in name):
        raise InvalidInput("A crew's name may not contain control characters.")
    return name


def crew_create(*, by: User, name: object) -> Crew:
    """A new crew with its creator as its first member."""
    name = _checked_name(name)
    with transaction.atomic():
        crew = Crew.objects.create(name=name, created_by=by)
        CrewMember.objects.create(crew=crew, user=by)
    return crew


def crew_for(crew_id: object, user: Any) -> Crew:
    """The crew, for one of its members; anyone else is told there is no such crew."""
    if isinstance(crew_id, bool) or not isinstance(crew_id, int):
        raise NotFound("No such crew.")
    crew = Crew.objects.filter(pk=crew_id).first()
    if (
        crew is None
        or not getattr(user, "is_authenticated", False)
        or not (CrewMember.objects.filter(crew=crew, user=user).exists())
    ):
        raise NotFound(f"No crew with id {crew_id}.")
    return crew


def crews_of(user: User) -> QuerySet[Crew]:
    return Crew.objects.filter(members__user=user).order_by("name", "pk")


def members_of(crew: Crew) -> list[User]:
    return [m.user for m in CrewMember.objects.filter(crew=crew).select_related("user__profile")]


def crew_invite(*, crew_id: int, by: User, emails: list[str] | str) -> list[CrewInvitation]:
    """Invite ``emails`` into a crew: one CrewInvitation and one email each. The limits of game
    invitations hold (``MAX_INVITES`` at once, ``INVITATIONS_PER_DAY`` over game and crew
    invitations together); a request naming an address already invited or already a member's
    is refused whole."""
    addresses = (
        parse_emails(emails)
        if isinstance(emails, str)
        else parse_emails(",".join(e for e in emails if isinstance(e, str)))
    )
    if not isinstance(emails, str) and any(not isinstance(e, str) for e in emails):
        raise InvalidInput("Each address must be text.")
    if not addresses:
        raise InvalidInput("Give at least one email address.")
    if len(addresses) > MAX_INVITES:
        raise InvalidInput(f"Invite at most {MAX_INVITES} people at once.")
    for address in addresses:
        if len(address) > 254:
            raise InvalidInput("An email address is at most 254 characters.")
        try:
            validate_email(address)
        except ValidationError:
            raise InvalidInput(f"“{address}” is not an email address.") from None
    per_day: int = settings.INVITATIONS_PER_DAY
    with transaction.atomic():
        crew = Crew.objects.select_for_update().filter(pk=crew_id).first()
        if crew is None or not CrewMember.objects.filter(crew=crew, user=by).exists():
            raise NotFound(f"No crew with id {crew_id}.")
        invited = set(
            CrewInvitation.objects.filter(crew=crew, email__in=addresses).values_list("email", flat=True)
        )
        members = {normal_address(m.email) for m in members_of(crew)}
        already = sorted(invited | (members & set(addresses)))
        if already:
            raise Conflict(f"Already invited to or in this crew: {', '.join(already)}. Nothing was sent.")
        list(User.objects.select_for_update().filter(pk=by.pk).values_list("pk", flat=True))
        now = timezone.now()
        since = now - INVITATION_WINDOW
        sent = sorted(
            list(
                Invitation.objects.filter(invited_by=by, created_at__gt=since).values_list(
                    "created_at", flat=True
                )
            )
            + list(
                CrewInvitation.objects.filter(invited_by=by, created_at__gt=since).values_list(
                    "created_at", flat=True
                )
            )
        )
        over = len(sent) + len(addresses) - per_day
        if over > 0:
            if len(addresses) > per_day:
                raise InvalidInput(f"You can send at most {per_day} invitations a day.")
            wait = (sent[over - 1] + INVITATION_WINDOW - now).total_seconds()
            left = max(0, per_day - len(sent))
            raise Throttled(
                f"You can send {per_day} invitations a day and have {left} left for now.",
                wait=max(1, math.ceil(wait)),
            )
        invitations = [
            CrewInvitation.objects.create(
                crew=crew, email=address, token=secrets.token_urlsafe(24), invited_by=by
            )
            for address in addresses
        ]
        side_effects.after_crew_invitations([i.pk for i in invitations])
    return invitations


def crew_invitation_for(token: str) -> CrewInvitation:
    invitation = CrewInvitation.objects.select_related("crew", "invited_by").filter(token=token).first()
    if invitation is None:
        raise NotFound("This invitation link is not valid.")
    return invitation


def crew_invitation_accept(*, token: str, user: User) -> Crew:
    """Join a crew through its invitation, for the account that verified the invited address.
    Following one's own accepted link again is harmless."""
    with transaction.atomic():
        invitation = CrewInvitation.objects.select_for_update().filter(token=token).first()
        if invitation is None:
            raise NotFound("This invitation link is not valid.")
        if invitation.accepted_by_id is not None and invitation.accepted_by_id != user.pk:
            raise Conflict("This invitation has already been used by someone else.")
        if invitation.accepted_by_id is None and not speaks_for(user, invitation.email):
            raise AddressNotVerified(
                f"This invitation went to {invitation.email}, which is not your account's verified "
                "address. Log in with the account that verified it, or verify it on your profile first.",
                address=invitation.email,
            )
        CrewMember.objects.get_or_create(crew_id=invitation.crew_id, user=user)
        if invitation.accepted_by_id is None:
            invitation.accepted_by = user
            invitation.accepted_at = timezone.now()
            invitation.save(update_fields=["accepted_by", "accepted_at"])
        return invitation.crew


def crew_game_create(
    *,
    crew_id: int,
    by: User,
    rules_id: object,
    bot_seats: object = 0,
    is_public: bool = False,
) -> Game:
    """New game for the crew: every member seated (the creator first, the others in the
    order they joined), ``bot_seats`` bots after them, each member emailed as for a rematch."""
    from games.services.rematch import _seat_group

    if not isinstance(rules_id, str):
        raise InvalidInput('`rules` must be the id of a rule set, such as "pirates".')
    try:
        rules = engine.get_rules(rules_id)
    except engine.UnknownRules as exc:
        raise InvalidInput(str(exc)) from None
    if isinstance(bot_seats, bool) or not isinstance(bot_seats, int) or bot_seats < 0:
        raise InvalidInput("Bot seats must be a whole number, 0 or more.")
    with transaction.atomic():
        crew = Crew.objects.select_for_update().filter(pk=crew_id).first()
        if crew is None or not CrewMember.objects.filter(crew=crew, user=by).exists():
            raise NotFound(f"No crew with id {crew_id}.")
        people = [by] + [m for m in members_of(crew) if m.pk != by.pk]
        players = len(people) + bot_seats
        if not rules.min_players <= players <= rules.max_players:
            raise InvalidInput(
                f"{rules.title} takes {rules.min_players} to {rules.max_players} players; the crew has "
                f"{len(people)} member{'s' if len(people) != 1 else ''} and you asked for {bot_seats} bot"
                f"{'s' if bot_seats != 1 else ''}."
            )
        template = Game(
            rules_id=rules.id, players=players, options={}, title=crew.name, is_public=bool(is_public)
        )
        seats = [Seat(user_id=person.pk) for person in people] + [
            # The strongest level the rule set has, as a new game's default.
            Seat(user_id=None, bot=bot_levels(rules)[0]) for _ in range(bot_seats)
        ]
        game = _seat_group(creator=by, template=template, seats=seats, source=None)
        CrewGame.objects.create(crew=crew, game=game)
    return game


def crew_games(crew: Crew, viewer: Any) -> QuerySet[Game]:
    """The crew's games ``viewer`` may see, newest first."""
    games = Game.objects.filter(crew_game__crew=crew)
    if getattr(viewer, "is_authenticated", False):
        games = games.filter(Q(is_public=True) | Q(created_by=viewer) | Q(seats__user=viewer))
    else:
        games = games.filter(is_public=True)
    return games.distinct().order_by("-created_at", "-pk")


def places(result: dict[str, Any], players: int) -> list[int]:
    """Each seat's place (1 = won) from an engine result: the winners first, then by score."""
    scores = list(result.get("scores") or [0] * players)
    winners = set(result.get("winners") or [])
    out: list[int] = []
    for seat in range(players):
        if seat in winners:
            out.append(1)
            continue
        ahead = sum(
            1
            for other in range(players)
            if other != seat and (other in winners or scores[other] > scores[seat])
        )
        out.append(1 + ahead)
    return out


@dataclass
class Standing:
    name: str
    user_id: int
    games: int = 0
    wins: int = 0
    place_total: int = 0

    @property
    def average_place(self) -> float | None:
        return round(self.place_total / self.games, 2) if self.games else None


@dataclass
class RulesStandings:
    rules_id: str
    title: str
    games: int = 0
    rows: list[Standing] = field(default_factory=list)
    # head_to_head[a][b]: games in which a finished ahead of b, among games both played.
    head_to_head: dict[int, dict[int, int]] = field(default_factory=dict)
    together: dict[int, dict[int, int]] = field(default_factory=dict)
    # wins_over_time[user_id]: (n, wins so far) after each of the rule set's finished games,
    # n counting those games in the order they finished (the chart of standings over time).
    wins_over_time: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def matrix(self) -> list[dict[str, Any]]:
        """Head to head as rows of cells, for a table: "won/played" of each row's person
        against each column's, empty where they never played each other."""
        ids = [r.user_id for r in self.rows]
        return [
            {
                "name": r.name,
                "cells": [
                    ""
                    if a == b or not self.together[a][b]
                    else f"{self.head_to_head[a][b]}/{self.together[a][b]}"
                    for b in ids
                ],
            }
            for r in self.rows
            for a in [r.user_id]
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules_id,
            "title": self.title,
            "games": self.games,
            "players": [
                {
                    "user_id": r.user_id,
                    "name": r.name,
                    "games": r.games,
                    "wins": r.wins,
                    "average_place": r.average_place,
                }
                for r in self.rows
            ],
            "head_to_head": [
                {
                    "user_id": a,
                    "opponent_id": b,
                    "games": self.together[a][b],
                    "ahead": self.head_to_head[a][b],
                }
                for a in self.head_to_head
                for b in self.head_to_head[a]
                if self.together[a][b]
            ],
        }


def crew_standings(crew: Crew, viewer: Any) -> list[RulesStandings]:
    """Standings per rule set over the crew's finished games ``viewer`` may see, for its
    current members: games played, wins, average place, and head to head."""
    members = members_of(crew)
    names = {m.pk: person_name(m) for m in members}
    finished = crew_games(crew, viewer).filter(status=Game.Status.FINISHED).exclude(result=None)
    seats = Seat.objects.filter(game__in=finished, user_id__in=list(names)).values_list(
        "game_id", "position", "user_id"
    )
    seated: dict[int, dict[int, int]] = {}
    for game_id, position, user_id in seats:
        seated.setdefault(game_id, {})[user_id] = position
    by_rules: dict[str, RulesStandings] = {}
    for game in finished.order_by("finished_at", "pk"):
        table = by_rules.get(game.rules_id)
        if table is None:
            table = RulesStandings(rules_id=game.rules_id, title=game.rules_title)
            table.rows = [Standing(name=names[m.pk], user_id=m.pk) for m in members]
            table.head_to_head = {a: {b: 0 for b in names if b != a} for a in names}
            table.together = {a: {b: 0 for b in names if b != a} for a in names}
            by_rules[game.rules_id] = table
        table.games += 1
        game_places = places(game.result or {}, game.players)
        in_game = seated.get(game.pk, {})
        for row in table.rows:
            if row.user_id in in_game:
                place = game_places[in_game[row.user_id]]
                row.games += 1
                row.wins += place == 1
                row.place_total += place
        for a, pa in in_game.items():
            for b, pb in in_game.items():
                if a != b:
                    table.together[a][b] += 1
                    table.head_to_head[a][b] += game_places[pa] < game_places[pb]
        for row in table.rows:
            table.wins_over_time.setdefault(row.user_id, []).append((table.games, row.wins))
    for table in by_rules.values():
        table.rows.sort(key=lambda r: (-r.wins, r.average_place or 99, r.name))
    return sorted(by_rules.values(), key=lambda t: t.title)
