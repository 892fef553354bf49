"""How good a position is for one seat, for the greedy bot.

The greedy bot applies each legal action and scores the state after it. A steal's dice are
thrown inside that apply, so scoring the outcome would let the bot see the dice before it
chooses. Instead, a roll made by the action just played counts at its odds: the set is
valued as the chance of winning it times its cards, whatever the dice showed. Hands are
never read (the cards drawn after a move would be a peek at the pile); only public parts of
the state are.
"""

from __future__ import annotations

from math import comb

from engine.captain_lucky.scoring import points
from engine.captain_lucky.state import MIDDLE, LuckyState


def win_chance(dice: int, bonus_left: bool) -> float:
    """The chance that throwing ``dice`` dice ends in all heads, counting one free re-roll of
    the blanks if the captain bonus is still there (paid re-rolls are not counted)."""
    first = 0.5**dice
    if not bonus_left:
        return first
    # After k blanks, the free re-roll of those k dice succeeds with 1/2**k.
    return first + sum(comb(dice, k) * 0.5**dice * 0.5**k for k in range(1, dice + 1))


def evaluate(state: LuckyState, seat: int) -> float:
    totals = [float(points(state, s)) for s in range(state.players)]
    roll = state.last_roll
    if roll is not None and roll.action == state.actions:
        # The action just played rolled: take back what the dice decided, count the odds.
        won = False not in roll.dice
        if won:
            totals[roll.seat] -= roll.cards
            if roll.owner != MIDDLE:
                totals[roll.owner] += roll.cards
        bonus_left = not state.captain_used[roll.seat]
        chance = win_chance(len(roll.rolled), bonus_left)
        totals[roll.seat] += chance * roll.cards
        if roll.owner != MIDDLE:
            totals[roll.owner] -= chance * roll.cards
    mine = totals[seat]
    return mine - max(total for s, total in enumerate(totals) if s != seat)
