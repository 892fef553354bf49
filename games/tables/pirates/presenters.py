"""Shaping the Pirates engine's ``view`` and ``legal_actions`` for its table templates.

Nothing here decides what is legal: the move controls are built only from ``legal_actions``
(grouped into party → what to do → booty), and every button carries one of them verbatim.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from games.tables.base import Move, MoveGroup, colour_name, seat_names

# Only symbols that common system fonts carry (no colour-emoji font is assumed).
BOOTY_ICONS = {"saber": "⚔", "rum": "", "relics": "", "chest": "", "wheel": "☸", "anchor": "⚓"}
END_REASONS = {
    "all_cards_boarded": "the last card was boarded",
    "full_round_of_passes": "a full round of passes",
    "action_limit": "the action limit was reached",
}
KIND_LABELS = {"ship": "Ship", "ruins": "Lost ruins", "monster": "Sea monster"}


def pirate_label(colours: list[str], pirate_id: str) -> str:
    seat_text, _, value = pirate_id.partition(".")
    return f"{colour_name(colours, int(seat_text))} {'?' if value == 'Q' else value}"


def _card(card: dict[str, Any] | None, slot: int) -> dict[str, Any]:
    if card is None:
        return {"empty": True, "slot": slot + 1}
    return {
        **card,
        "slot": slot + 1,
        "kind_label": KIND_LABELS.get(card["kind"], card["kind"]),
        "booty_items": [{"kind": kind, "icon": BOOTY_ICONS.get(kind, "")} for kind in card["booty"]],
    }


def board(view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
    """The view with labels and per-seat panels ready for ``games/_board.html``."""
    colours: list[str] = view["colours"]
    names = seat_names(seats_summary)
    parties_by_id = {party["id"]: party for party in view["parties"]}
    panels = []
    for seat in view["seats"]:
        index = seat["seat"]
        parties = []
        for party_id in seat["parties"]:
            party = parties_by_id[party_id]
            parties.append(
                {
                    "id": party_id,
                    "size": party["size"],
                    "single": party["size"] == 1,
                    "pirates": [
                        {
                            **pirate,
                            "colour": colours[pirate["seat"]],
                            "label": pirate_label(colours, pirate["id"]),
                        }
                        for pirate in party["pirates"]
                    ],
                }
            )
        parties.sort(key=lambda p: (p["single"], -p["size"], p["id"]))
        panels.append(
            {
                **seat,
                "name": names.get(index, f"Seat {index}"),
                "colour_name": colour_name(colours, index),
                "is_active": view.get("active") == index,
                "is_viewer": view.get("viewer") == index,
                "booty_items": [
                    {"kind": kind, "icon": BOOTY_ICONS.get(kind, ""), "count": count}
                    for kind, count in seat["booty"].items()
                ],
                "booty_total": sum(seat["booty"].values()),
                "groups": [p for p in parties if not p["single"]],
                "singles": [p for p in parties if p["single"]],
                "score": view["result"]["scores"][index] if view.get("result") else None,
                "winner": bool(view.get("result")) and index in view["result"]["winners"],
                "scoring": view["scoring"][index] if view.get("scoring") else None,
                # Only the kinds that scored, joined here: a comma per item in the template
                # left one dangling when the last kinds scored nothing.
                "majorities": ", ".join(
                    f"{kind} +{bonus}" for kind, bonus in view["scoring"][index]["majority"].items() if bonus
                )
                if view.get("scoring")
                else "",
            }
        )
    return {
        "view": view,
        "display": [_card(card, slot) for slot, card in enumerate(view["display"])],
        "display_cards": sum(1 for card in view["display"] if card is not None),
        "panels": panels,
        "names": names,
        "active_name": names.get(view["active"]) if view.get("active") is not None else None,
        "end_reason": END_REASONS.get(view.get("end_reason") or "", view.get("end_reason") or ""),
        "supply_items": [
            {"kind": kind, "icon": BOOTY_ICONS.get(kind, ""), "count": count}
            for kind, count in view["supply"].items()
        ],
        "active_colour": colours[view["active"]] if view.get("active") is not None else None,
    }


@dataclass
class ChoiceButton:
    """One button that submits exactly one legal action."""

    label: str
    action: str
    index: int
    preview: str = ""


@dataclass
class Option:
    """Step 2: what to do with the chosen party; several choices when there is a booty pick."""

    label: str
    group: str
    choices: list[ChoiceButton] = field(default_factory=list)

    @property
    def needs_booty_pick(self) -> bool:
        return len(self.choices) > 1


@dataclass
class Step:
    """Step 1: a party (or, for mutiny and ransom, a pirate) to act with."""

    key: str
    label: str
    hint: str
    pirates: list[dict[str, Any]]
    options: list[Option] = field(default_factory=list)

    @property
    def groups(self) -> str:
        """The kinds of move this party offers ("Assemble Capture"), for styling and tests."""
        return " ".join(dict.fromkeys(option.group for option in self.options))


def _booty_label(card: dict[str, Any] | None, booty: str | None) -> str:
    if booty is None:
        return "Go"
    others = [kind for kind in (card or {}).get("booty", []) if kind != booty]
    mate = f" (the mate gets {others[0]})" if others else ""
    return f"Take {booty}{mate}"


def move_steps(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None,
    *, controls: bool = True,
) -> list[Step]:
    """The move controls: party -> what to do -> booty. Without ``controls`` (a numbered
    list, ``move_groups``) the buttons carry no encoded action and the steps no pirate chips:
    nobody draws them, and encoding every legal action was most of a list's cost."""
    colours: list[str] = view["colours"]
    parties = {party["id"]: party for party in view["parties"]}
    cards = {card["id"]: card for card in view["display"] if card is not None}

    def party_text(party_id: str) -> str:
        party = parties.get(party_id)
        if party is None or party["size"] == 1:
            return pirate_label(colours, party_id)
        owner = colour_name(colours, party["controller"])
        return f"{owner} party of {party['size']} (captain {pirate_label(colours, party_id)})"

    def chips(party_id: str) -> list[dict[str, Any]]:
        party = parties.get(party_id)
        if party is None or not controls:
            return []
        return [
            {**p, "colour": colours[p["seat"]], "label": pirate_label(colours, p["id"])}
            for p in party["pirates"]
        ]

    def card_text(card_id: str) -> str:
        card = cards.get(card_id)
        if card is None:
            return card_id
        return f"{card['name']} (crew {card['min_crew']}, {card['ducats']} ducats)"

    steps: dict[str, Step] = {}
    options: dict[tuple[str, str], Option] = {}

    def option(step: Step, key: str, label: str, group: str) -> Option:
        found = options.get((step.key, key))
        if found is None:
            found = Option(label=label, group=group)
            options[(step.key, key)] = found
            step.options.append(found)
        return found

    for index, action in enumerate(legal_actions):
        kind = action.get("type")
        encoded = json.dumps(action, separators=(",", ":"), sort_keys=True) if controls else ""
        said = previews[index] if previews else ""

        if kind in ("assemble", "capture"):
            party_id = action["party"]
            step = steps.get(party_id) or steps.setdefault(
                party_id,
                Step(
                    key=party_id,
                    label=party_text(party_id),
                    hint="single pirate" if parties.get(party_id, {}).get("size") == 1 else "your party",
                    pirates=chips(party_id),
                ),
            )
            if kind == "assemble":
                option(
                    step, f"onto:{action['onto']}", f"Assemble onto {party_text(action['onto'])}", "Assemble"
                ).choices.append(ChoiceButton("Assemble", encoded, index, said))
            else:
                card = cards.get(action["card"])
                option(
                    step, f"capture:{action['card']}", f"Capture {card_text(action['card'])}", "Capture"
                ).choices.append(ChoiceButton(_booty_label(card, action.get("booty")), encoded, index, said))
        elif kind == "mutiny":
            key = f"mutiny:{action['party']}:{action['pirate']}"
            step = steps.get(key) or steps.setdefault(
                key,
                Step(
                    key=key,
                    label=f"{pirate_label(colours, action['pirate'])} in {party_text(action['party'])}",
                    hint="mutiny",
                    pirates=chips(action["party"]),
                ),
            )
            card = cards.get(action["card"])
            option(
                step, f"mutiny:{action['card']}", f"Mutiny and capture {card_text(action['card'])}", "Mutiny"
            ).choices.append(ChoiceButton(_booty_label(card, action.get("booty")), encoded, index, said))
        elif kind == "ransom":
            key = f"ransom:{action['pirate']}"
            holder = next(
                (p for p in view["parties"] if any(x["id"] == action["pirate"] for x in p["pirates"])), None
            )
            step = steps.get(key) or steps.setdefault(
                key,
                Step(
                    key=key,
                    label=f"Ransom {pirate_label(colours, action['pirate'])}"
                    + (f" from {party_text(holder['id'])}" if holder else ""),
                    hint="ransom (pay 5 ducats)",
                    pirates=chips(holder["id"]) if holder else [],
                ),
            )
            label = (
                f"Pay 5 and place it onto {party_text(action['onto'])}"
                if action.get("onto")
                else "Pay 5 and keep it single (no assemble possible)"
            )
            option(step, f"onto:{action.get('onto')}", label, "Ransom").choices.append(
                ChoiceButton("Ransom", encoded, index, said)
            )
        else:
            step = steps.setdefault(
                "pass", Step(key="pass", label="Pass", hint="nothing else is possible", pirates=[])
            )
            option(step, "pass", "Pass your turn", "Pass").choices.append(
                ChoiceButton("Pass", encoded, index, said)
            )
    return list(steps.values())


def move_groups(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[MoveGroup]:
    """The move controls flattened for places without steps (emails): one group per party,
    each move labelled with what it does and, where there is a choice, the booty."""
    groups = []
    for step in move_steps(legal_actions, view, previews, controls=False):
        group = MoveGroup(key=step.key, label=step.label, hint=step.hint)
        for option in step.options:
            for choice in option.choices:
                label = option.label if len(option.choices) == 1 else f"{option.label}: {choice.label}"
                group.moves.append(Move(label, choice.action, choice.index, choice.preview))
        groups.append(group)
    return groups
