"""Final scoring (P-END-1 … P-END-5, P-SPOT-1, P-SEA-2).

``score_sheet`` works on any state, finished or not, so bots can ask "what if the game ended
now"; the rules only report it once the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.pirates.cards import ANCHOR, MAJORITY_KINDS, WHEEL
from engine.pirates.state import BLACK_SPOT_PENALTY, PiratesState


@dataclass(frozen=True)
class SeatScore:
    treasury: int  # before final scoring
    majority: dict[str, int]  # ducats per majority kind (bonus or 1 per token)
    anchors: int  # printed on kept ruins, plus the majority +1
    wheels: int  # printed on kept ships, plus the majority +1
    token_ducats: int  # anchor and wheel tokens that earned no +1
    wheel_rate: int
    wheel_ducats: int
    black_spot_penalty: int
    total: int
    best_card: int  # ducats of the best kept card, -1 without kept cards

    def as_json(self) -> dict[str, object]:
        return {
            "treasury": self.treasury,
            "majority": dict(self.majority),
            "anchors": self.anchors,
            "wheels": self.wheels,
            "token_ducats": self.token_ducats,
            "wheel_rate": self.wheel_rate,
            "wheel_ducats": self.wheel_ducats,
            "black_spot_penalty": self.black_spot_penalty,
            "total": self.total,
        }


def _leaders(counts: list[int]) -> set[int]:
    top = max(counts)
    return {seat for seat, count in enumerate(counts) if count == top} if top >= 1 else set()


def wheel_rate(rates: dict[int, tuple[int, ...]], players: int, anchors: int) -> int:
    """P-END-3: the ducats per wheel for the player count and anchors (4+ share a column)."""
    row = rates[players]
    return row[min(anchors, len(row) - 1)]


def score_sheet(state: PiratesState) -> list[SeatScore]:
    card_set = state.card_set
    seats = range(state.players)
    totals = list(state.treasury)
    majority: list[dict[str, int]] = [{} for _ in seats]
    for k, kind in enumerate(MAJORITY_KINDS):  # P-END-1
        counts = [state.booty[s][k] for s in seats]
        leaders = _leaders(counts)
        for s in seats:
            gained = card_set.majority_bonus[k] if s in leaders else counts[s]
            majority[s][kind] = gained
            totals[s] += gained
    anchors = [sum(card_set.anchors[c] for c in state.kept[s] if card_set.kind[c] == "ruins") for s in seats]
    wheels = [sum(card_set.wheels[c] for c in state.kept[s] if card_set.kind[c] == "ship") for s in seats]
    token_ducats = [0 for _ in seats]
    for token, printed in ((ANCHOR, anchors), (WHEEL, wheels)):  # P-END-2
        counts = [state.booty[s][token] for s in seats]
        leaders = _leaders(counts)
        for s in seats:
            if s in leaders:
                printed[s] += 1
            else:
                token_ducats[s] += counts[s]
                totals[s] += counts[s]
    rates = []
    gains = []
    for s in seats:  # P-END-3
        rate = wheel_rate(card_set.wheel_rate, state.players, anchors[s])
        rates.append(rate)
        gains.append(wheels[s] * rate)
        totals[s] += wheels[s] * rate
    penalties = [0 for _ in seats]
    holder = state.black_spot
    if holder >= 0 and card_set.monster not in state.kept[holder]:  # P-END-4, P-SEA-2
        penalties[holder] = min(BLACK_SPOT_PENALTY, totals[holder])
        totals[holder] -= penalties[holder]
    return [
        SeatScore(
            treasury=state.treasury[s],
            majority=majority[s],
            anchors=anchors[s],
            wheels=wheels[s],
            token_ducats=token_ducats[s],
            wheel_rate=rates[s],
            wheel_ducats=gains[s],
            black_spot_penalty=penalties[s],
            total=totals[s],
            best_card=max((card_set.ducats[c] for c in state.kept[s]), default=-1),
        )
        for s in seats
    ]


def totals(state: PiratesState) -> list[int]:
    """Each seat's ``score_sheet`` total alone, without the sheet's parts: the same sums in
    fewer steps, for the bots, which ask for it after every move they consider."""
    card_set = state.card_set
    players = state.players
    booty = state.booty
    result = list(state.treasury)
    for k in range(len(MAJORITY_KINDS)):  # P-END-1
        counts = [booty[s][k] for s in range(players)]
        top = max(counts)
        bonus = card_set.majority_bonus[k]
        for s in range(players):
            result[s] += bonus if top >= 1 and counts[s] == top else counts[s]
    kind, printed_anchors, printed_wheels = card_set.kind, card_set.anchors, card_set.wheels
    anchors = [sum(printed_anchors[c] for c in state.kept[s] if kind[c] == "ruins") for s in range(players)]
    wheels = [sum(printed_wheels[c] for c in state.kept[s] if kind[c] == "ship") for s in range(players)]
    for token, printed in ((ANCHOR, anchors), (WHEEL, wheels)):  # P-END-2
        counts = [booty[s][token] for s in range(players)]
        top = max(counts)
        for s in range(players):
            if top >= 1 and counts[s] == top:
                printed[s] += 1
            else:
                result[s] += counts[s]
    row = card_set.wheel_rate[players]  # P-END-3
    for s in range(players):
        result[s] += wheels[s] * row[min(anchors[s], len(row) - 1)]
    holder = state.black_spot
    if holder >= 0 and card_set.monster not in state.kept[holder]:  # P-END-4, P-SEA-2
        result[holder] -= min(BLACK_SPOT_PENALTY, result[holder])
    return result


def winners(sheet: list[SeatScore]) -> list[int]:
    """P-END-5: most ducats; ties go to the best single kept card; equal best cards share."""
    top = max(score.total for score in sheet)
    tied = [s for s, score in enumerate(sheet) if score.total == top]
    best = max(sheet[s].best_card for s in tied)
    return [s for s in tied if sheet[s].best_card == best]


def final_result(state: PiratesState) -> dict[str, list[int]]:
    sheet = score_sheet(state)
    return {"scores": [score.total for score in sheet], "winners": winners(sheet)}
