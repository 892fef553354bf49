"""When the last seat of a game in the lobby is taken.

A game created with "start as soon as every seat is taken" starts in the transaction that
seats its last player (``games.services.lobby.take_free_seat``). Either way that transaction
owes the creator an email (an outbox row, ``games.side_effects.after_seats_filled``) due
``SEATS_FILLED_EMAIL_DELAY_SECONDS`` later: "start the game" if it still waits with every seat
taken then (a creator who is at the lobby and starts it at once is not emailed), "it has
started" if it started by itself. Sent once per game (``Notification`` kind ``seats_filled``).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives

from games import emails
from games.models import Game, Notification
from games.services.accounts import mail_address

KEY = "full"


def send_seats_filled(*, game_id: int) -> bool:
    """The email to the creator of ``game_id``, once; whether it was sent now."""
    game = Game.objects.select_related("created_by").filter(pk=game_id).first()
    if game is None or game.status not in (Game.Status.LOBBY, Game.Status.ACTIVE):
        return False
    started = game.status == Game.Status.ACTIVE
    if started and not game.auto_start:
        return False  # the creator started it themselves
    if not started and game.seats.count() < game.players:
        return False  # a seat was left again meanwhile
    creator: User = game.created_by
    if not mail_address(creator) or emails.preference(creator) == emails.Notify.NONE:
        return False

    def build() -> EmailMultiAlternatives:
        context = {
            "game": game,
            "game_name": game.display_name,
            "game_url": emails.game_url(creator, game),
            "started": started,
        }
        subject = (
            f"{game.display_name} has started: every seat is taken"
            if started
            else f"Every seat of {game.display_name} is taken: start the game"
        )
        return emails.render(
            "seats_filled", to=mail_address(creator), subject=subject, context=context, user=creator
        )

    return emails.deliver_once(
        user=creator, game=game, kind=Notification.Kind.SEATS_FILLED, key=KEY, build=build
    )
