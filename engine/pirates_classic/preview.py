"""What a Pirates (classic) move will do, said before it is made (``Rules.preview``): the
stack it forms and what that stack could board, the ducats a boarding brings and pays (and the
treasuries afterwards), the booty each player takes, and what a challenge forces.

The arithmetic is the engine's (``engine.pirates_classic.play.boarding``), run on the parts of
the position every player sees: the stacks, the face-up ships, treasuries, booty, the
challenge answers and the number of ships left. Nothing here reads the face-down ships or
steps the engine, whose log sentence names the ships a refill turns up: a preview says only
that new ships come up, never which.
"""

from __future__ import annotations

from typing import Any

from engine.base import seat_name
from engine.pirates.state import PIRATE_VALUE, PIRATES_PER_SEAT, Party, pirate_name
from engine.pirates_classic.actions import Board, Challenge, Decline, MoveStack, check
from engine.pirates_classic.cards import KINDS
from engine.pirates_classic.play import boarding
from engine.pirates_classic.state import (
    CHALLENGED,
    CHALLENGERS,
    DECLINED,
    DISPLAY_SPACES,
    EMPTY,
    WAITING,
    ClassicState,
    find_party,
)

# The booty kinds as players read them (the table's presenters use the same words).
KIND_LABELS = {
    "chest": "treasure chest",
    "rum": "rum barrel",
    "candlestick": "candlestick",
    "dagger": "dagger",
}


def kind_label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind)


def ducats(amount: int) -> str:
    return "1 ducat" if amount == 1 else f"{amount} ducats"


def stack_words(party: Party) -> str:
    """A stack as the table says it: "Red 4", or "Red's stack of 3 led by Red 4"."""
    if len(party) == 1:
        return pirate_name(party[0])
    return f"{seat_name(party[0] // PIRATES_PER_SEAT)}'s stack of {len(party)} led by {pirate_name(party[0])}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _face_up(state: ClassicState) -> list[int]:
    return [ship for ship in state.display if ship != EMPTY]


def _crews(party: Party, players: int) -> list[int]:
    counts = [0] * players
    for pirate in party:
        counts[pirate // PIRATES_PER_SEAT] += 1
    return counts


def _paid_to(party: Party, seat: int, question_pay: int) -> int:
    """What ``seat``'s pirates below the captain earn on a boarding (C-BOARD-3)."""
    return sum(
        question_pay if PIRATE_VALUE[p] is None else int(PIRATE_VALUE[p] or 0)
        for p in party[1:]
        if p // PIRATES_PER_SEAT == seat
    )


def _standing(booty: list[list[int]], seat: int, kind: int, bonus: int) -> str:
    """Where the pieces of a kind would put ``seat`` (C-END-1), from the booty afterwards."""
    held = booty[seat][kind]
    best = max((hoard[kind] for s, hoard in enumerate(booty) if s != seat), default=0)
    if held > best:
        return f"the most of anyone, bonus {bonus}"
    if held == best:
        return f"tied for the most, bonus {bonus} shared"
    return "not the most"


def preview(state: ClassicState, seat: int, action: dict[str, Any]) -> str:
    """One or two sentences for the player about to make ``action``; raises
    ``IllegalAction`` for an action ``step`` refuses."""
    decision = check(state, seat, action)
    if isinstance(decision, MoveStack):
        return _move(state, seat, decision)
    if isinstance(decision, Board):
        return _board(state, seat, decision)
    if isinstance(decision, Challenge):
        return _challenge(state, seat, decision)
    if isinstance(decision, Decline):
        return _decline(state, seat)
    return _skip(state)


def _move(state: ClassicState, seat: int, move: MoveStack) -> str:
    """C-MOVE-1: the new stack, who it takes control from, what it could board, who could
    challenge it (C-MUT-1)."""
    mine, target = state.parties[move.party], state.parties[move.onto]
    stack = mine + target
    ship_set = state.card_set
    parts = []
    owner = target[0] // PIRATES_PER_SEAT
    taken = f", taking it from {seat_name(owner)}" if len(target) > 1 else ""
    counts = _crews(stack, state.players)
    mix = ", ".join(f"{seat_name(s)} {n}" for s, n in enumerate(counts) if n)
    parts.append(f"You control a stack of {len(stack)} led by {pirate_name(stack[0])} ({mix}){taken}")
    ships = [ship for ship in _face_up(state) if ship_set.min_crew[ship] <= len(stack)]
    if ships:
        names = [f"{ship_set.name[ship]} (crew {ship_set.min_crew[ship]})" for ship in ships]
        parts.append(f"big enough to board the {_and(names)} at your next turn, if still on display")
    elif _face_up(state):
        least = min(ship_set.min_crew[ship] for ship in _face_up(state))
        parts.append(f"too small for every ship on display (the smallest crew is {least})")
    rivals = [s for s, n in enumerate(counts) if s != seat and n >= CHALLENGERS]
    if rivals:
        has = "has" if len(rivals) == 1 else "each have"
        held = "/".join(sorted({str(counts[s]) for s in rivals}))
        parts.append(
            f"{_and([seat_name(s) for s in rivals])} {has} {held} pirates in it "
            f"and may challenge you to board with it"
        )
    return "; ".join(parts) + "."


def _board(state: ClassicState, seat: int, board: Board) -> str:
    """The certain effects of a boarding (C-BOARD-2…4, C-BOARD-5)."""
    ship_set = state.card_set
    party = state.parties[board.party]
    outcome = boarding(state, seat, party, board.space, board.booty)
    ship = outcome.ship
    have = state.treasury[seat]
    purse = have + ship_set.ducats[ship]
    parts = []
    paid: dict[int, int] = {}
    for paid_seat, amount in outcome.payments:
        paid[paid_seat] = paid.get(paid_seat, 0) + amount
    if not paid:
        parts.append(f"You gain {ducats(ship_set.ducats[ship])} and pay nobody: treasury {have} → {purse}")
    elif outcome.from_supply:
        parts.append(
            f"You gain {ducats(ship_set.ducats[ship])} and owe {ducats(outcome.pay)}, more than you have: "
            f"the supply pays the other {outcome.from_supply}, so treasury {have} → 0"
        )
    else:
        parts.append(
            f"You gain {ducats(ship_set.ducats[ship])} and pay {ducats(outcome.pay)}: "
            f"treasury {have} → {purse - outcome.pay}"
        )
    if paid:
        parts.append(
            "paid: "
            + ", ".join(
                f"{seat_name(s)} +{paid[s]} ({state.treasury[s]} → {state.treasury[s] + paid[s]})"
                for s in sorted(paid)
            )
        )
    booty = [list(hoard) for hoard in state.booty]
    booty[seat][outcome.captain_kind] += 1
    if outcome.mate_kind >= 0:
        booty[outcome.mate][outcome.mate_kind] += 1
    kind = outcome.captain_kind
    parts.append(
        f"you take the {kind_label(KINDS[kind])} ({booty[seat][kind]} in all: "
        f"{_standing(booty, seat, kind, ship_set.majority_bonus[kind])})"
    )
    if outcome.mate_kind >= 0:
        whose = "your own mate" if outcome.mate == seat else f"{seat_name(outcome.mate)}'s mate"
        parts.append(f"{whose} gets the {kind_label(KINDS[outcome.mate_kind])}")
    parts.append("every pirate goes home single")
    left = sum(1 for s in state.display if s != EMPTY) - 1
    if len(state.boarded) + 1 >= len(ship_set):
        parts.append("that is the last ship: the game ends and is scored")
    elif left == 0 and state.deck:
        # Which ships come up is the deck's secret: the preview only says that they do.
        coming = min(DISPLAY_SPACES, len(state.deck))
        parts.append(f"the display is then empty, so {coming} new ships are turned up")
    return "; ".join(parts) + "."


def _question(state: ClassicState) -> list[tuple[int, int, int]]:
    """(seat, captain of the stack asked about, answer) for every seat asked this turn."""
    return [(s, c, state.answers[s]) for s, c in enumerate(state.asked) if c >= 0]


def _challenge(state: ClassicState, seat: int, challenge: Challenge) -> str:
    """C-MUT-3: the captain must board with a challenged stack; what the challenger's pirates
    earn depends only on which face-up ship the captain picks."""
    ship_set = state.card_set
    captain = seat_name(state.active)
    party = state.parties[find_party(state.parties, challenge.captain)]
    ships = [ship for ship in _face_up(state) if ship_set.min_crew[ship] <= len(party)]
    earned = sorted({_paid_to(party, seat, ship_set.question_pay[ship]) for ship in ships})
    others = [
        c for s, c, answer in _question(state) if s != seat and c != challenge.captain and answer != DECLINED
    ]
    where = f"with {stack_words(party)}"
    if others:
        where += " (or another stack someone challenges)"
    parts = [f"{captain} must board a ship {where} this turn and cannot move instead"]
    if earned:
        amount = ducats(earned[0]) if len(earned) == 1 else f"{earned[0]} to {earned[-1]} ducats"
        depends = "" if len(earned) == 1 else ", depending on the ship"
        which = "if it boards with this stack, " if others else ""
        parts.append(f"{which}your pirates in it earn you {amount}{depends}")
    if party[1] // PIRATES_PER_SEAT == seat and any(len(ship_set.booty[s]) == 2 for s in ships):
        parts.append("your pirate is the mate, so you get the second booty if the ship shows two")
    parts.append("everyone sees your answer")
    return "; ".join(parts) + "."


def _decline(state: ClassicState, seat: int) -> str:
    """C-MUT-2, C-MUT-3: declining forces nothing; the other answers (public) may."""
    captain = seat_name(state.active)
    mine = state.asked[seat]
    others = [(s, c, answer) for s, c, answer in _question(state) if s != seat]
    same_yes = [s for s, c, answer in others if c == mine and answer == CHALLENGED]
    if same_yes:
        also = " (or another challenged one)" if any(c != mine for _, c, _ in others) else ""
        return (
            f"You do not challenge, but {_and([seat_name(s) for s in same_yes])} already did: "
            f"{captain} must board with that stack{also} anyway."
        )
    if any(answer == CHALLENGED for _, _, answer in others):
        return f"You do not challenge; {captain} must still board with a stack someone else challenged."
    if any(answer == WAITING for _, _, answer in others):
        return f"You do not challenge: unless someone else does, {captain} moves or boards as they like."
    return f"You do not challenge: {captain} moves or boards as they like."


def _skip(state: ClassicState) -> str:
    """C-TURN-1: n skips in a row in an n-player game end it (the count is public)."""
    run = state.skips + 1
    if run >= state.players:
        return "You can neither move nor board: a full round of skips, so the game ends and is scored."
    return (
        f"You can neither move nor board, so your turn passes "
        f"(skips in a row: {run}; {state.players} end the game)."
    )
