"""Building Pirates situations for tests: explicit decks and hand-made states."""

from __future__ import annotations

import json
from typing import Any

from engine import get_rules
from engine.pirates.cards import KIND_INDEX, KINDS, bundled_card_set
from engine.pirates.rules import PiratesRules
from engine.pirates.state import EMPTY, NOBODY, PIRATE_INDEX, PIRATES_PER_SEAT, PiratesState
from tests.engine import bot_games

_RULES = get_rules("pirates")
assert isinstance(_RULES, PiratesRules)
RULES: PiratesRules = _RULES
CARDS = bundled_card_set()
ALL_CARDS = list(CARDS.ids)


def deck(*top: str) -> list[str]:
    """A full deck with the given cards on top, the rest in card-set order."""
    return list(top) + [c for c in ALL_CARDS if c not in top]


def game(players: int = 4, *top: str, first_seat: int = 0, seed: int | str = 1) -> PiratesState:
    return RULES.new_game(players, seed, {"deck": deck(*top), "first_seat": first_seat})


def situation(
    players: int = 4,
    *,
    parties: list[list[str]] | None = None,
    display: list[str | None] | None = None,
    deck_rest: list[str] | None = None,
    treasury: list[int] | None = None,
    booty: dict[int, dict[str, int]] | None = None,
    kept: dict[int, list[str]] | None = None,
    discarded: list[str] | None = None,
    black_spot: int | None = None,
    active: int = 0,
    actions: int = 0,
    passes: int = 0,
    end: str = "",
    card_set: Any = None,
) -> PiratesState:
    """A hand-built state: the named parties (top first), every other pirate single.

    Cards not named in display, kept or discarded form the deck (``deck_rest`` order first).
    """
    options: dict[str, Any] = {"first_seat": active}
    if card_set is not None:
        options["card_set"] = card_set
    base = RULES.new_game(players, 1, options)
    cs = base.card_set
    listed = [[PIRATE_INDEX[p] for p in party] for party in parties or []]
    used = {p for party in listed for p in party}
    singles: list[tuple[int, ...]] = [(p,) for p in range(players * PIRATES_PER_SEAT) if p not in used]
    hoards = [[0] * len(KINDS) for _ in range(players)]
    for seat, kinds in (booty or {}).items():
        for kind, count in kinds.items():
            hoards[seat][KIND_INDEX[kind]] = count
    supply = tuple(6 - sum(h[k] for h in hoards) for k in range(len(KINDS)))
    kept_cards = [tuple(cs.index[c] for c in (kept or {}).get(s, [])) for s in range(players)]
    shown = display if display is not None else list(cs.ids[:4])
    display_cards = tuple(EMPTY if c is None else cs.index[c] for c in shown)
    gone = {c for c in display_cards if c >= 0} | {c for k in kept_cards for c in k}
    discarded_cards = tuple(cs.index[c] for c in (discarded or []))
    gone |= set(discarded_cards)
    first = [cs.index[c] for c in (deck_rest or [])]
    rest = first + [c for c in range(len(cs)) if c not in gone and c not in first]
    return base._replace(
        parties=tuple(sorted([tuple(p) for p in listed] + singles)),
        treasury=tuple(treasury) if treasury is not None else base.treasury,
        booty=tuple(tuple(h) for h in hoards),
        supply=supply,
        kept=tuple(kept_cards),
        discarded=discarded_cards,
        display=display_cards,
        deck=tuple(rest),
        black_spot=NOBODY if black_spot is None else black_spot,
        active=active,
        actions=actions,
        passes=passes,
        end=end,
    )


def party_ids(state: PiratesState) -> list[list[str]]:
    """The parties of a state as pirate ids, for readable assertions (non-singles only)."""
    dumped = RULES.dump(state)["parties"]
    return [p for p in dumped if len(p) > 1]


def booty_of(state: PiratesState, seat: int) -> dict[str, int]:
    return {k: n for k, n in zip(KINDS, state.booty[seat], strict=True) if n}


def playout(
    players: int, seed: int | str, bots: list[str] | None = None
) -> tuple[PiratesState, list[tuple[PiratesState, int, dict[str, Any]]]]:
    """A bot game of Pirates (tests/engine/bot_games.py)."""
    return bot_games.playout(RULES, players, seed, bots)


def json_round_trip(data: Any) -> Any:
    return json.loads(json.dumps(data))


def check_invariants(state: PiratesState) -> None:
    """The invariants every reachable state keeps (P-PARTY-2, P-PARTY-3, P-COMP-3, P-COMP-4)."""
    players = state.players
    pirates = sorted(p for party in state.parties for p in party)
    assert pirates == list(range(players * 5)), "every pirate in exactly one party (P-PARTY-2)"
    assert all(1 <= len(party) <= 9 for party in state.parties), "no party over 9 (P-PARTY-3)"
    assert all(t >= 0 for t in state.treasury), "treasuries never negative (P-COMP-4)"
    for kind in range(6):
        held = sum(hoard[kind] for hoard in state.booty)
        assert state.supply[kind] >= 0, "the supply never runs out (P-COMP-3)"
        assert held + state.supply[kind] == 6, "booty within the supply (P-COMP-3)"
    assert state.black_spot in range(-1, players)
    assert state.actions <= 1000
    assert RULES.to_act(state) == ([] if state.end else [state.active])
