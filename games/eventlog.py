"""One shape for a log line: an event as one viewer may read it.

The event row keeps everything the engine said of a move (``engine.base.Step``): the action,
the sentence for everyone, and, where the rule set hides something, the sentences meant for
one seat only, what the others may see of the action, and the sentence for after the end.
Every channel (the API's events feed and move answers, the HTML log and its live updates,
the replay frames, every email) shapes events through this module for the viewer it serves,
so what a rule set hides reaches nobody through any of them. Replays are unaffected: the
full action stays in the row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.base import Action, Step
from games.models import Event


@dataclass(frozen=True)
class Viewer:
    """Who reads the log: a seat of the game (``None`` for a spectator or anyone without a
    seat), and whether the game is over (then all but what the rules hide for ever shows)."""

    seat: int | None = None
    game_over: bool = False
    # The game is over and its rule set lets the seed be shown then (not Captain Lucky's,
    # whose seed would give away the hands it keeps secret for ever).
    seed_revealed: bool = False
    # "user:<id>" -> "user:<user name>" for the people of the game: ids stay internal.
    names: Mapping[str, str] = field(default_factory=dict)


def payload(step: Step[Any], action: Action) -> dict[str, Any]:
    """The event payload for an action and what the engine said of it. Keys beyond the action
    and its public sentence are stored only when the rule set hid something."""
    stored: dict[str, Any] = {"action": action, "text": step.text}
    if step.private:
        stored["private"] = {str(seat): text for seat, text in sorted(step.private.items())}
    if step.public_action is not None:
        stored["public_action"] = dict(step.public_action)
    if step.full_text is not None:
        stored["full_text"] = step.full_text
    return stored


def public_actor(actor: str, names: Mapping[str, str]) -> str:
    """Who made an event, as callers see it: ``user:<id>`` (stored so a rename changes no
    history) becomes ``user:<user name>``, public in every seat list; ids stay internal."""
    if actor.startswith("user:"):
        return names.get(actor, "user")
    return actor


def started_text(event: Event) -> str:
    return f"The game started with {event.payload.get('players', '?')} players."


def text_for(event: Event, viewer: Viewer) -> str:
    """The sentence ``viewer`` reads for ``event``."""
    if event.kind == Event.Kind.GAME_STARTED:
        return started_text(event)
    data = event.payload
    private = data.get("private")
    if viewer.seat is not None and isinstance(private, dict):
        own = private.get(str(viewer.seat))
        if isinstance(own, str):
            return own
    if viewer.game_over and isinstance(data.get("full_text"), str):
        return str(data["full_text"])
    text = data.get("text")
    return text if isinstance(text, str) else ""


def action_for(event: Event, viewer: Viewer) -> dict[str, Any] | None:
    """The action as ``viewer`` may see it: in full for its own seat and once the game is
    over, otherwise what the rule set lets others see (``None`` for events without one)."""
    action = event.action
    if action is None:
        return None
    hidden = event.payload.get("public_action")
    own = viewer.seat is not None and viewer.seat == event.seat
    if not isinstance(hidden, dict) or viewer.game_over or own:
        return action
    return hidden


def shape(event: Event, viewer: Viewer) -> dict[str, Any]:
    """One row of the log for ``viewer``: the events feed, the HTML log and the emails use it."""
    row: dict[str, Any] = {
        "seq": event.seq,
        "kind": event.kind,
        "seat": event.seat,
        "actor": public_actor(event.actor, viewer.names),
        "action": action_for(event, viewer),
        "text": text_for(event, viewer),
        "created_at": event.created_at,
    }
    if event.kind == Event.Kind.GAME_STARTED:
        # The seed predicts every draw: only once the game is over, if the rules allow it then.
        row["seed"] = event.payload.get("seed") if viewer.seed_revealed else None
    return row
