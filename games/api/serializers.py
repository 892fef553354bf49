"""Input and output shapes of the API. Inputs are strict: JSON types are not coerced, so
``"3"``, ``true`` or ``3.0`` are not a seq. Outputs describe the selectors' dicts for the schema."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import selectors
from games.models import Game, PlayerProfile, Seat
from games.services.lobby import BOT_KINDS, DEFAULT_BOT_KIND
from games.services.play import MAX_IDEMPOTENCY_KEY


class StrictIntegerField(serializers.IntegerField):
    """A JSON number without a fraction: no strings, booleans or floats."""

    default_error_messages = {"strict": "Must be a whole number (a JSON integer), not {kind}."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("strict", kind=type(data).__name__ if not isinstance(data, bool) else "a boolean")
        return int(super().to_internal_value(data))


class StrictCharField(serializers.CharField):
    """A JSON string: numbers are not turned into text."""

    default_error_messages = {"strict": "Must be a string."}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("strict")
        return str(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    default_error_messages = {"strict": "Must be true or false."}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("strict")
        return data


@extend_schema_field(OpenApiTypes.OBJECT)
class JSONObjectField(serializers.JSONField):
    """A JSON object (a dict); any other JSON value is refused."""

    default_error_messages = {"not_object": 'Must be a JSON object, such as {{"type": "pass"}}.'}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            self.fail("not_object")
        value = super().to_internal_value(data)
        assert isinstance(value, dict)
        return value


class RejectUnknownKeysMixin:
    """Unknown top-level keys are an error rather than silently ignored."""

    initial_data: Any
    fields: Any

    def validate_unknown(self) -> None:
        if isinstance(self.initial_data, dict):
            unknown = sorted(str(key) for key in set(self.initial_data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({key: ["Unknown field."] for key in unknown})


class StrictSerializer(RejectUnknownKeysMixin, serializers.Serializer[Any]):
    def validate(self, attrs: Any) -> Any:
        self.validate_unknown()
        return attrs


# ---- authentication ---------------------------------------------------------------------


class TokenInput(StrictSerializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})


class TokenOutput(serializers.Serializer[Any]):
    token = serializers.CharField()


class PingOutput(serializers.Serializer[Any]):
    ok = serializers.BooleanField()
    user = serializers.CharField()


# ---- errors -------------------------------------------------------------------------------


class ErrorOutput(serializers.Serializer[Any]):
    error = serializers.CharField(
        help_text="A stable code: invalid, malformed_json, stale_seq, illegal_action, …"
    )
    detail = serializers.CharField(help_text="A message for a person.")
    current_seq = serializers.IntegerField(required=False, help_text="With stale_seq: the game's latest seq.")


# ---- games --------------------------------------------------------------------------------


class SeatOutput(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    user = serializers.CharField(allow_null=True, help_text="The player's username.")
    name = serializers.CharField(allow_null=True, help_text="The name the player is shown by.")
    bot = serializers.CharField(allow_null=True)
    colour = serializers.CharField(allow_null=True)
    must_act = serializers.BooleanField()


class GameSummaryOutput(serializers.Serializer[Game]):
    """One line of a games list, from a ``Game`` with its seats prefetched."""

    id = serializers.IntegerField(source="pk")
    title = serializers.CharField(source="display_name")
    rules = serializers.CharField(source="rules_id")
    status = serializers.CharField()
    players = serializers.IntegerField()
    seats = serializers.SerializerMethodField()
    to_act = serializers.ListField(child=serializers.IntegerField())
    your_turn = serializers.SerializerMethodField()
    deadline = serializers.DateTimeField(allow_null=True)

    @extend_schema_field(SeatOutput(many=True))
    def get_seats(self, game: Game) -> list[dict[str, Any]]:
        return selectors.seats_summary(game)

    def get_your_turn(self, game: Game) -> bool:
        user: User | AnonymousUser | None = self.context.get("user")
        seat: Seat | None = selectors.user_seat(game, user)
        return bool(game.is_running and seat is not None and seat.must_act)


class GameListOutput(serializers.Serializer[Any]):
    mine = GameSummaryOutput(many=True, help_text="Your games, those waiting for your move first.")
    open = GameSummaryOutput(many=True, help_text="Public games waiting for players.")
    page = serializers.IntegerField(help_text="The page of your games this is, from 1.")
    next_page = serializers.IntegerField(
        allow_null=True, help_text="The next page of your games; null on the last."
    )


BOT_LEVELS_HELP = (
    "The level of the bots: strong (searches ahead, the default), greedy (the best move in sight) "
    "or random (any legal move)."
)


class GameCreateInput(StrictSerializer):
    rules = StrictCharField(max_length=32, default="pirates")
    players = StrictIntegerField(min_value=1, max_value=10)
    options = JSONObjectField(required=False, default=dict)
    title = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    move_hours = StrictIntegerField(min_value=1, max_value=14 * 24, required=False, default=48)
    timeout_policy = serializers.ChoiceField(
        choices=Game.TimeoutPolicy.values, default=Game.TimeoutPolicy.BOT
    )
    public = StrictBooleanField(required=False, default=True)
    bot_seats = StrictIntegerField(min_value=0, max_value=9, required=False, default=0)
    bot_kind = serializers.ChoiceField(
        choices=list(BOT_KINDS), required=False, default=DEFAULT_BOT_KIND, help_text=BOT_LEVELS_HELP
    )


class GameCreatedOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()


class MoveOutput(serializers.Serializer[Any]):
    number = serializers.IntegerField(help_text="The number the turn email gives this move (1..n).")
    group = serializers.CharField(help_text="The group the table and the email list it under.")
    # The metaclass takes declared fields off the class: this shadows no attribute of Field.
    label = serializers.CharField()  # type: ignore[assignment]
    preview = serializers.CharField(help_text="What the move will do, in the rule set's words.")
    action = serializers.JSONField(help_text="The action to send to actions/.")


class GameDetailOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    title = serializers.CharField()
    rules = serializers.CharField()
    rules_version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.values)
    players = serializers.IntegerField()
    is_public = serializers.BooleanField()
    fixed_deal = serializers.BooleanField(
        help_text="The creator fixed what the seed would draw: not a random shuffle."
    )
    fixed_deal_options = serializers.ListField(
        child=serializers.CharField(),
        help_text="Which options fixed the deal; the seed fingerprint proves nothing about them.",
    )
    options = serializers.JSONField(help_text="Options the rule set keeps secret show once the game is over.")
    created_by = serializers.CharField()
    seq = serializers.IntegerField()
    seats = SeatOutput(many=True)
    your_seat = serializers.IntegerField(allow_null=True)
    to_act = serializers.ListField(child=serializers.IntegerField())
    deadline = serializers.DateTimeField(allow_null=True)
    move_time_seconds = serializers.IntegerField()
    timeout_policy = serializers.CharField()
    view = serializers.JSONField(
        allow_null=True, help_text="rules.view for your seat, or a spectator's view."
    )
    legal_actions = serializers.ListField(child=serializers.JSONField(), help_text="Only when you must act.")
    moves = MoveOutput(
        many=True,
        help_text="Your legal actions numbered, grouped and worded as your turn email lists them, each "
        "with what it will do; only when you must act (empty for spectators and seats not to act).",
    )
    result = serializers.JSONField(allow_null=True)
    seed_sha256 = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Revealed once the game is over.")


class BotsInput(StrictSerializer):
    kind = serializers.ChoiceField(
        choices=list(BOT_KINDS), required=False, default=DEFAULT_BOT_KIND, help_text=BOT_LEVELS_HELP
    )


class BotsOutput(serializers.Serializer[Any]):
    added = serializers.IntegerField()
    game = GameDetailOutput()


# ---- the log ------------------------------------------------------------------------------


class ActionInput(StrictSerializer):
    action = JSONObjectField(help_text='An action in the rules\' notation, such as {"type": "pass"}.')
    expected_seq = StrictIntegerField(
        min_value=0, max_value=2**31 - 1, help_text="The seq of the last event you saw."
    )
    idempotency_key = StrictCharField(
        max_length=MAX_IDEMPOTENCY_KEY, required=False, allow_blank=True, default="", trim_whitespace=False
    )


class EventOutput(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    actor = serializers.CharField()
    action = serializers.JSONField(allow_null=True)
    text = serializers.CharField()
    created_at = serializers.DateTimeField()
    seed = serializers.CharField(
        required=False, allow_null=True, help_text="On game_started only: the seed, once the game is over."
    )


class ActionOutput(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    event = EventOutput()
    game = GameDetailOutput()


class QueryIntegerField(serializers.IntegerField):
    """A whole number from a query string, where ``?after=`` is an error rather than the default."""

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name in dictionary:
            return dictionary[self.field_name]
        return super().get_value(dictionary)


class EventsQuery(serializers.Serializer[Any]):
    after = QueryIntegerField(min_value=0, required=False, default=0, max_value=2**31 - 1)


class ReplayOutput(serializers.Serializer[Any]):
    seq = serializers.IntegerField()
    last_seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True, help_text="Whose view this is (null: a spectator's).")
    text = serializers.CharField()
    view = serializers.JSONField()


# ---- players and ratings ------------------------------------------------------------------


class PlayerRatingOutput(serializers.Serializer[Any]):
    rating = serializers.FloatField(help_text="The conservative estimate mu - 3 sigma (0 for a newcomer).")
    games = serializers.IntegerField(help_text="Games that counted towards it.")


class PlayedOutput(serializers.Serializer[Any]):
    games = serializers.IntegerField(help_text="Finished games you may see.")
    wins = serializers.IntegerField()


class PlayerGameOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    title = serializers.CharField()
    rules = serializers.CharField()
    status = serializers.CharField()
    is_public = serializers.BooleanField()
    finished_at = serializers.DateTimeField(allow_null=True)
    won = serializers.BooleanField(allow_null=True, help_text="Null while the game runs.")
    score = serializers.FloatField(allow_null=True)


class PlayerOutput(serializers.Serializer[Any]):
    username = serializers.CharField()
    display_name = serializers.CharField()
    ratings = serializers.DictField(child=PlayerRatingOutput(), help_text="By rule set id.")
    played = serializers.DictField(child=PlayedOutput(), help_text="By rule set id: games you may see.")
    history = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text="By rule set id: the rating before the first rated game (0) and after each.",
    )
    recent_games = PlayerGameOutput(many=True, help_text="Newest first; only games you may see.")


class LeaderboardEntryOutput(serializers.Serializer[Any]):
    username = serializers.CharField(help_text='A username, or "bot:<kind>" for a bot kind.')
    display_name = serializers.CharField()
    is_bot = serializers.BooleanField()
    rating = serializers.FloatField()
    games = serializers.IntegerField()


class LeaderboardOutput(serializers.Serializer[Any]):
    results = LeaderboardEntryOutput(many=True, help_text="Best first, at most 100.")
# ---- invitations, chat, take-back, resign --------------------------------------------------


class InvitationsInput(StrictSerializer):
    emails = serializers.ListField(
        child=StrictCharField(max_length=254, allow_blank=True),
        max_length=100,
        help_text="The addresses to invite (at most 10 at once); each address is invited to a game once.",
    )


class InvitationOutput(serializers.Serializer[Any]):
    email = serializers.CharField()
    invited_by = serializers.CharField(help_text="The inviter's username.")
    created_at = serializers.DateTimeField()
    accepted_by = serializers.CharField(allow_null=True, help_text="Who took the seat with it (a username).")
    accepted_at = serializers.DateTimeField(allow_null=True)


class ChatInput(StrictSerializer):
    text = StrictCharField(
        allow_blank=True, trim_whitespace=False, help_text="One line of table talk (at most 500 characters)."
    )


class ChatLineOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    user = serializers.CharField(help_text="The writer's username.")
    name = serializers.CharField(help_text="The name the writer is shown by.")
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class TakeBackInput(StrictSerializer):
    expected_seq = StrictIntegerField(
        min_value=0, max_value=2**31 - 1, help_text="The seq of your move, the game's latest event."
    )


# ---- the caller's account -----------------------------------------------------------------


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 date and time with its offset from UTC: a time without one is ambiguous."""

    default_error_messages = {
        "strict": "Must be a date and time as a string, such as 2026-11-30T18:00:00+01:00.",
        "naive": "Give the time with its offset from UTC, such as 2026-11-30T18:00:00+01:00.",
    }

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str):
            self.fail("strict")
        try:
            parsed = parse_datetime(value)
        except ValueError:
            parsed = None
        if parsed is None:
            self.fail("strict")
        assert parsed is not None
        if parsed.tzinfo is None or parsed.utcoffset() is None:
            self.fail("naive")
        return parsed


class MeOutput(serializers.Serializer[Any]):
    username = serializers.CharField()
    email = serializers.CharField(allow_blank=True)
    email_verified = serializers.BooleanField(help_text="Whether game email may go to that address.")
    display_name = serializers.CharField(allow_blank=True, help_text="Shown instead of the username if set.")
    timezone = serializers.CharField(help_text="An IANA time zone name, such as Europe/Paris.")
    notify = serializers.ChoiceField(choices=PlayerProfile.Notify.values, help_text="When turn emails go.")
    confirm_moves = serializers.BooleanField(help_text="The site asks once more before a move is sent.")
    away_until = serializers.DateTimeField(
        allow_null=True, help_text="Deadlines stretch until then (at most 14 days ahead)."
    )


class MePatchInput(StrictSerializer):
    display_name = StrictCharField(max_length=40, allow_blank=True, required=False)
    timezone = StrictCharField(max_length=64, required=False, help_text="An IANA time zone name.")
    notify = serializers.ChoiceField(choices=PlayerProfile.Notify.values, required=False)
    confirm_moves = StrictBooleanField(required=False)
    away_until = AwareDateTimeField(
        required=False, allow_null=True, help_text="With its UTC offset; null when you are around."
    )
