"""Scoring (K-END-2) and the tie-break (K-END-3).

Everything here works on any state, finished or not, so the greedy bot can ask "what if the
game ended now"; the rules report a result only once the game is over.
"""

from __future__ import annotations

from engine.captain_lucky.state import SET_SIZE, LuckyState, seat_name

SIZES = tuple(range(SET_SIZE, 0, -1))  # 5, 4, 3, 2, 1: the tie-break order of K-END-3


def cards_collected(state: LuckyState, seat: int) -> int:
    return sum(s.cards for s in state.collections[seat])


def captain_point(state: LuckyState, seat: int) -> int:
    """+1 while the captain bonus is unused (K-END-2)."""
    return 0 if state.captain_used[seat] else 1


def points(state: LuckyState, seat: int) -> int:
    return cards_collected(state, seat) + captain_point(state, seat)


def sets_by_size(state: LuckyState, seat: int) -> tuple[int, ...]:
    """How many collected sets have exactly 5, 4, 3, 2 and 1 cards (K-END-3)."""
    sizes = [s.cards for s in state.collections[seat]]
    return tuple(sizes.count(size) for size in SIZES)


def final_result(state: LuckyState) -> dict[str, list[int]]:
    scores = [points(state, s) for s in range(state.players)]
    top = max(scores)
    tied = [s for s in range(state.players) if scores[s] == top]
    # All tied players are compared together: most sets of 5, then of 4, and so on.
    best = max(sets_by_size(state, s) for s in tied)
    return {"scores": scores, "winners": [s for s in tied if sets_by_size(state, s) == best]}


def score_sheet(state: LuckyState, seat: int) -> dict[str, object]:
    return {
        "cards": cards_collected(state, seat),
        "captain_bonus": captain_point(state, seat),
        "total": points(state, seat),
        "sets_by_size": {str(size): n for size, n in zip(SIZES, sets_by_size(state, seat), strict=True)},
    }


def _names(seats: list[int]) -> str:
    names = [seat_name(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def ending(state: LuckyState) -> str:
    """The log sentence that closes a game: the points and who wins, and why on a tie."""
    result = final_result(state)
    scores, winners = result["scores"], result["winners"]
    board = ", ".join(f"{seat_name(s)} {scores[s]}" for s in range(state.players))
    text = f"The game ends. Points: {board}."
    top = max(scores)
    tied = [s for s in range(state.players) if scores[s] == top]
    if len(tied) == 1:
        return f"{text} {seat_name(winners[0])} wins."
    text += f" {_names(tied)} tie on {top} points;"
    if winners == tied:
        return f"{text} they have as many sets of each size and share the win."
    counts = [sets_by_size(state, s) for s in tied]
    size = next(SIZES[i] for i in range(len(SIZES)) if len({c[i] for c in counts}) > 1)
    if len(winners) == 1:
        return f"{text} {seat_name(winners[0])} has more sets of {size} and wins."
    return f"{text} {_names(winners)} have more sets of {size} and share the win."
