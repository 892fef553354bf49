"""Shaping the Captain Lucky engine's ``view`` and ``legal_actions`` for its table templates.

Everything here reads the view only (K-END-4 keeps every other hand out of it: a seat's
``hand`` is ``None`` in anyone else's view), and nothing decides what is legal: every button
carries one of ``legal_actions`` verbatim, grouped the way players read them (place: kind,
then how many; steal: where the set lies; roll: re-roll, the captain bonus or stop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.captain_lucky import Words, dice_word, odds
from games.tables.base import Move, MoveGroup, action_label, colour_name, encode, seat_names

SET_SIZE = 5
ROLL_KINDS = {"steal": "first roll", "reroll": "re-roll", "captain_bonus": "captain bonus re-roll"}
ROLL_TITLES = {
    "steal": "The first roll of a steal: one die per card of the set",
    "reroll": "A paid re-roll: one card of the set's kind discarded per blank die; the heads stay",
    "captain_bonus": "The captain bonus: the blank dice re-rolled for free, once per game; the heads stay",
}
HEAD = "pirate head"
BLANK = "blank"


# ---------------------------------------------------------------------------------------------
# Words


def blanks_word(n: int) -> str:
    return f"{n} blank{'s' if n != 1 else ''}"


# ---------------------------------------------------------------------------------------------
# The board


def set_title(set_id: str, cards: int, colours: list[str]) -> str:
    """The tooltip of a set's id: where the set lies and whether it can be stolen (K-SET-3,
    K-TURN-2)."""
    match = re.fullmatch(r"p(\d+)s(\d+)", set_id)
    if match is None:
        return f"Set {set_id[1:]} of the middle: anyone may try to steal it, whatever its size"
    owner = colour_name(colours, int(match[1]))
    where = f"{owner}'s set {match[2]} (p{match[1]} is {owner}, s{match[2]} its set number)"
    if cards >= SET_SIZE:
        return f"{where}: complete, it can no longer be stolen"
    return f"{where}: the other players may try to steal it until it holds {SET_SIZE} cards"


def treasure_set(data: dict[str, Any], words: Words, colours: list[str] | None = None) -> dict[str, Any]:
    cards = int(data["cards"])
    return {
        "id": data["id"],
        "kind": data["kind"],
        "cards": cards,
        "complete": bool(data["complete"]),
        "text": words.count(cards, data["kind"]),
        "title": set_title(str(data["id"]), cards, colours or []),
        # Five places a set can hold (K-SET-3), filled or not: how close it is to complete.
        "slots": [index < cards for index in range(SET_SIZE)],
        "slots_title": f"{cards} of the {SET_SIZE} cards a set can hold",
    }


def dice_faces(dice: list[str], rolled: list[int] | None = None) -> dict[str, Any]:
    """Dice as the dice template draws them; ``rolled`` are the dice thrown by the roll (the
    others are heads kept from before)."""
    thrown = set(range(len(dice)) if rolled is None else rolled)
    labels = [(HEAD if face == "head" else BLANK) + ("" if i in thrown else ", kept")
              for i, face in enumerate(dice)]
    faces = [
        {"head": face == "head", "kept": index not in thrown, "label": labels[index]}
        for index, face in enumerate(dice)
    ]
    blanks = sum(1 for face in dice if face != "head")
    marks = " ".join("☠" if face == "head" else "blank" for face in dice)
    outcome = "all heads" if blanks == 0 else blanks_word(blanks)
    return {"faces": faces, "blanks": blanks, "summary": f"{marks} — {outcome}",
            "spoken": f"{', '.join(labels)}: {outcome}"}


def _target(set_id: str, owner: int | None, text: str, colours: list[str]) -> str:
    where = "from the middle" if owner is None else f"from {colour_name(colours, owner)}"
    return f"{set_id} ({text}) {where}"


def _roll(view: dict[str, Any], words: Words, names: dict[int, str]) -> dict[str, Any] | None:
    """The dice of the game's latest roll, and what came of them."""
    roll = view.get("last_roll")
    if not roll:
        return None
    colours: list[str] = list(view.get("colours") or [])
    seat = int(roll["seat"])
    dice = dice_faces(list(roll["dice"]), list(roll["rolled"]))
    steal = view.get("steal")
    who = colour_name(colours, seat)
    if roll["won"]:
        outcome = f"All heads: {who} took the set."
    elif steal and steal.get("set") == roll["set"] and steal.get("seat") == seat:
        outcome = f"{blanks_word(dice['blanks']).capitalize()}: {who} may re-roll or stop."
    else:
        outcome = f"{blanks_word(dice['blanks']).capitalize()}: {who} stopped and the steal failed."
    return {
        "seat": seat,
        "name": names.get(seat, who),
        "colour": colours[seat] if seat < len(colours) else "",
        "colour_name": who,
        "set": roll["set"],
        "kind": roll["kind"],
        "target": _target(roll["set"], roll["owner"], words.count(int(roll["cards"]), roll["kind"]), colours),
        "by": ROLL_KINDS.get(str(roll["by"]), str(roll["by"])),
        "by_title": ROLL_TITLES.get(str(roll["by"]), ""),
        "dice": dice,
        "won": bool(roll["won"]),
        "outcome": outcome,
        "move": roll["action"],
        # Made by the latest action: the replay's frame for a roll shows these dice as its own.
        "just": roll["action"] == view.get("action_count"),
        "under_way": bool(steal and not roll["won"] and steal.get("set") == roll["set"]),
    }


def _panels(view: dict[str, Any], words: Words, names: dict[int, str]) -> list[dict[str, Any]]:
    colours: list[str] = list(view.get("colours") or [])
    result = view.get("result") or None
    scoring = view.get("scoring") or None
    panels = []
    for seat in view["seats"]:
        index = int(seat["seat"])
        hand = seat.get("hand")
        panels.append({
            "seat": index,
            "name": names.get(index, f"Seat {index}"),
            "colour": seat.get("colour") or (colours[index] if index < len(colours) else ""),
            "colour_name": colour_name(colours, index),
            "is_active": view.get("active") == index,
            "is_viewer": view.get("viewer") == index,
            "captain_heart": bool(seat.get("captain_heart")),
            "bonus_used": bool(seat.get("captain_bonus_used")),
            "hand_count": int(seat["hand_count"]),
            # Only the viewer's own seat carries its hand (K-END-4); everyone else's stays a count.
            "hand": None if hand is None else [
                {"kind": kind["id"], "count": hand.get(kind["id"], 0),
                 "text": words.count(hand.get(kind["id"], 0), kind["id"])}
                for kind in words.kinds if hand.get(kind["id"], 0)
            ],
            "backs": range(int(seat["hand_count"])),
            "collection": [treasure_set(s, words, colours) for s in seat.get("collection") or []],
            "collected": sum(int(s["cards"]) for s in seat.get("collection") or []),
            "points": seat.get("points"),
            "score": result["scores"][index] if result else None,
            "winner": result is not None and index in result["winners"],
            "scoring": _score_row(scoring[index]) if scoring else None,
        })
    return panels


def _score_row(sheet: dict[str, Any]) -> dict[str, Any]:
    sizes = sheet.get("sets_by_size") or {}
    return {
        **sheet,
        "sets": [{"size": size, "count": sizes.get(str(size), 0)} for size in range(SET_SIZE, 0, -1)],
    }


def board(view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
    """The view with labels, panels and dice ready for ``tables/captain_lucky/board.html``."""
    words = Words(view)
    names = seat_names(seats_summary)
    colours: list[str] = list(view.get("colours") or [])
    discard: list[str] = list(view.get("discard") or [])
    active = view.get("active")
    return {
        "view": view,
        "kinds": words.kinds,
        "middle": [treasure_set(s, words, colours) for s in view.get("middle") or []],
        "pile_count": view.get("pile_count", 0),
        "card_count": view.get("card_count", 0),
        "last_round": bool(view.get("last_round")),
        "discard_count": len(discard),
        "discard": [
            {"kind": kind["id"], "count": n, "text": words.count(n, kind["id"])}
            for kind in words.kinds if (n := discard.count(kind["id"]))
        ],
        "panels": _panels(view, words, names),
        "roll": _roll(view, words, names),
        "names": names,
        "active_name": names.get(active) if active is not None else None,
        "active_colour": colours[active] if active is not None and active < len(colours) else None,
        "phase": view.get("phase"),
        "end_reason": "the pile ran out and the last round was played" if view.get("result") else "",
    }


# ---------------------------------------------------------------------------------------------
# The move controls


@dataclass
class Choice:
    """One button that submits exactly one legal action: ``label`` is what the button shows,
    ``title`` the whole move in words (the button's accessible name, and the email's line)."""

    label: str
    title: str
    action: str
    index: int
    # What the move will do, said before it is made (the table's ``preview``), or "".
    preview: str = ""


@dataclass
class ControlGroup:
    key: str
    label: str
    hint: str = ""
    # Short buttons in a row (how many cards to place) rather than one per line.
    compact: bool = False
    kind: str = ""
    choices: list[Choice] = field(default_factory=list)


class _Table:
    """What the labels need to know of the view: sets by id, the viewer's hand, the steal."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view
        self.words = Words(view)
        self.colours: list[str] = list(view.get("colours") or [])
        self.sets: dict[str, tuple[int | None, dict[str, Any]]] = {
            s["id"]: (None, s) for s in view.get("middle") or []
        }
        for seat in view.get("seats") or []:
            for s in seat.get("collection") or []:
                self.sets[s["id"]] = (int(seat["seat"]), s)
        viewer = view.get("viewer")
        seats = view.get("seats") or []
        own = seats[viewer] if isinstance(viewer, int) and 0 <= viewer < len(seats) else {}
        self.hand: dict[str, int] = dict(own.get("hand") or {})
        self.steal: dict[str, Any] = dict(view.get("steal") or {})

    def middle_set_of(self, kind: str) -> dict[str, Any] | None:
        """The middle's incomplete set of ``kind``, which placed cards fill first (K-SET-3)."""
        middle = self.view.get("middle") or []
        return next((s for s in middle if s["kind"] == kind and not s["complete"]), None)

    def place_hint(self, kind: str) -> str:
        held = self.hand.get(kind)
        parts = [f"you hold {held}"] if held else []
        joins = self.middle_set_of(kind)
        if joins is not None:
            parts.append(f"they join {joins['id']} ({self.words.count(int(joins['cards']), kind)}) first")
        else:
            parts.append("they start a new set in the middle")
        return "; ".join(parts)

    def label(self, action: dict[str, Any]) -> str:
        """The whole move in the game's words."""
        kind = action.get("type")
        if kind == "place" and isinstance(action.get("count"), int):
            return f"Place {self.words.count(action['count'], str(action.get('kind')))} in the middle"
        if kind == "steal" and action.get("set") in self.sets:
            owner, data = self.sets[action["set"]]
            cards = int(data["cards"])
            target = _target(data["id"], owner, self.words.count(cards, data["kind"]), self.colours)
            return f"Steal {target}: roll {dice_word(cards)}, all heads wins ({odds(cards)})"
        blanks = int(self.steal.get("blanks") or 0)
        if kind == "reroll" and self.steal:
            pay = self.words.count(blanks, str(self.steal.get("kind")))
            return f"Re-roll the {blanks_word(blanks)}: discard {pay} ({odds(blanks)})"
        if kind == "captain_bonus" and self.steal:
            return (f"Captain bonus: re-roll the {blanks_word(blanks)} for free ({odds(blanks)}); "
                    "once per game, and it costs your +1 point")
        if kind == "stop" and self.steal:
            return f"Stop: the steal of {self.steal.get('set')} fails"
        return action_label(action)


PHASE_HEADINGS = {
    "place": "place cards in the middle",
    "steal": "steal a set",
    "roll": "re-roll or stop",
}


def controls(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[ControlGroup]:
    table = _Table(view)
    groups: dict[str, ControlGroup] = {}
    for index, action in enumerate(legal_actions):
        kind = str(action.get("type", "move"))
        title = table.label(action)
        encoded = encode(action)
        said = previews[index] if previews and previews[index] != title else ""
        if kind == "place":
            what = str(action.get("kind"))
            group = groups.get(f"place-{what}") or groups.setdefault(
                f"place-{what}",
                ControlGroup(key=f"place-{what}", label=f"Place {table.words.plural(what)}",
                             hint=table.place_hint(what), compact=True, kind=what),
            )
            group.choices.append(Choice(str(action.get("count")), title, encoded, index, said))
        elif kind == "steal":
            owner = table.sets.get(str(action.get("set")), (None, {}))[0]
            key = "steal-middle" if owner is None else f"steal-p{owner}"
            label = "Steal from the middle" if owner is None else (
                f"Steal from {colour_name(table.colours, owner)}'s collection")
            group = groups.get(key) or groups.setdefault(
                key, ControlGroup(key=key, label=label, hint="one die per card"))
            group.choices.append(Choice(title, title, encoded, index, said))
        elif kind in ("reroll", "captain_bonus", "stop"):
            blanks = int(table.steal.get("blanks") or 0)
            group = groups.get("roll") or groups.setdefault(
                "roll", ControlGroup(key="roll", label=f"The dice show {blanks_word(blanks)}"))
            group.choices.append(Choice(title, title, encoded, index, said))
        else:
            group = groups.setdefault(kind, ControlGroup(key=kind, label=kind.replace("_", " ").capitalize()))
            group.choices.append(Choice(title, title, encoded, index, said))
    return list(groups.values())


def move_groups(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[MoveGroup]:
    """The controls flattened for places without buttons in rows (emails): every move with
    its whole sentence, numbered in ``legal_actions`` order."""
    return [
        MoveGroup(key=group.key, label=group.label, hint=group.hint,
                  moves=[Move(choice.title, choice.action, choice.index, choice.preview or choice.title)
                         for choice in group.choices])
        for group in controls(legal_actions, view, previews)
    ]


def label(action: dict[str, Any], view: dict[str, Any]) -> str:
    return _Table(view).label(action)
