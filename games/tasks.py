"""Celery tasks: thin interfaces that take ids, call a service and own their retries."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="games.ping")
def ping(token: str) -> str:
    """Answers with the token it was given: proves a message went through the broker to a worker."""
    return f"pong:{token}"


@shared_task(name="games.bot_move")
def bot_move(game_id: int, seq: int) -> int:
    """Plays the bot seats that must act in ``game_id`` if it is still at ``seq``; returns moves made."""
    from games.services import bot_play

    return len(bot_play(game_id=game_id, expected_seq=seq))
