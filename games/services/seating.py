"""The playing order of a rematch: the old game's order, turned so that someone else starts.
Asked by ``games.services.lobby`` when any game starts; kept apart from
``games.services.rematch``, which itself starts games through the lobby."""

from __future__ import annotations

import engine
from games.models import Game, Rematch, Seat


def rotated_order(game: Game, seats: list[Seat], first: int | None) -> list[Seat] | None:
    """The playing order of a rematch (None for any other game): the old game's order,
    turned so that the seat after the old game's starter starts now (in engine seat
    ``first``, or seat 0 when several seats act first). The rematch's seats sit at the old
    game's positions, so the neighbours stay the same."""
    call = Rematch.objects.filter(game=game, source__isnull=False).select_related("source").first()
    if call is None or call.source is None or len(seats) != game.players:
        return None
    old_first = _old_starter(call.source)
    n = len(seats)
    by_position = sorted(seats, key=lambda seat: seat.position)
    start = first if first is not None else 0
    ordered: list[Seat] = list(by_position)
    for k in range(n):
        ordered[(start + k) % n] = by_position[(old_first + 1 + k) % n]
    return ordered


def _old_starter(source: Game) -> int:
    """The engine seat that started ``source`` (its seed is revealed: it has ended); 0 when
    several seats acted first or the deal cannot be rebuilt."""
    try:
        rules = engine.get_rules(source.rules_id, source.rules_version)
        state = rules.new_game(players=source.players, seed=source.seed, options=source.options)
    except (engine.UnknownRules, engine.InvalidOptions):
        return 0
    starters = rules.to_act(state)
    return starters[0] if len(starters) == 1 else 0
