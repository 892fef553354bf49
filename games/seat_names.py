"""What the site calls a seat: its player's display name (with "(bot)" after it once a bot
plays the seat for them), or the level of the bot that holds it ("Strong bot"), numbered when
several bots of one level sit at one table ("Strong bot 1", "Strong bot 2") so that each can
be told apart. The table, the lobby, emails, webhooks and the leaderboard all name seats here.

Imports nothing of the project, so the models may use it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

# A bot seat whose level was never recorded played the greedy bot, the only one offered then.
UNRECORDED_BOT = "greedy"


class Sitter(NamedTuple):
    """Who holds a seat: ``person`` is the display name of the seat's person (None for a bot
    seat); ``bot`` the level of the bot playing it, if a bot plays it."""

    position: int
    person: str | None
    bot: str | None


def bot_name(kind: str | None) -> str:
    """A bot level's name: "Strong bot", "Greedy bot", "Random bot"."""
    return f"{(kind or UNRECORDED_BOT).capitalize()} bot"


def seat_names(seats: Iterable[Sitter]) -> dict[int, str]:
    """The name of each seat of one table, by position. Bots of one level are numbered in
    seat order when there are several of them."""
    ordered = sorted(seats, key=lambda s: s.position)
    levels = Counter(s.bot or UNRECORDED_BOT for s in ordered if s.person is None)
    numbered: Counter[str] = Counter()
    names: dict[int, str] = {}
    for seat in ordered:
        if seat.person is not None:
            names[seat.position] = seat.person + (" (bot)" if seat.bot else "")
            continue
        level = seat.bot or UNRECORDED_BOT
        name = bot_name(level)
        if levels[level] > 1:
            numbered[level] += 1
            name = f"{name} {numbered[level]}"
        names[seat.position] = name
    return names
