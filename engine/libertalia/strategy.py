"""How good a position is for one seat, for the greedy bot: the score so far plus an estimate
of this campaign's fortune, less the best opponent's.

The estimate is the fortune if the campaign ended now, with the den's End effects applied in
order, plus the Night income the den will still earn, partial credit for an unfinished set of
maps, and a little for every character in the den (it can be saber or Gunner fodder, counts
for the First Mate and Topman) and every card kept in hand for later. A seat's own secret
Sunrise choice is worth a rough guess of what that card will bring today, so that the one-ply
greedy bot picks sensibly even though nothing is revealed yet.
"""

from __future__ import annotations

from engine.libertalia.campaign import END_EFFECTS
from engine.libertalia.characters import CHEST, GOODS, JEWEL, MAP, OFFICER, RELIC, SABER
from engine.libertalia.state import DAYS, NIGHT, OVER, SUNRISE, LibertaliaState, scores

DEN_CHARACTER = 0.5
HAND_CARD = 0.7
MAP_PART = 2.0
# A rough worth of what each character does on the day it is played (beyond booty), in doubloons.
DAY_GUESS: dict[int, float] = {
    1: 1.0, 3: 2.0, 4: 1.5, 10: 2.5, 14: 1.0, 15: -1.0, 16: 2.0, 18: 2.0, 21: 1.5, 22: 1.0, 25: 2.0,
    27: 1.5, 28: 2.0, 29: 3.0, 30: -3.0,
}  # fmt: skip


def _nights_left(state: LibertaliaState) -> int:
    """Nights still to come in this campaign, tonight's included if it has not passed."""
    if state.phase == OVER:
        return 0
    return DAYS - state.day + (0 if state.phase == NIGHT else 1)


def _night_income(state: LibertaliaState, seat: int, den: tuple[int, ...]) -> float:
    booty = state.booty[seat]
    income = 0.0
    if 7 in den:
        income += 1
    if 8 in den:
        income += 3 * min(1, booty[MAP]) * 0.6
    if 12 in den:
        income += sum(1 for r in den if r > 12)
    if 13 in den and len(den) > 1:
        income += 2 - DEN_CHARACTER * 2
    if 20 in den:
        income += booty[SABER]
    if 27 in den:
        others = any(27 in state.dens[s] for s in range(state.players) if s != seat)
        income += -1 if others else 2
    return income


def campaign_value(state: LibertaliaState, seat: int, den: tuple[int, ...] | None = None) -> float:
    real = den is None
    den = state.dens[seat] if den is None else den
    booty = state.booty[seat]
    money = float(state.doubloons[seat])
    if state.phase != OVER:
        # A den of its own only for a guessed one: the bots ask this after every move.
        probe = state if real else state._replace(dens=(*state.dens[:seat], den, *state.dens[seat + 1 :]))
        for rank in sorted(den, reverse=True):
            effect = END_EFFECTS.get(rank)
            if effect is not None:
                money = max(0.0, money + effect(probe, seat, rank))
        money += _night_income(state, seat, den) * _nights_left(state)
    chars = state.chars
    tokens = float(sum(booty[k] * chars.booty_value[k] for k in range(len(booty))))
    sets, part = divmod(booty[MAP], chars.map_set_size)
    tokens += sets * chars.map_set_value + (0 if state.phase == OVER else part * MAP_PART)
    value = max(0.0, money + tokens)
    if state.phase != OVER:
        value += DEN_CHARACTER * len(den) + HAND_CARD * len(state.hands[seat])
    return value


def _pick_value(state: LibertaliaState, seat: int, rank: int) -> float:
    """A guess at what an unrevealed pick brings: the booty its rank may reach, its Day
    effect, and its End and Night effects once it is in the den."""
    space = state.spaces[state.day - 1]
    worth = list(state.chars.booty_value)
    worth[MAP] += 4  # a third of a set
    worth[SABER] += 1
    worth[OFFICER] -= 2  # it costs the character its den place
    values = sorted(worth[k] for k, n in enumerate(space) for _ in range(n))
    booty = 0.0
    if values and rank != 5:
        share = rank / 30
        booty = share * values[-1] + (1 - share) * values[0]
        if rank == 18 and len(values) > 1:
            booty += share * values[-2] + (1 - share) * values[0]
    held = sum(state.booty[seat])
    day = DAY_GUESS.get(rank, 0.0)
    if rank == 9:
        day = -state.doubloons[seat] / 2
    elif rank == 11:
        day = 2 * len(state.graves[seat])
    elif rank == 19:
        day = 2 * sum(1 for r in state.dens[seat] if r < 19)
    elif rank in (24, 26):
        day = held if rank == 26 else -min(held, state.doubloons[seat])
    elif rank == 2:
        day = 3 * state.booty[seat][RELIC]
    elif rank == 6:
        day = -sum(sorted(state.booty[seat][k] * v for k, v in ((CHEST, 5), (JEWEL, 3), (GOODS, 1)))[:-1])
    elif rank == 17:
        day = 2 * state.booty[seat][OFFICER]
    with_it = tuple(sorted((*state.dens[seat], rank)))
    den = campaign_value(state, seat, with_it) - campaign_value(state, seat)
    return booty + day + den


def evaluate(state: LibertaliaState, seat: int) -> float:
    totals = scores(state)
    values = [totals[s] + campaign_value(state, s) for s in range(state.players)]
    mine = values[seat]
    if state.phase == SUNRISE and state.picks[seat]:
        mine += _pick_value(state, seat, state.picks[seat])
    return mine - max(v for s, v in enumerate(values) if s != seat)
