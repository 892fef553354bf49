"""Games, seats, the append-only event log and snapshots.

The event log is the truth: a game's state is what the rules engine computes by replaying its
events. Everything else on ``Game`` and ``Seat`` (status, seats to act, deadline) is a read
column kept up to date by ``games.services`` in the same transaction as the event it follows.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from typing import Any, ClassVar

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.seat_names import UNRECORDED_BOT, Sitter, bot_name, seat_names


class AppendOnlyError(Exception):
    """Events are never updated or deleted."""


def person_name(user: Any) -> str:
    """The name a person is shown by everywhere (table, log, emails, lobby): their display name,
    else their username. Usernames are for logging in; players chose their display name to be
    seen by. Reads ``user.profile`` (load it with the user where many are shown)."""
    if user is None:
        return ""
    try:
        profile = user.profile
    except ObjectDoesNotExist:
        profile = None
    name = getattr(profile, "display_name", "") if profile is not None else ""
    return str(name or user.get_username())


class Game(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby", "Waiting for players"
        ACTIVE = "active", "Running"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    class TimeoutPolicy(models.TextChoices):
        BOT = "bot", "A bot moves for the late player"
        PASS = "pass", "The late player passes where passing is legal, otherwise a bot moves"
        NONE = "none", "No timeouts: only reminders"

    rules_id = models.CharField(max_length=32)
    rules_version = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=100, blank=True)
    players = models.PositiveSmallIntegerField()
    options = models.JSONField(default=dict, blank=True)
    fixed_deal = models.BooleanField(default=False, help_text="The deck or first seat was fixed at creation.")
    is_public = models.BooleanField(default=True)
    # Start as soon as the last seat is taken, instead of waiting for the creator.
    auto_start = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)

    # The seed predicts the deck: secret until the game ends. Its SHA-256 is public from the start.
    seed = models.CharField(max_length=64, blank=True)
    seed_sha256 = models.CharField(max_length=64, blank=True)

    seq = models.PositiveIntegerField(default=0)
    # The hash of event ``seq`` (engine/chain.py), written with ``seq``: it names the game's
    # whole history, so a cached state is used only if it was built for this head.
    head = models.CharField(max_length=64, blank=True, default="")
    to_act = models.JSONField(default=list, blank=True)
    result = models.JSONField(null=True, blank=True)

    move_time = models.DurationField(default=timedelta(hours=48))
    reminder_before = models.DurationField(default=timedelta(hours=12))
    timeout_policy = models.CharField(max_length=8, choices=TimeoutPolicy.choices, default=TimeoutPolicy.BOT)
    deadline = models.DateTimeField(null=True, blank=True)
    reminder_at = models.DateTimeField(null=True, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            # The sweep: turns past their deadline or reminder time, among running games only.
            models.Index(fields=["deadline"], name="game_deadline_due", condition=Q(status="active")),
            models.Index(fields=["reminder_at"], name="game_reminder_due", condition=Q(status="active")),
            models.Index(fields=["status", "is_public", "-created_at"], name="game_status_public"),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        return self.title or f"Game #{self.pk}"

    @property
    def rules_title(self) -> str:
        """The name of the game this is a game of ("Pirates (2021)")."""
        import engine

        try:
            return engine.get_rules(self.rules_id, self.rules_version).title
        except engine.UnknownRules:
            return self.rules_id

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)


class Seat(models.Model):
    class BotKind(models.TextChoices):
        NONE = "", "Person"
        RANDOM = "random", "Random bot"
        GREEDY = "greedy", "Greedy bot"
        STRONG = "strong", "Strong bot"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(
        help_text="The engine's seat number once the game has started."
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot = models.CharField(max_length=8, choices=BotKind.choices, blank=True, default="")
    colour = models.CharField(max_length=12, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    must_act = models.BooleanField(default=False)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    replaced_by_bot = models.BooleanField(default=False, help_text="Handed to a bot after repeated timeouts.")
    # When the player last had the table open (the live polling records it): turn emails go
    # only to players who are away from the table, if they chose so.
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "position"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_unique_position"),
            models.UniqueConstraint(
                fields=["game", "user"], name="seat_unique_user", condition=Q(user__isnull=False)
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            # "Games waiting for user X": the lobby's first query.
            models.Index(fields=["user", "must_act"], name="seat_user_must_act"),
            # The repair sweep: the seats to act now, about one per running game.
            models.Index(fields=["game"], name="seat_to_act", condition=Q(must_act=True)),
            # A player's games (the lobby, the API's list) from the index alone: a busy
            # player's seats lie all over the table (selectors.games_for_user).
            models.Index(fields=["user"], include=["game", "must_act"], name="seat_user_games"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.position} {self.label}"

    @property
    def plays_as_bot(self) -> bool:
        """A bot seat, or a person's seat handed to a bot after repeated timeouts."""
        return self.user_id is None or self.replaced_by_bot

    @property
    def sitter(self) -> Sitter:
        """Who holds the seat, as ``games.seat_names`` names it."""
        person = person_name(self.user) if self.user is not None else None
        return Sitter(self.position, person, (self.bot or UNRECORDED_BOT) if self.plays_as_bot else None)

    @property
    def label(self) -> str:
        """This seat's name on its own; ``seat_labels`` numbers bots of one level at a table."""
        person = person_name(self.user) if self.user is not None else None
        if person is not None:
            return person + (" (bot)" if self.replaced_by_bot else "")
        return bot_name(self.bot)


def seat_labels(seats: Iterable[Seat]) -> dict[int, str]:
    """The names of one game's seats by position: bots of one level numbered ("Strong bot 1")."""
    return seat_names(seat.sitter for seat in seats)


class EventQuerySet(models.QuerySet["Event"]):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError("Events are append-only: they are never updated.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Events are append-only: they are never deleted.")


class Event(models.Model):
    class Kind(models.TextChoices):
        GAME_STARTED = "game_started", "Game started"
        ACTION = "action", "A player's action"
        AUTO_PASS = "auto_pass", "A pass the service made for a seat with no other legal action"
        BOT = "bot", "A bot seat's action"
        TIMEOUT = "timeout", "The system acted for a seat past its deadline"
        SEAT_TO_BOT = "seat_to_bot", "A seat was handed to a bot"
        # The player took back their last move (payload ``takes_back``: its seq); the state
        # after it is the state before that move, and replays skip the move.
        TAKE_BACK = "take_back", "A player took back their last move"

    # Kinds whose payload carries an action the engine applies.
    ENGINE_KINDS: ClassVar[frozenset[str]] = frozenset({"action", "auto_pass", "bot", "timeout"})

    # No index of its own: event_unique_seq (game, seq) serves every lookup by game, and a
    # second index on the largest table costs every append and its disk.
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    seat = models.SmallIntegerField(null=True, blank=True)
    payload = models.JSONField(default=dict)
    actor = models.CharField(max_length=64, help_text='"user:<id>", "bot:greedy", "system:timeout", …')
    idempotency_key = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # SHA-256 over the previous event's hash and this event's seq, kind, seat, payload and
    # actor (engine/chain.py): the log is tamper-evident, and replay_check verifies it.
    hash = models.CharField(max_length=64)

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "seq"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq"),
            # Per player: a key one player used does not stop another player's move.
            models.UniqueConstraint(
                fields=["game", "actor", "idempotency_key"],
                name="event_unique_actor_idempotency_key",
                condition=~Q(idempotency_key=""),
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="event_seq_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.seq} {self.kind}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("Events are append-only: they are never updated.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError("Events are append-only: they are never deleted.")

    @property
    def action(self) -> dict[str, Any] | None:
        action = self.payload.get("action") if self.kind in self.ENGINE_KINDS else None
        return action if isinstance(action, dict) else None


class Snapshot(models.Model):
    """A shortcut for rebuilding state: the engine's dump after event ``seq``. Never the truth."""

    # snapshot_unique_seq (game, seq) serves every lookup by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False)
    seq = models.PositiveIntegerField()
    rules_version = models.PositiveSmallIntegerField()
    state = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "seq"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "seq"], name="snapshot_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}@{self.seq}"


class PlayerProfile(models.Model):
    """A player's preferences: how often to be emailed, their timezone, and time away."""

    class Notify(models.TextChoices):
        EACH_TURN = "each_turn", "An email for each turn"
        WHEN_AWAY = "when_away", "An email for each turn, only when I am not at the table"
        DAILY_DIGEST = "daily_digest", "One daily digest"
        NONE = "none", "No turn emails"

    # The preferences that get an email per turn (games/presence.py has the rule).
    PER_TURN = (Notify.EACH_TURN, Notify.WHEN_AWAY)

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=40, blank=True)
    # By default a turn email only when the player is not at the table already.
    notify = models.CharField(max_length=16, choices=Notify.choices, default=Notify.WHEN_AWAY)
    timezone = models.CharField(max_length=64, default="UTC")
    # Ask "are you sure?" with a preview before a move is sent.
    confirm_moves = models.BooleanField(default=True)
    away_until = models.DateTimeField(
        null=True, blank=True, help_text="Deadlines stretch until then (14 days at most)."
    )
    # Ratings count public games only; with this on, the player's private games count too
    # (and so show in their public rating). games/ratings.py.
    rate_private_games = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"profile of {self.user_id}"

    @classmethod
    def per_turn(cls, profile: PlayerProfile | None) -> bool:
        """Whether the person with ``profile`` may get an email per turn (no profile row: the
        default, which is one); ``emailed_per_turn`` is the same test as a filter."""
        return profile is None or profile.notify in cls.PER_TURN

    @classmethod
    def emailed_per_turn(cls, profile: str) -> Q:
        """A filter on the rows whose person, through the relation ``profile``, may get an
        email per turn: a per-turn preference, or no profile row (the default is one)."""
        return Q(**{f"{profile}__isnull": True}) | Q(**{f"{profile}__notify__in": cls.PER_TURN})


def loaded_with(user: Any, accessor: str) -> tuple[bool, Any]:
    """(True, the row or None) when ``user``'s one-to-one row ``accessor`` (``profile``,
    ``verified_address``) was read with it (``select_related``, or ``games.rows``), else
    (False, None): the caller queries it. Lets the email tasks read a person's profile and
    address with the seats they act in, instead of once per use."""
    related = getattr(user._meta.model, accessor).related  # user may be a lazy request.user
    if related.is_cached(user):
        return True, related.get_cached_value(user)
    return False, None


class VerifiedAddress(models.Model):
    """The address an account proved it reads (its owner followed a link sent there),
    lowercased; no row until then. Mail goes only here and replies count only from here,
    whatever ``User.email`` says: a changed address takes over once it is verified
    (games.services.accounts)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="verified_address"
    )
    address = models.CharField(max_length=254, db_index=True)
    verified_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"verified address of {self.user_id}"


class Invitation(models.Model):
    """An emailed invitation to a seat; its link works for people without an account yet."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    token = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"invitation to {self.game_id} for {self.email}"


class Notification(models.Model):
    """One email sent (or being sent) to one user: the record that makes sending idempotent.

    A row is created before the email goes out; ``sent_at`` is set once the mail server took
    it. The unique key means a retried or duplicated task finds the row and sends nothing twice.
    ``claimed_at`` marks a sender talking to the mail server right now (no lock is held while
    it does): others leave the row alone for ``EMAIL_CLAIM_SECONDS``, after which the claim of
    a sender that died mid-send is taken over (``games.emails.sending``).
    """

    class Kind(models.TextChoices):
        INVITATION = "invitation", "Invitation"
        TURN = "turn", "Your turn"
        REMINDER = "reminder", "Reminder"
        TIMEOUT = "timeout", "Timeout"
        SEAT_TO_BOT = "seat_to_bot", "Seat handed to a bot"
        GAME_OVER = "game_over", "Game over"
        DIGEST = "digest", "Daily digest"
        SEATS_FILLED = "seats_filled", "Every seat is taken"
        ANSWER = "answer", "Answer to an emailed reply"
        REMATCH = "rematch", "A seat in a rematch or a crew's game"
        CREW_INVITATION = "crew_invite", "Invitation to a crew"
        WEBHOOK_DISABLED = "webhook_off", "A webhook was disabled"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # What the email is about: the game's seq for game emails, YYYYMMDD for a digest, the
    # answered message's digest for an answer to a reply.
    key = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "game", "kind", "key"], name="notification_once"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["kind", "sent_at"], name="notification_kind_sent"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id} for {self.game_id}:{self.key}"


class ListedMoves(models.Model):
    """The moves an email listed for a seat at a seq, numbered and grouped as it listed them.

    Written by the first email that lists them (a turn email, an answer to a reply) and read
    by every later one for the same position, and by a reply to any of them: a reply's
    address names the game, the seat and the seq, so "2" means the move these emails showed
    as 2, whatever a later deploy does to the table's grouping. A JSON list of groups, each
    ``{"label", "hint", "moves": [{"number", "label", "action"}]}``
    (``games.read.table.MoveList.to_json``).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField()
    seq = models.PositiveIntegerField()
    moves = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "position", "seq"], name="listed_moves_once"),
        ]

    def __str__(self) -> str:
        return f"moves listed for {self.game_id}:{self.position}@{self.seq}"


class ChatMessage(models.Model):
    """Table talk: one line a player wrote in a game's chat. Not part of the game's log (it
    changes nothing in the game), so it is not hash-chained and replays ignore it."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "created_at", "id"]
        indexes: ClassVar[list[models.Index]] = [models.Index(fields=["game", "id"], name="chat_game_id")]

    def __str__(self) -> str:
        return f"chat {self.game_id}:{self.pk}"
class Outbox(models.Model):
    """A side effect a committed change owes: written in the change's own transaction, so
    "committed" and "will happen" are one fact (a transactional outbox).

    ``games.outbox.relay`` publishes pending rows that are due as Celery tasks and moves their
    ``due_at`` one lease ahead; the task marks its row done once it has finished. A row whose
    task never finished (a killed worker, a lost message) is due again when the lease runs out
    and is published again: tasks are idempotent (games check their seq, emails keep
    ``Notification`` rows), so a second run is harmless.
    """

    class Kind(models.TextChoices):
        BOT_MOVE = "bot_move", "Bot move"
        TURN = "turn", "Your-turn emails"
        REMINDER = "reminder", "Reminders"
        TIMEOUT = "timeout", "Timeout emails"
        SEAT_TO_BOT = "seat_to_bot", "Seat-to-bot emails"
        GAME_OVER = "game_over", "Game-over emails"
        INVITATION = "invitation", "Invitation email"
        ANSWER = "answer", "Answer to an emailed reply"
        SEATS_FILLED = "seats_filled", "Every-seat-taken email"
        DIGEST = "digest", "Daily digest"
        RATINGS = "ratings", "Rating update"
        RATINGS_REBUILD = "ratings_rebuild", "Ratings recomputed"
        REMATCH = "rematch", "Seat-in-a-rematch emails"
        CREW_INVITATION = "crew_invite", "Crew invitation email"
        WEBHOOK = "webhook", "Webhook deliveries of a position"
        WEBHOOK_CHAT = "webhook_chat", "Webhook deliveries of a chat line"
        WEBHOOK_DISABLED = "webhook_off", "Disabled-webhook email"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DONE = "done", "Done"
        FAILED = "failed", "Given up"

    # No index of its own: the unique ``outbox_once`` starts with it (one index less to
    # write on every move).
    # None for what belongs to no game (a daily digest).
    game = models.ForeignKey(Game, null=True, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # What the effect is about: the seq of the event it follows (game emails and bot moves),
    # the game's final seq (game over), the invitation's id, the last seat taken (seats
    # filled), the answered message's digest (its first 60 bits) or, for a digest, the user
    # and the day (user id x 10^8 + YYYYMMDD). One row per (game, kind, key).
    key = models.PositiveBigIntegerField()
    # What the task needs beyond the key (an answer to a reply, a digest's user and day).
    payload = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    # When the relay publishes it next: at first the time it is due, then one lease later.
    due_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How often it was published.")
    created_at = models.DateTimeField()
    published_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "kind", "key"], name="outbox_once"),
            # NULLs are distinct in a unique index: rows of no game need one of their own.
            models.UniqueConstraint(
                fields=["kind", "key"], name="outbox_once_without_game", condition=Q(game__isnull=True)
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            # The relay: pending rows by due time (done rows leave the index).
            models.Index(fields=["due_at"], name="outbox_due", condition=Q(status="pending")),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.game_id}:{self.key} {self.status}"


class Rating(models.Model):
    """A participant's current rating in one rule set (games/ratings.py): a person, or a bot
    kind as one pseudo-player ("random", "greedy"). OpenSkill's Weng-Lin Plackett-Luce
    ``mu`` and ``sigma``; what pages show is the conservative ``mu - 3 sigma``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="ratings"
    )
    bot = models.CharField(max_length=8, blank=True, default="")
    rules_id = models.CharField(max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma, kept for ordering leaderboards by an index.
    shown = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["rules_id", "user"], name="rating_once_per_user", condition=Q(user__isnull=False)
            ),
            models.UniqueConstraint(
                fields=["rules_id", "bot"], name="rating_once_per_bot", condition=~Q(bot="")
            ),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot="")) | (Q(user__isnull=True) & ~Q(bot="")),
                name="rating_user_or_bot",
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["rules_id", "-shown"], name="rating_leaderboard"),
        ]

    def __str__(self) -> str:
        return f"rating {self.rules_id} {self.user_id or self.bot}"


class RatedGame(models.Model):
    """A finished game whose rating update has been applied (it may have changed nothing: a
    private game nobody counts). Ratings are applied in order of (finished_at, game id)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    rules_id = models.CharField(max_length=32)
    finished_at = models.DateTimeField()
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["rules_id", "finished_at", "game"], name="rated_game_order"),
        ]

    def __str__(self) -> str:
        return f"rated {self.game_id}"


class RatingChange(models.Model):
    """What one finished game did to one participant's rating: one row per (game, participant),
    so applying a game again counts nothing twice."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    bot = models.CharField(max_length=8, blank=True, default="")
    rules_id = models.CharField(max_length=32)
    # The game's final seq and finish time (the order ratings are applied in).
    seq = models.PositiveIntegerField()
    finished_at = models.DateTimeField()
    rank = models.PositiveSmallIntegerField(help_text="1 is first; equal ranks tied.")
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        ordering: ClassVar[list[str]] = ["finished_at", "game_id"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["game", "user"], name="rating_change_once_per_user", condition=Q(user__isnull=False)
            ),
            models.UniqueConstraint(
                fields=["game", "bot"], name="rating_change_once_per_bot", condition=~Q(bot="")
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "rules_id", "finished_at"], name="rating_change_history"),
        ]

    def __str__(self) -> str:
        return f"rating change {self.game_id} {self.user_id or self.bot}"
# Rematches and crews: the same friends, game after game. A *call* (``Rematch``) is a game in
# the lobby that seats a known group at once, each person answering "I'm in" or "Not this
# time": a rematch of a finished game (``source``), or a crew's new game (``crew``). A *crew*
# is a named group of people; a game made from a crew, and a rematch of a crew's game, belong
# to that crew (``CrewGame``).


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
class Webhook(models.Model):
    """Where a game's news goes besides email: a URL that is POSTed a short message (Discord,
    Slack) or a signed JSON document for each event it asked for (games/webhooks.py).

    Owned by a game or by a crew (exactly one is set): a crew's hook hears every game of the
    crew (a ``CrewGame`` row links them), its deliveries keyed by game ("g42:move:12").
    ``secret`` signs the JSON bodies and is shown once, when the hook is made. After
    ``WEBHOOK_DISABLE_AFTER`` failed attempts in a row the hook is disabled and its creator
    emailed; a success in between starts the count again."""

    class Format(models.TextChoices):
        DISCORD = "discord", "Discord"
        SLACK = "slack", "Slack"
        JSON = "json", "Signed JSON"

    EVENTS: ClassVar[tuple[str, ...]] = ("turn", "move", "game_started", "game_finished", "chat")

    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    crew = models.ForeignKey(Crew, null=True, blank=True, on_delete=models.CASCADE, related_name="webhooks")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=500)
    format = models.CharField(max_length=8, choices=Format.choices)
    events = models.JSONField(default=list)
    # Display name -> chat handle, for mentions in a turn notice ("<@123>" on Discord).
    mentions = models.JSONField(default=dict, blank=True)
    secret = models.CharField(max_length=64)
    failures = models.PositiveIntegerField(default=0, help_text="Failed attempts in a row.")
    last_error = models.CharField(max_length=200, blank=True, default="")
    disabled_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            # Every settled move asks whether its game has a live hook.
            models.Index(fields=["game"], name="webhook_live", condition=Q(disabled_at__isnull=True)),
            models.Index(fields=["crew"], name="webhook_crew_live", condition=Q(disabled_at__isnull=True)),
        ]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=Q(game__isnull=False, crew__isnull=True) | Q(game__isnull=True, crew__isnull=False),
                name="webhook_one_owner",
            ),
        ]

    def __str__(self) -> str:
        owner = f"game {self.game_id}" if self.game_id is not None else f"crew {self.crew_id}"
        return f"webhook {self.pk} of {owner}"

    @classmethod
    def live_for(cls, game_id: int) -> models.QuerySet[Webhook]:
        """The live hooks that hear game ``game_id``: its own and its crews', in one query."""
        crews = CrewGame.objects.filter(game_id=game_id).values("crew_id")
        return cls.objects.filter(Q(game_id=game_id) | Q(crew_id__in=crews), disabled_at__isnull=True)

    def event_key(self, game_id: int, key: str) -> str:
        """The delivery key of notice ``key`` of game ``game_id`` for this hook: a crew's hook
        hears several games, so its keys name the game ("g42:move:12")."""
        return key if self.crew_id is None else f"g{game_id}:{key}"


class WebhookDelivery(models.Model):
    """One event owed to one hook: its ``delivery_id`` (the ``X-Pirates-Delivery`` header and
    the JSON body's ``delivery_id``) stays the same on every retry, so receivers can drop a
    repeat, and a delivered event is never sent again."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Given up"

    hook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # "move:12", "turn:12", "game_started:1", "game_finished:80", "chat:<message id>"; a crew's
    # hook hears several games, so its keys name the game first: "g42:move:12".
    event_key = models.CharField(max_length=40)
    delivery_id = models.UUIDField(unique=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["hook", "event_key"], name="webhook_delivery_once"),
        ]

    def __str__(self) -> str:
        return f"{self.event_key} to hook {self.hook_id} {self.status}"
