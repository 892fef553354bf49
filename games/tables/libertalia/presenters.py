"""Shaping the Libertalia engine's ``view`` and ``legal_actions`` for its table templates.

Nothing here decides what is legal: the decision control is built only from
``legal_actions`` (worded with the viewer's ``prompt``), and every button carries one of them
verbatim. Seat colours and names come from the view (Libertalia draws its colours), never
from the rule set's class colours.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.libertalia import OFFERS
from games.tables.base import Move, MoveGroup, encode, seat_names

CAMPAIGNS = 3
DAYS = 6
PHASES = {
    "sunrise": "Sunrise",
    "day": "Day",
    "dusk": "Dusk",
    "night": "Night",
    "over": "The game is over",
}
PHASE_HINTS = {
    "sunrise": "every player chooses a character from their hand, in secret.",
    "day": "the characters on the ship act from left to right.",
    "dusk": "the characters on the ship take booty from right to left.",
    "night": "the characters in the dens act.",
    "over": "",
}
TURNS = {"done": "has acted", "now": "acting", "waiting": "waiting"}
DECISION_TITLES = {
    "play": "Choose your character for today",
    "parrot": "Parrot",
    "recruit": "Recruiter",
    "revive": "Surgeon",
    "keep": "Preacher",
    "gunner": "Gunner",
    "sell": "Merchant",
    "take": "Dusk: take booty",
    "saber": "Saber",
    "waitress": "Waitress",
}
# What each booty token does, for the table's tooltips (values: the How to play page).
TOKEN_TITLES = {
    "chest": "adds its value to your fortune at the end of the campaign",
    "jewel": "adds its value to your fortune at the end of the campaign",
    "goods": "adds its value to your fortune at the end of the campaign",
    "officer": "the character that takes it is discarded instead of entering the den; worth nothing",
    "saber": "whoever takes it discards a character from a neighbour's den; worth nothing",
    "map": "a set of treasure maps is worth a bonus at the end of the campaign",
    "relic": "costs its value from your fortune at the end of the campaign",
}
GAIN_FOR = dict(OFFERS)  # tokens sold -> doubloons gained (L-CHAR-21)


def _plural(name: str, count: int) -> str:
    return name if count == 1 or name.endswith("goods") else f"{name}s"


def _a(name: str) -> str:
    """One token of a kind, in words: "a chest", "a goods token"."""
    return f"a {name} token" if name.endswith("goods") else f"a {name}"


class Words:
    """The view's own words for seats, characters and booty."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.colours: list[str] = list(view.get("colours") or [])
        seats = view.get("seats") or []
        self.seat_names = [str(s.get("name") or s.get("colour") or "").capitalize() for s in seats]
        self.booty_names: dict[str, str] = dict(view.get("booty_names") or {})
        self.characters: dict[int, dict[str, Any]] = {c["rank"]: c for c in view.get("characters") or []}

    def seat(self, seat: int) -> str:
        return self.seat_names[seat] if 0 <= seat < len(self.seat_names) else f"Seat {seat}"

    def colour(self, seat: int) -> str:
        return self.colours[seat] if 0 <= seat < len(self.colours) else ""

    def booty(self, kind: str) -> str:
        return self.booty_names.get(kind, kind)

    def name(self, rank: int) -> str:
        return str(self.characters.get(rank, {}).get("name", f"rank {rank}"))

    def card(self, rank: int) -> str:
        """One of the viewer's own cards: "the Cook (18)"."""
        return f"the {self.name(rank)} ({rank})"

    def owned(self, seat: int, rank: int) -> str:
        """Anyone's character: "your Cook (18)" for the viewer's, else "Blue's Cook (18)"."""
        owner = "your" if self.view.get("viewer") == seat else f"{self.seat(seat)}'s"
        return f"{owner} {self.name(rank)} ({rank})"

    def character(self, card: dict[str, Any]) -> dict[str, Any]:
        """A character of the view (``{"id", "seat", "rank", "name", "influence"}``) ready to
        draw: its owner's colour and name and its card text."""
        rank = int(card["rank"])
        data = self.characters.get(rank, {})
        seat = int(card.get("seat", -1))
        return {
            **card,
            "colour": self.colour(seat),
            "owner": self.seat(seat),
            "timing": ", ".join(str(t).capitalize() for t in data.get("timing", [])),
            "text": data.get("text", ""),
            "label": self.owned(seat, rank),
        }

    def tokens(self, booty: dict[str, int]) -> list[dict[str, Any]]:
        return [
            {
                "kind": kind,
                "name": _plural(self.booty(kind), count),
                "count": count,
                "title": f"{self.booty(kind).capitalize()}: {TOKEN_TITLES.get(kind, '')}",
            }
            for kind, count in booty.items()
            if count
        ]


def _target(text: str) -> tuple[int, int]:
    seat, _, rank = text.partition(".")
    return int(seat), int(rank)


def action_label(action: dict[str, Any], view: dict[str, Any]) -> str:
    """A legal action in the game's words."""
    words = Words(view)
    kind = action.get("type")
    if kind == "play":
        return f"Play {words.card(int(action['rank']))}"
    if kind == "parrot":
        return f"Put {words.card(int(action['rank']))} on the ship"
    if kind == "recruit":
        return f"Take {words.card(int(action['rank']))} from your den back into your hand"
    if kind == "revive":
        return f"Take {words.card(int(action['rank']))} from your graveyard back into your hand"
    if kind == "keep":
        return f"Keep {_a(words.booty(str(action['booty'])))}, discard all your other booty"
    if kind in ("gunner", "saber"):
        return f"Discard {words.owned(*_target(str(action['target'])))}"
    if kind == "sell":
        count = int(action["count"])
        name = _plural(words.booty(str(action["booty"])), count)
        return f"Discard {count} {name} to gain {GAIN_FOR.get(count, '?')} doubloons"
    if kind == "take":
        return f"Take {_a(words.booty(str(action['booty'])))}"
    if kind == "waitress":
        if action.get("sell"):
            return f"Discard {_a(words.booty('map'))} to gain 3 doubloons"
        return f"Keep your {_plural(words.booty('map'), 2)}"
    return str(kind or "move").capitalize()


# ---------------------------------------------------------------------------------------------
# The board


def _fortunes(fortunes: list[int]) -> list[int | None]:
    return [fortunes[c] if c < len(fortunes) else None for c in range(CAMPAIGNS)]


def board(view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
    """The view with words and per-seat panels ready for ``tables/libertalia/board.html``."""
    words = Words(view)
    names = seat_names(seats_summary)
    phase = str(view.get("phase") or "")
    to_act = set(view.get("to_act") or [])
    result = view.get("result") or None
    winners = set(result["winners"]) if result else set()
    viewer = view.get("viewer")

    def own(cards: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        return None if cards is None else [words.character(c) for c in cards]

    panels = []
    for seat in view.get("seats") or []:
        index = int(seat["seat"])
        panels.append({
            "seat": index,
            "name": names.get(index, words.seat(index)),
            "colour": words.colour(index),
            "colour_name": words.seat(index),
            "is_viewer": viewer == index,
            "is_active": index in to_act,
            "chosen": bool(seat.get("chosen")),
            "doubloons": seat["doubloons"],
            "tokens": words.tokens(seat["booty"]),
            "den": [words.character(c) for c in seat["den"]],
            "hand_count": seat["hand_count"],
            "graveyard_count": seat["graveyard_count"],
            "removed_count": seat["removed_count"],
            "fortunes": _fortunes(list(seat.get("fortunes") or [])),
            "score": seat["score"],
            "winner": index in winners,
        })
    day = int(view.get("day") or 0)
    spaces = [
        {
            "day": space["day"],
            "today": bool(space["today"]) and phase != "over",
            "past": space["day"] < day,
            "tokens": words.tokens(space["booty"]),
        }
        for space in view.get("spaces") or []
    ]
    pending = [
        {
            "seat": p["seat"],
            "colour": words.colour(int(p["seat"])),
            "name": names.get(int(p["seat"]), words.seat(int(p["seat"]))),
            "is_viewer": viewer == p["seat"],
            "character": words.character(p["character"]) if p.get("character") else None,
        }
        for p in view.get("pending") or []
    ]
    scoring = None
    if view.get("scoring"):
        scoring = []
        for row in view["scoring"]:
            index = int(row["seat"])
            last = row["last_campaign"]
            scoring.append({
                "seat": index,
                "name": names.get(index, words.seat(index)),
                "colour": words.colour(index),
                "colour_name": words.seat(index),
                "fortunes": _fortunes(list(row["fortunes"])),
                "score": row["score"],
                "winner": index in winners,
                "doubloons": last["doubloons"],
                "tokens": [
                    {**t, "value": last["booty_value"].get(t["kind"], 0)} for t in words.tokens(last["booty"])
                ],
                "map_sets": last["map_sets"],
                "fortune": last["fortune"],
            })
    return {
        "view": view,
        "names": names,
        "campaigns": list(range(1, CAMPAIGNS + 1)),
        "days": DAYS,
        "campaign": view.get("campaign"),
        "day": day,
        "phase": phase,
        "phase_label": PHASES.get(phase, phase.capitalize()),
        "phase_hint": PHASE_HINTS.get(phase, ""),
        "ship": [
            {**words.character(c), "turn": c.get("turn", ""), "turn_label": TURNS.get(c.get("turn", ""), "")}
            for c in view.get("ship") or []
        ],
        "spaces": spaces,
        "pending": pending,
        "panels": panels,
        "hand": own(view.get("hand")),
        "graveyard": own(view.get("graveyard")),
        "removed": own(view.get("removed")),
        "pick": words.character(view["pick"]) if view.get("pick") else None,
        "scoring": scoring,
        "winner_names": [p["name"] for p in panels if p["winner"]],
        "end_reason": "",
    }


# ---------------------------------------------------------------------------------------------
# The decision control


@dataclass
class Choice:
    """One button: exactly one legal action."""

    label: str
    action: str
    index: int
    card: dict[str, Any] | None = None
    # What the choice will do (the table's ``preview``), said before it is made.
    preview: str = ""
    # What the card shows of it: the preview less what the decision says once for every card.
    own: str = ""


@dataclass
class ChoiceGroup:
    """Choices shown together (the targets in one den)."""

    label: str
    colour: str = ""
    choices: list[Choice] = field(default_factory=list)


@dataclass
class Decision:
    """The one decision the viewer owes now: the question and a button per answer."""

    kind: str
    title: str
    question: str
    character: dict[str, Any] | None
    groups: list[ChoiceGroup]
    cards: bool  # the answers are cards of the viewer's (drawn as cards with their text)
    # What the previews of all (or most) answers say alike, said once above them.
    shared: list[str] = field(default_factory=list)

    @property
    def choices(self) -> list[Choice]:
        return [choice for group in self.groups for choice in group.choices]


# A preview's pieces: its sentences, and the clauses after a semicolon.
PIECE_BREAK = re.compile(r"(?<=[.;])\s+(?=[A-Z]|it )")
# "Dusk: takes 1 token …": the part of the turn a piece is about.
PIECE_TIMING = re.compile(r"^([A-Z][a-z]+(?: of campaign)?)[:,]")


def _pieces(text: str) -> list[str]:
    return [piece for piece in PIECE_BREAK.split(text) if piece]


def _sentence(piece: str) -> str:
    """A piece said on its own: a capital first, a full stop last."""
    piece = piece[:1].upper() + piece[1:]
    return piece[:-1] + "." if piece.endswith(";") else piece


def _shared_pieces(choices: list[Choice]) -> list[str]:
    """Say once what the cards' previews say alike (a Sunrise pick repeated some 35 words on
    each of up to nine cards), and leave each card only what differs (``Choice.own``).

    A piece every preview has is said once. A piece most previews have is said once as what
    holds unless the card says otherwise; a card that says nothing of that part of the turn
    says that it does not apply to it."""
    previewed = [c for c in choices if c.preview]
    for choice in choices:
        choice.own = choice.preview
    if len(previewed) < 3:
        return []
    pieces = {id(c): _pieces(c.preview) for c in previewed}
    counts = Counter(piece for c in previewed for piece in set(pieces[id(c)]))
    order = list(dict.fromkeys(piece for c in previewed for piece in pieces[id(c)]))
    everyone = [p for p in order if counts[p] == len(previewed)]
    most = [p for p in order if len(previewed) / 2 < counts[p] < len(previewed)]
    if not everyone and not most:
        return []
    shared = [("Whichever card you choose: " + " ".join(_sentence(p) for p in everyone)) if everyone else ""]
    for piece in most:
        shared.append(f"Unless the card says otherwise: {_sentence(piece)}")
    for choice in previewed:
        own = [p for p in pieces[id(choice)] if p not in everyone and p not in most]
        for piece in most:
            timing = PIECE_TIMING.match(piece)
            if piece not in pieces[id(choice)] and timing and not any(
                p.startswith(timing.group(1)) for p in own
            ):
                own.append(f"{timing.group(1)}: does not apply to this card.")
        choice.own = " ".join(_sentence(p) for p in own)
    return [_sentence(line) for line in shared if line]


def decision(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> Decision:
    words = Words(view)
    prompt = view.get("prompt") or {}
    kind = str(prompt.get("decision") or (legal_actions[0].get("type") if legal_actions else ""))
    groups: dict[str, ChoiceGroup] = {}
    own_cards = {int(c["rank"]): c for c in [*(view.get("hand") or []), *(view.get("graveyard") or [])]}
    for seat in view.get("seats") or []:
        if seat["seat"] == view.get("viewer"):
            own_cards.update({int(c["rank"]): c for c in seat["den"]})
    for index, action in enumerate(legal_actions):
        card = None
        key, label = "", ""
        if "rank" in action:
            rank = int(action["rank"])
            found = own_cards.get(rank)
            card = words.character(found) if found else None
        if "target" in action:
            seat, _rank = _target(str(action["target"]))
            key = str(seat)
            label = "Your den" if view.get("viewer") == seat else f"{words.seat(seat)}'s den"
        group = groups.setdefault(key, ChoiceGroup(label=label, colour=words.colour(int(key)) if key else ""))
        label = action_label(action, view)
        preview = previews[index] if previews and previews[index] != label else ""
        group.choices.append(Choice(label, encode(action), index, card, preview))
    character = prompt.get("character")
    cards = kind in ("play", "parrot", "recruit", "revive")
    shared = _shared_pieces([c for g in groups.values() for c in g.choices]) if cards else []
    return Decision(
        kind=kind,
        title=DECISION_TITLES.get(kind, kind.capitalize()),
        question=str(prompt.get("question") or ""),
        character=words.character(character) if character else None,
        groups=list(groups.values()),
        cards=cards,
        shared=shared,
    )


def move_groups(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[MoveGroup]:
    """The decision as one group of moves (for places without the table, such as emails)."""
    if not legal_actions:
        return []
    owed = decision(legal_actions, view, previews)
    group = MoveGroup(key=owed.kind, label=owed.title, hint=owed.question)
    group.moves = [Move(c.label, c.action, c.index, c.preview or c.label) for c in owed.choices]
    return [group]
