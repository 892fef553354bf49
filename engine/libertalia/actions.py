"""Reading one L-ACT action strictly, and who owes which decision now (L-DEC-1)."""

from __future__ import annotations

import re
from typing import Any

from engine.base import FrozenAction
from engine.errors import IllegalAction
from engine.libertalia.characters import KIND_INDEX, KINDS, RANKS
from engine.libertalia.moves import Move, move_of
from engine.libertalia.options import (
    GUNNER,
    KEEP,
    OFFERS,
    PARROT,
    PLAY,
    RECRUIT,
    REVIVE,
    SABER,
    SELL,
    TAKE,
    WAITRESS,
    neighbours,
)
from engine.libertalia.state import DAY, DUSK, NIGHT, OVER, SUNRISE, LibertaliaState, seat_name

_KEYS: dict[str, frozenset[str]] = {
    "play": frozenset({"type", "rank"}),
    "parrot": frozenset({"type", "rank"}),
    "recruit": frozenset({"type", "rank"}),
    "revive": frozenset({"type", "rank"}),
    "keep": frozenset({"type", "booty"}),
    "gunner": frozenset({"type", "target"}),
    "sell": frozenset({"type", "booty", "count"}),
    "take": frozenset({"type", "booty"}),
    "saber": frozenset({"type", "target"}),
    "waitress": frozenset({"type", "sell"}),
}
_TARGET = re.compile(r"^(0|[1-9][0-9]*)\.([1-9][0-9]?)$")
_ASKED = {
    "play": "choose a card to play",
    "parrot": "choose the card the Parrot puts on the ship",
    "recruit": "choose the character the Recruiter takes back",
    "revive": "choose the character the Surgeon takes back",
    "keep": "choose the kind of token the Preacher keeps",
    "gunner": "choose the Gunner's target",
    "sell": "choose what the Merchant sells",
    "take": "choose a token to take",
    "saber": "choose the saber's target",
    "waitress": "decide whether the Waitress sells a treasure map",
}


_DAY_DUSK = (DAY, DUSK)


def owed(state: LibertaliaState, seat: int) -> str:
    """The decision ``seat`` owes now (an L-ACT type), "" for none."""
    phase = state.phase
    if phase == SUNRISE:
        return "play" if not state.picks[seat] else ""
    if phase in (DAY, DUSK):
        return state.decision if state.decision and state.actor[0] == seat else ""
    if phase == NIGHT:
        return "waitress" if state.night[seat] else ""
    return ""


def to_act(state: LibertaliaState) -> list[int]:
    phase = state.phase
    if phase == SUNRISE:
        return [s for s, pick in enumerate(state.picks) if not pick]
    if phase in (DAY, DUSK):
        return [state.actor[0]] if state.decision else []
    if phase == NIGHT:
        return [s for s, asked in enumerate(state.night) if asked]
    return []


def _article(kind: str) -> str:
    return "An" if kind[:1] in "aeiou" else "A"


def check(state: LibertaliaState, seat: Any, action: Any) -> Move:
    """The validated move of ``seat``; raises ``IllegalAction`` saying what is wrong."""
    known = _KNOWN.get(id(action))
    if known is None or known[0] is not action:
        known = _plain(action)
    if known is not None and type(seat) is int and 0 <= seat < state.players:
        # One of the shared actions legal_actions hands out: well formed by construction,
        # so only whether it answers this seat's decision now is left to check (owed and
        # _allowed, written out for the two commonest decisions). Anything refused falls
        # through to the full check below, which says why.
        move = known[1]
        move_type = move.type
        if move_type == "play":
            if state.phase == SUNRISE and not state.picks[seat] and move.rank in state.hands[seat]:
                return move
        elif move_type == "take":
            if (
                state.decision == "take"
                and state.actor[0] == seat
                and state.phase in _DAY_DUSK
                and state.spaces[state.day - 1][move.booty] > 0
            ):
                return move
        elif owed(state, seat) == move_type and _allowed(state, seat, move):
            return move
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalAction(f"There is no seat {seat!r} in this game")
    if state.phase == OVER:
        raise IllegalAction("The game is over")
    if not isinstance(action, dict):
        raise IllegalAction("An action must be a JSON object")
    kind = action.get("type")
    if type(kind) is not str or kind not in _KEYS:
        raise IllegalAction("type must be one of: " + ", ".join(_KEYS))
    keys = _KEYS[kind]
    if action.keys() != keys:
        extra = sorted(map(str, action.keys() - keys))
        if extra:
            raise IllegalAction(f"{_article(kind)} {kind} action has no {', '.join(extra)}")
        absent = ", ".join(sorted(keys - action.keys()))
        raise IllegalAction(f"{_article(kind)} {kind} action needs {absent}")
    decision = owed(state, seat)
    if not decision:
        waiting = ", ".join(seat_name(state, s) for s in to_act(state))
        if state.phase == SUNRISE:
            raise IllegalAction(f"You have already chosen a card; waiting for {waiting}")
        raise IllegalAction(f"It is not {seat_name(state, seat)}'s decision now; waiting for {waiting}")
    if kind != decision:
        raise IllegalAction(f"Now you must {_ASKED[decision]} (a {decision} action), not {kind}")
    move = _parse(state, kind, action)
    if _allowed(state, seat, move):
        return move
    raise IllegalAction(_why_not(state, seat, move))


def _parse(state: LibertaliaState, kind: str, action: dict[str, Any]) -> Move:
    if "rank" in action:
        rank = action["rank"]
        if type(rank) is not int or not 1 <= rank <= RANKS:
            raise IllegalAction(f"rank must be a whole number from 1 to {RANKS}")
        return Move(kind, rank=rank)
    if "target" in action:
        target = action["target"]
        match = _TARGET.match(target) if type(target) is str else None
        if match is None:
            raise IllegalAction('target must be a character id "<seat>.<rank>" such as "2.14"')
        seat, rank = int(match[1]), int(match[2])
        if seat >= state.players or rank > RANKS:
            raise IllegalAction(f"There is no character {target} in this game")
        return Move(kind, rank=rank, seat=seat)
    if "booty" in action:
        booty = action["booty"]
        if type(booty) is not str or booty not in KIND_INDEX:
            raise IllegalAction("booty must be one of: " + ", ".join(KINDS))
        count = 0
        if kind == "sell":
            count = action["count"]
            if type(count) is not int or count not in dict(OFFERS):
                raise IllegalAction("count must be " + " or ".join(str(c) for c, _ in OFFERS))
        return Move(kind, booty=KIND_INDEX[booty], number=count)
    sell = action["sell"]
    if type(sell) is not bool:
        raise IllegalAction("sell must be true or false")
    return Move(kind, sell=sell)


def _allowed(state: LibertaliaState, seat: int, move: Move) -> bool:
    """Whether ``options(state, move.type, seat)`` lists ``move`` (a well-formed move of the
    decision ``seat`` owes), answered from the state without building the list. The rules
    are options.py's, one line each; the tests compare the two on every listed action and on
    refused ones."""
    kind = move.type
    if kind == "take":
        return state.spaces[state.day - 1][move.booty] > 0
    if kind in ("play", "parrot"):
        return move.rank in state.hands[seat]
    if kind == "waitress":
        return True
    if kind == "recruit":
        return move.rank in state.dens[seat]
    if kind == "revive":
        return move.rank in state.graves[seat]
    if kind == "gunner":  # (a shared action may name a seat this game has not)
        return move.seat < state.players and move.rank in state.dens[move.seat]
    if kind == "saber":
        return move.seat in neighbours(state.players, seat) and move.rank in state.dens[move.seat]
    held = state.booty[seat]
    if kind == "keep":
        return sum(held) >= 2 and held[move.booty] > 0
    return held[move.booty] >= move.number  # sell: count is one of OFFERS (parsed)


def _plain(action: Any) -> tuple[FrozenAction, Move] | None:
    """A play or take written as a plain dict (a log read back from JSON: the commonest
    actions of a replay), as the shared action equal to it; None for anything else, which
    the full check reads. Exact: two keys, a JSON integer rank, a booty kind's name."""
    if type(action) is not dict or len(action) != 2:
        return None
    kind = action.get("type")
    if kind == "play":
        rank = action.get("rank")
        if type(rank) is int and 1 <= rank <= RANKS:
            return _KNOWN[id(PLAY[rank])]
    elif kind == "take":
        booty = action.get("booty")
        if type(booty) is str and booty in KIND_INDEX:
            return _KNOWN[id(TAKE[KIND_INDEX[booty]])]
    return None


def _known_actions() -> dict[int, tuple[FrozenAction, Move]]:
    """The shared actions of options.py by identity, each with its move (they live as long as
    the module, so their ids stay theirs)."""
    every: list[FrozenAction] = [
        *PLAY[1:], *PARROT[1:], *RECRUIT[1:], *REVIVE[1:], *KEEP, *TAKE, *WAITRESS,
        *GUNNER.values(), *SABER.values(), *SELL.values(),
    ]  # fmt: skip
    return {id(action): (action, move_of(action)) for action in every}


_KNOWN = _known_actions()


def _why_not(state: LibertaliaState, seat: int, move: Move) -> str:
    names = state.chars.name
    kind = move.type
    card = f"{names[move.rank]} ({move.rank})" if move.rank else ""
    if kind in ("play", "parrot"):
        return f"You have no {card} in your hand"
    if kind == "recruit":
        return f"Your den holds no {card}"
    if kind == "revive":
        return f"Your graveyard holds no {card}"
    booty = KINDS[move.booty] if move.booty >= 0 else ""
    if kind == "keep":
        return f"You hold no {booty}"
    if kind == "sell":
        held = state.booty[seat][move.booty]
        return f"You hold {held} {booty}; selling {move.number} needs {move.number} of one kind"
    if kind == "take":
        return f"Day-space {state.day} holds no {booty}"
    owner = seat_name(state, move.seat)
    if kind == "gunner":
        return f"{owner}'s den holds no {card}"
    # saber
    if move.seat not in neighbours(state.players, seat):
        return f"The saber hits a neighbour's den only, and {owner} is not your neighbour"
    return f"{owner}'s den holds no {card}"
