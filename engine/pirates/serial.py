"""dump/load: a state as JSON and back. Loading checks the snapshot fully, because a stored
snapshot that no longer matches the rules must fail loudly rather than play on wrongly."""

from __future__ import annotations

from typing import Any

from engine.base import check_snapshot_header, json_list, rng_state_from_json, rng_state_to_json, whole_number
from engine.errors import InvalidOptions, InvalidSnapshot
from engine.pirates.cards import KINDS, SUPPLY_PER_KIND, CardSet, resolve_card_set
from engine.pirates.state import (
    ACTION_LIMIT,
    DISPLAY_SPACES,
    EMPTY,
    END_CARDS,
    END_LIMIT,
    END_PASSES,
    MAX_PARTY,
    NOBODY,
    PIRATE_IDS,
    PIRATE_INDEX,
    PIRATES_PER_SEAT,
    Party,
    PiratesState,
)

_KEYS = {
    "rules",
    "version",
    "card_set",
    "players",
    "parties",
    "treasury",
    "booty",
    "supply",
    "kept",
    "discarded",
    "display",
    "deck",
    "black_spot",
    "active",
    "passes",
    "actions",
    "end",
    "rng",
}


def dump(state: PiratesState, *, rules_id: str, version: int) -> dict[str, Any]:
    card_set = state.card_set
    ids = card_set.ids
    return {
        "rules": rules_id,
        "version": version,
        "card_set": card_set.id if card_set.bundled else card_set.data,
        "players": state.players,
        "parties": [[PIRATE_IDS[p] for p in party] for party in state.parties],
        "treasury": list(state.treasury),
        "booty": [list(hoard) for hoard in state.booty],
        "supply": list(state.supply),
        "kept": [[ids[c] for c in cards] for cards in state.kept],
        "discarded": [ids[c] for c in state.discarded],
        "display": [None if c < 0 else ids[c] for c in state.display],
        "deck": [ids[c] for c in state.deck],
        "black_spot": None if state.black_spot < 0 else state.black_spot,
        "active": state.active,
        "passes": state.passes,
        "actions": state.actions,
        "end": state.end or None,
        "rng": rng_state_to_json(state.rng_state),
    }



def _card(card_set: CardSet, value: Any, name: str) -> int:
    if not isinstance(value, str) or value not in card_set.index:
        raise InvalidSnapshot(f"{name}: unknown card {value!r}")
    return card_set.index[value]


def load_parties(value: Any, players: int) -> tuple[Party, ...]:
    """The parties of a snapshot, sorted by captain: every pirate of the game in exactly one,
    none over 9 (P-PARTY-2, P-PARTY-3)."""
    pirates = players * PIRATES_PER_SEAT
    parties = []
    for raw in json_list(value, "parties"):
        party = tuple(
            PIRATE_INDEX.get(p, pirates) if isinstance(p, str) else pirates for p in json_list(raw, "a party")
        )
        if not 1 <= len(party) <= MAX_PARTY or max(party) >= pirates:
            raise InvalidSnapshot(f"bad party {raw!r}")
        parties.append(party)
    if sorted(p for party in parties for p in party) != list(range(pirates)):
        raise InvalidSnapshot("every pirate must be in exactly one party")
    return tuple(sorted(parties))


def load(data: Any, *, rules_id: str, version: int) -> PiratesState:
    check_snapshot_header(data, _KEYS, "Pirates", rules_id=rules_id, version=version)
    try:
        card_set = resolve_card_set(data["card_set"])
    except InvalidOptions as exc:
        raise InvalidSnapshot(str(exc)) from exc
    players = whole_number(data["players"], "players", 3, 5)
    parties = load_parties(data["parties"], players)

    treasury = tuple(
        whole_number(t, "treasury", 0, 10**9) for t in json_list(data["treasury"], "treasury", players)
    )
    booty = tuple(
        tuple(whole_number(n, "booty", 0, SUPPLY_PER_KIND) for n in json_list(hoard, "booty row", len(KINDS)))
        for hoard in json_list(data["booty"], "booty", players)
    )
    supply = tuple(
        whole_number(n, "supply", 0, SUPPLY_PER_KIND) for n in json_list(data["supply"], "supply", len(KINDS))
    )
    for k, kind in enumerate(KINDS):
        if supply[k] + sum(hoard[k] for hoard in booty) != SUPPLY_PER_KIND:
            raise InvalidSnapshot(f"{kind}: supply and players' tokens must add up to {SUPPLY_PER_KIND}")

    kept = tuple(
        tuple(_card(card_set, c, "kept") for c in json_list(cards, "kept row"))
        for cards in json_list(data["kept"], "kept", players)
    )
    discarded = tuple(_card(card_set, c, "discarded") for c in json_list(data["discarded"], "discarded"))
    display = tuple(
        EMPTY if c is None else _card(card_set, c, "display")
        for c in json_list(data["display"], "display", DISPLAY_SPACES)
    )
    deck = tuple(_card(card_set, c, "deck") for c in json_list(data["deck"], "deck"))
    every = (
        [c for cards in kept for c in cards] + list(discarded) + [c for c in display if c >= 0] + list(deck)
    )
    if sorted(every) != list(range(len(card_set))):
        raise InvalidSnapshot("every card must be exactly once in the deck, the display, kept or discarded")

    spot = data["black_spot"]
    black_spot = NOBODY if spot is None else whole_number(spot, "black_spot", 0, players - 1)
    end = data["end"]
    if end not in (None, END_CARDS, END_PASSES, END_LIMIT):
        raise InvalidSnapshot(f"unknown end {end!r}")
    return PiratesState(
        card_set=card_set,
        players=players,
        parties=parties,
        treasury=treasury,
        booty=booty,
        supply=supply,
        kept=kept,
        discarded=discarded,
        display=display,
        deck=deck,
        black_spot=black_spot,
        active=whole_number(data["active"], "active", 0, players - 1),
        passes=whole_number(data["passes"], "passes", 0, players),
        actions=whole_number(data["actions"], "actions", 0, ACTION_LIMIT),
        end=end or "",
        rng_state=rng_state_from_json(data["rng"]),
    )
