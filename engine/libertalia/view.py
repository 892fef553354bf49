"""What a seat (or a spectator) sees (L-ZONE-1, L-ZONE-2). Public: the ship, dens, booty,
doubloons, day-spaces, counts of hands, graveyards, removed cards and the bag, who has chosen
at Sunrise, and who owes a decision for which character. A seat's own hand, graveyard,
removed cards, Sunrise choice and the choices of its decision appear in its own view only.
Never the bag's contents order, the seed or the generator. Format in engine/libertalia/README.md.
"""

from __future__ import annotations

from typing import Any

from engine.base import view_header
from engine.libertalia.actions import owed, to_act
from engine.libertalia.characters import COLOURS, KINDS
from engine.libertalia.options import options, target_id
from engine.libertalia.scoring import final_result, score_sheet
from engine.libertalia.state import DAY, DUSK, NIGHT, OVER, LibertaliaState, key, scores, seat_name

WAITRESS = 8

_QUESTIONS = {
    "play": "Choose a card of your hand to play today.",
    "parrot": "Your Parrot: choose a card of your hand to put on the ship.",
    "recruit": "Your Recruiter: choose a character of your den to take back into your hand.",
    "revive": "Your Surgeon: choose a character of your graveyard to take back into your hand (secretly).",
    "keep": "Your Preacher: choose the kind of token you keep one of; all your other tokens are discarded.",
    "gunner": "Your Gunner: choose a character in any den to discard.",
    "sell": "Your Merchant: choose the tokens to sell.",
    "take": "Choose a token from today's day-space.",
    "saber": "Saber: choose a character in a neighbour's den to discard.",
    "waitress": "Your Waitress: discard one treasure map to gain 3?",
}


def _card(state: LibertaliaState, seat: int, rank: int) -> dict[str, Any]:
    return {
        "id": target_id(seat, rank),
        "seat": seat,
        "rank": rank,
        "name": state.chars.name[rank],
        "influence": state.chars.influence[state.colours[seat]][rank],
    }


def _booty(counts: tuple[int, ...]) -> dict[str, int]:
    return dict(zip(KINDS, counts, strict=True))


def _resolving(state: LibertaliaState, seat: int) -> dict[str, Any] | None:
    if state.phase in (DAY, DUSK):
        return _card(state, *state.actor)
    if state.phase == NIGHT:
        return _card(state, seat, WAITRESS)
    return None


def _ship(state: LibertaliaState) -> list[dict[str, Any]]:
    ship = []
    now = key(state.chars, state.colours, *state.actor) if state.actor[0] >= 0 else 0
    for seat, rank in state.ship:
        entry = _card(state, seat, rank)
        mine = key(state.chars, state.colours, seat, rank)
        if mine == now:
            entry["turn"] = "now"
        elif state.phase == DAY and mine < now:
            entry["turn"] = "done"
        else:
            entry["turn"] = "waiting"
        ship.append(entry)
    return ship


def view(
    state: LibertaliaState, viewer: int | None, *, rules_id: str, version: int, title: str
) -> dict[str, Any]:
    chars = state.chars
    players = state.players
    finished = state.phase == OVER
    own = viewer if type(viewer) is int and 0 <= viewer < players else None
    acting = to_act(state)
    totals = scores(state)
    seats = [
        {
            "seat": s,
            "colour": COLOURS[state.colours[s]],
            "name": seat_name(state, s),
            "doubloons": state.doubloons[s],
            "booty": _booty(state.booty[s]),
            "den": [_card(state, s, r) for r in state.dens[s]],
            "hand_count": len(state.hands[s]),
            "graveyard_count": len(state.graves[s]),
            "removed_count": len(state.removed[s]),
            "chosen": bool(state.picks[s]),
            "fortunes": [f[s] for f in state.fortunes],
            "score": totals[s],
        }
        for s in range(players)
    ]
    pending = []
    if state.phase in (DAY, DUSK, NIGHT):
        pending = [{"seat": s, "character": _resolving(state, s)} for s in acting]
    prompt = None
    if own is not None:
        decision = owed(state, own)
        if decision:
            prompt = {
                "decision": decision,
                "character": _resolving(state, own),
                "question": _QUESTIONS[decision],
                "actions": [dict(a) for a in options(state, decision, own)],
            }
    return {
        **view_header(rules_id, version, title, viewer),
        "players": players,
        "colours": [COLOURS[c] for c in state.colours],
        "status": "finished" if finished else "running",
        "to_act": acting,
        "result": final_result(state) if finished else None,
        "action_count": state.actions,
        "character_set": {"id": chars.id, "note": chars.data.get("note", "")},
        "booty_names": dict(zip(KINDS, chars.booty_name, strict=True)),
        "campaign": state.campaign,
        "day": state.day,
        "phase": state.phase,
        "dealt": [list(ranks) for ranks in state.dealt],
        "ship": _ship(state),
        "spaces": [
            {"day": d + 1, "booty": _booty(space), "today": d + 1 == state.day}
            for d, space in enumerate(state.spaces)
        ],
        "bag_count": sum(state.bag),
        "pending": pending,
        "seats": seats,
        "hand": None if own is None else [_card(state, own, r) for r in state.hands[own]],
        "graveyard": None if own is None else [_card(state, own, r) for r in state.graves[own]],
        "removed": None if own is None else [_card(state, own, r) for r in state.removed[own]],
        "pick": None if own is None or not state.picks[own] else _card(state, own, state.picks[own]),
        "prompt": prompt,
        "characters": [
            {
                **chars.character_json(rank),
                "influence": [chars.influence[c][rank] for c in state.colours],
            }
            for rank in range(1, 31)
        ],
        "scoring": score_sheet(state) if finished else None,
    }
