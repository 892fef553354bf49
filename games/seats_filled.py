"""When the last seat of a game in the lobby is taken (issue 17, item 7): the creator gets an
email, and a game created with "start as soon as every seat is taken" starts by itself."""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.core.mail import EmailMultiAlternatives

from games import emails
from games.models import Game, Notification, Seat

log = logging.getLogger(__name__)


def handle_seats_filled(*, game_id: int) -> bool:
    """Start the game if it asked for that, then email its creator once. Returns whether the
    email was sent now. Nothing when the game is no longer waiting with every seat taken."""
    game = Game.objects.select_related("created_by").filter(pk=game_id).first()
    if game is None or game.status != Game.Status.LOBBY:
        return False
    if Seat.objects.filter(game=game).count() < game.players:
        return False
    started = False
    if game.auto_start:
        from games.services import ServiceError, game_start

        try:
            game = game_start(game_id=game.pk, by=game.created_by)
            started = True
        except ServiceError as exc:  # someone left again, or it started meanwhile
            log.info("auto-start of game %s did not happen: %s", game_id, exc.detail)
            game.refresh_from_db()
    creator: User = game.created_by
    if not creator.email or emails.preference(creator) == emails.Notify.NONE:
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
        return emails.render("seats_filled", to=creator.email, subject=subject, context=context, user=creator)

    return emails.deliver_once(
        user=creator, game=game, kind=Notification.Kind.SEATS_FILLED, key="full", build=build
    )
