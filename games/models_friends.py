"""Rematches and crews: the same friends, game after game.

A *call* (``Rematch``) is a game in the lobby that seats a known group at once, each person
answering "I'm in" or "Not this time": a rematch of a finished game (``source``), or a crew's
new game (``crew``). A *crew* is a named group of people; a game made from a crew, and a
rematch of a crew's game, belong to that crew (``CrewGame``).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models

from games.models import Game


class Crew(models.Model):
    """A named group of people who play together; each joined with a verified address."""

    name = models.CharField(max_length=60)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class CrewMember(models.Model):
    crew = models.ForeignKey(Crew, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="crew_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["crew", "joined_at", "id"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["crew", "user"], name="crew_member_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in crew {self.crew_id}"


class CrewInvitation(models.Model):
    """An emailed invitation to join a crew; taken by the account that verified the address."""

    crew = models.ForeignKey(Crew, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    token = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["crew", "email"], name="crew_invitation_once"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            # The daily cap on invitations counts an inviter's recent ones.
            models.Index(fields=["invited_by", "created_at"], name="crew_invitation_by"),
        ]

    def __str__(self) -> str:
        return f"invitation to crew {self.crew_id} for {self.email}"


class CrewGame(models.Model):
    """A game of a crew: made from the crew's page, or a rematch of one of its games."""

    crew = models.ForeignKey(Crew, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="crew_game")

    def __str__(self) -> str:
        return f"game {self.game_id} of crew {self.crew_id}"


class Rematch(models.Model):
    """A game in the lobby that seated a group at once (``game``): the rematch of ``source``,
    or a crew's new game (``source`` empty). Each finished game is offered once: ``source`` is
    unique."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="call")
    source = models.OneToOneField(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="rematch"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"call {self.game_id} (rematch of {self.source_id})"


class RematchReply(models.Model):
    """One seated person's answer to a call: waiting until they say "I'm in" or "Not this
    time" (which frees their seat)."""

    class Answer(models.TextChoices):
        WAITING = "waiting", "Not answered yet"
        IN = "in", "I'm in"
        OUT = "out", "Not this time"

    rematch = models.ForeignKey(Rematch, on_delete=models.CASCADE, related_name="replies")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answer = models.CharField(max_length=8, choices=Answer.choices, default=Answer.WAITING)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["rematch", "id"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["rematch", "user"], name="rematch_reply_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.answer} for {self.rematch_id}"
