"""Celery tasks: thin interfaces that take ids, call a service and own their retries."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="games.ping")
def ping(token: str) -> str:
    """Answers with the token it was given: proves a message went through the broker to a worker."""
    return f"pong:{token}"
