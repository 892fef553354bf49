"""Web forms: sign-up, log-in links, profile and new games. Services do the real checking."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm

import engine
from games import safejson
from games.models import Game, PlayerProfile, Seat
from games.services.accounts import timezone_names
from games.services.lobby import BOT_KINDS, DEFAULT_BOT_KIND, MAX_OPTIONS_BYTES

User = get_user_model()


class SignupForm(UserCreationForm):
    display_name = forms.CharField(
        max_length=40, required=False, help_text="How other players see you; your user name if left empty."
    )
    email = forms.EmailField(help_text="For turn emails, invitations and password resets.")
    # Filled in by static/js/timezone.js from the browser's own zone; UTC without it.
    timezone = forms.CharField(required=False, widget=forms.HiddenInput(attrs={"data-guess-timezone": "1"}))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "display_name", "email")

    def clean_email(self) -> str:
        # A taken address is not refused: that answer would tell anyone which addresses have an
        # account (the log-in-link and reset pages do not either). An address may serve several
        # accounts; log-in links and resets go to each of them.
        return str(self.cleaned_data["email"]).strip()

    def clean_timezone(self) -> str:
        zone = (self.cleaned_data.get("timezone") or "").strip()
        return zone if zone in timezone_names() else "UTC"


class LoginLinkForm(forms.Form):
    email = forms.EmailField(help_text="We email a link that logs you in with one click.")


# The zones most players pick, offered first (the full list of ~600 follows them).
COMMON_TIMEZONES = (
    "UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome",
    "Europe/Amsterdam", "Europe/Stockholm", "Europe/Warsaw", "Europe/Athens", "Europe/Moscow",
    "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
    "America/Toronto", "America/Mexico_City", "America/Sao_Paulo", "America/Buenos_Aires",
    "Africa/Johannesburg", "Africa/Lagos", "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore",
    "Asia/Shanghai", "Asia/Tokyo", "Asia/Seoul", "Australia/Sydney", "Australia/Perth",
    "Pacific/Auckland",
)


def timezone_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    names = timezone_names()
    common = [(name, name.replace("_", " ")) for name in COMMON_TIMEZONES if name in names]
    return [
        ("Common time zones", common),
        ("All time zones", [(name, name.replace("_", " ")) for name in names]),
    ]


class ProfileForm(forms.Form):
    # Left out or empty: the address stays as it is.
    email = forms.EmailField(
        max_length=254, required=False, label="Email address",
        help_text="A new address gets a link to verify it; your email goes to the verified one until then.",
    )
    display_name = forms.CharField(max_length=40, required=False)
    notify = forms.ChoiceField(choices=PlayerProfile.Notify.choices, label="Turn emails")
    confirm_moves = forms.BooleanField(
        required=False, label="Ask me to confirm each move",
        help_text="Shows what a move will do and asks once more before it is sent.",
    )
    timezone = forms.ChoiceField(choices=(), label="Time zone")
    away_until = forms.DateTimeField(
        required=False,
        label="Away until",
        help_text="Your deadlines stretch until then (at most 14 days ahead). "
        "Leave empty when you're around.",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
    )
    rate_private_games = forms.BooleanField(
        required=False, label="Count my private games in my rating",
        help_text="Ratings and leaderboards count public games only; with this on, your private "
        "games count too (your rating is public).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["timezone"].choices = timezone_choices()  # type: ignore[attr-defined]


MOVE_TIME_CHOICES = [
    ("1h", "1 hour"),
    ("6h", "6 hours"),
    ("12h", "12 hours"),
    ("24h", "1 day"),
    ("48h", "2 days"),
    ("72h", "3 days"),
    ("168h", "1 week"),
    ("336h", "2 weeks"),
]


class GameCreateForm(forms.Form):
    title = forms.CharField(max_length=100, required=False, label="Name (optional)")
    rules = forms.ChoiceField(label="Game", choices=(), initial=settings.DEFAULT_RULES)
    players = forms.TypedChoiceField(coerce=int, choices=(), initial=3)
    bot_seats = forms.TypedChoiceField(
        coerce=int,
        choices=(),
        initial=0,
        label="Bot seats",
        help_text="Seats played by the computer; the rest are for people.",
    )
    bot_kind = forms.ChoiceField(
        choices=[(kind, Seat.BotKind(kind).label) for kind in BOT_KINDS],
        initial=DEFAULT_BOT_KIND,
        label="Bot level",
        help_text="Strong searches ahead; greedy takes the best move in sight; random plays any move.",
    )
    move_time = forms.ChoiceField(choices=MOVE_TIME_CHOICES, initial="48h", label="Time per move")
    timeout_policy = forms.ChoiceField(
        choices=Game.TimeoutPolicy.choices, label="When a player runs out of time"
    )
    # A game you invite friends to is private unless you say otherwise.
    visibility = forms.ChoiceField(
        choices=[
            ("auto", "Private if I invite people, otherwise public"),
            ("private", "Private: only the people I invite"),
            ("public", "Public: anyone can see and join it"),
        ],
        initial="auto",
        required=False,
        label="Who can see and join",
    )
    auto_start = forms.BooleanField(
        required=False, label="Start as soon as every seat is taken",
        help_text="Otherwise you start it yourself; either way we email you when the last seat fills.",
    )
    options = forms.CharField(
        required=False,
        max_length=MAX_OPTIONS_BYTES,
        label="Options (advanced)",
        help_text="A JSON object the rule set understands, such as a custom card set. Options that "
        "fix the deal (a deck order, the first seat) are for private games only.",
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false", "placeholder": "{}"}),
    )
    invite = forms.CharField(
        required=False,
        label="Invite friends by email",
        help_text="Comma-separated addresses; each gets a link to take a seat.",
        widget=forms.TextInput(
            attrs={"placeholder": "anne@example.com, bob@example.com", "inputmode": "email"}
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Every count some rule set takes; the service checks the chosen game's own range.
        games = [engine.get_rules(rules_id) for rules_id, _title in engine.available_rules()]
        counts = sorted({n for rules in games for n in rules.player_counts})
        self.fields["rules"].choices = [  # type: ignore[attr-defined]
            (rules.id, f"{rules.title} ({rules.player_counts[0]}–{rules.player_counts[-1]} players)")
            for rules in games
        ]
        self.fields["players"].choices = [(n, str(n)) for n in counts]  # type: ignore[attr-defined]
        self.fields["bot_seats"].choices = [(n, str(n)) for n in range(max(counts))]  # type: ignore[attr-defined]

    def is_public(self, posted_is_public: str | None = None) -> bool:
        """Public or not: the visibility chosen, "auto" meaning private when inviting. A post
        with the older ``is_public`` checkbox (scripts, old pages) is taken as it says."""
        if posted_is_public is not None:
            return posted_is_public not in ("", "0", "false", "off")
        choice = self.cleaned_data.get("visibility") or "auto"
        if choice == "auto":
            # Private when inviting people, and when the deal is fixed (public games cannot be).
            inviting = bool((self.cleaned_data.get("invite") or "").strip())
            return not inviting and not self._fixes_the_deal()
        return choice == "public"

    def _fixes_the_deal(self) -> bool:
        from games.services.lobby import fixed_deal_options

        options = self.cleaned_data.get("options") or {}
        try:
            rules = engine.get_rules(self.cleaned_data.get("rules") or "")
        except engine.UnknownRules:
            return False
        return bool(isinstance(options, dict) and fixed_deal_options(rules, options))

    def clean_options(self) -> dict[str, Any]:
        text = str(self.cleaned_data.get("options") or "").strip()
        if not text:
            return {}
        try:
            options = safejson.loads(text)
        except safejson.UnsafeJSON as exc:
            raise forms.ValidationError(str(exc)) from None
        if not isinstance(options, dict):
            raise forms.ValidationError('Options must be a JSON object, such as {"first_seat": 0}.')
        return options

    def move_timedelta(self) -> timedelta:
        return timedelta(hours=int(self.cleaned_data["move_time"].rstrip("h")))


class InviteForm(forms.Form):
    emails = forms.CharField(
        label="Invite by email",
        help_text="Comma-separated addresses.",
        widget=forms.TextInput(
            attrs={"placeholder": "anne@example.com, bob@example.com", "inputmode": "email"}
        ),
    )
