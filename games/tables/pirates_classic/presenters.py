"""Shaping the Pirates (classic) engine's ``view`` and ``legal_actions`` for its table templates.

Nothing here decides what is legal: the controls are built only from ``legal_actions`` (a
stack or single pirate, then move it or board a ship, then the booty where the ship offers a
choice; or the challenge question's two answers), and every button carries one of them
verbatim. The view keys are listed in engine/pirates_classic/README.md.
"""

from __future__ import annotations

from typing import Any

from engine.pirates_classic import kind_label
from games.tables.base import Move, MoveGroup, colour_name, encode, seat_names

# The stack, option and button shapes are the 2021 table's: one edition's move controls
# read like the other's.
from games.tables.pirates.presenters import ChoiceButton as Choice
from games.tables.pirates.presenters import Option, Step, pirate_label

KINDS = ("chest", "rum", "candlestick", "dagger")
END_REASONS = {
    "all_ships_boarded": "the last ship was boarded",
    "full_round_of_skips": "a full round of skips",
    "action_limit": "the action limit was reached",
}
ANSWERS = {None: "waiting", "challenge": "challenges", "decline": "declines"}
QUESTION = "question"
HINT = "challenge or decline"


def _stacks(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {stack["id"]: stack for stack in view["stacks"]}


def stack_text(colours: list[str], stack: dict[str, Any] | None, stack_id: str) -> str:
    """A stack as players say it: "Red 4" for a single pirate, "Red's stack of 3 led by Red 4"."""
    if stack is None or stack["size"] == 1:
        return pirate_label(colours, stack_id)
    owner = colour_name(colours, stack["controller"])
    return f"{owner}'s stack of {stack['size']} led by {pirate_label(colours, stack_id)}"


def _chips(colours: list[str], stack: dict[str, Any] | None) -> list[dict[str, Any]]:
    if stack is None:
        return []
    return [
        {**p, "colour": colours[p["seat"]], "label": pirate_label(colours, p["id"])} for p in stack["pirates"]
    ]


def _crews(colours: list[str], stack: dict[str, Any]) -> list[dict[str, Any]]:
    """How many pirates of each colour a stack holds, most first (C-MUT-1 counts these)."""
    counts: dict[int, int] = {}
    for pirate in stack["pirates"]:
        counts[pirate["seat"]] = counts.get(pirate["seat"], 0) + 1
    return [
        {"seat": seat, "colour": colours[seat], "colour_name": colour_name(colours, seat), "count": count}
        for seat, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def _ship(ship: dict[str, Any] | None, slot: int) -> dict[str, Any]:
    if ship is None:
        return {"empty": True, "slot": slot + 1}
    return {
        **ship,
        "slot": slot + 1,
        "booty_items": [{"kind": kind, "label": kind_label(kind)} for kind in ship["booty"]],
    }


def _challenge(view: dict[str, Any], names: dict[int, str]) -> dict[str, Any] | None:
    """The challenge question of this turn (C-MUT-2, C-MUT-3): who is asked about which stack,
    and every answer so far; all of it is public."""
    challenge = view.get("challenge")
    if not challenge:
        return None
    colours: list[str] = view["colours"]
    stacks = _stacks(view)
    captain = challenge["captain"]
    questions = []
    for question in challenge["questions"]:
        seat = question["seat"]
        stack = stacks.get(question["stack"])
        questions.append(
            {
                "seat": seat,
                "name": names.get(seat, colour_name(colours, seat)),
                "colour": colours[seat],
                "colour_name": colour_name(colours, seat),
                "stack": question["stack"],
                "stack_text": stack_text(colours, stack, question["stack"]),
                "answer": question["answer"] or "waiting",
                "answer_text": ANSWERS.get(question["answer"], str(question["answer"])),
            }
        )
    return {
        "open": challenge["open"],
        "captain": captain,
        "captain_colour": colours[captain],
        "captain_colour_name": colour_name(colours, captain),
        "questions": questions,
        "challenged": [stack_text(colours, stacks.get(s), s) for s in challenge["challenged"]],
    }


def board(view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
    """The view with labels and per-seat panels ready for the board template."""
    colours: list[str] = view["colours"]
    names = seat_names(seats_summary)
    stacks = _stacks(view)
    to_act = set(view.get("to_act") or [])
    challenge = _challenge(view, names)
    asked = {q["seat"] for q in challenge["questions"] if q["answer"] == "waiting"} if challenge else set()
    result: dict[str, Any] | None = view.get("result") or None
    panels = []
    for seat in view["seats"]:
        index = seat["seat"]
        controlled = []
        for stack_id in seat["stacks"]:
            stack = stacks[stack_id]
            controlled.append(
                {
                    "id": stack_id,
                    "size": stack["size"],
                    "single": stack["size"] == 1,
                    "pirates": _chips(colours, stack),
                    "crews": _crews(colours, stack),
                }
            )
        controlled.sort(key=lambda s: (s["single"], -s["size"], s["id"]))
        panels.append(
            {
                **seat,
                "name": names.get(index, f"Seat {index}"),
                "colour_name": colour_name(colours, index),
                "is_active": view.get("active") == index,
                "is_asked": index in asked,
                "to_act": index in to_act,
                "is_viewer": view.get("viewer") == index,
                "booty_items": [
                    {"kind": kind, "label": kind_label(kind), "count": seat["booty"].get(kind, 0)}
                    for kind in KINDS
                    if seat["booty"].get(kind, 0)
                ],
                "stacks": [s for s in controlled if not s["single"]],
                "singles": [s for s in controlled if s["single"]],
                "score": result["scores"][index] if result else None,
                "winner": result is not None and index in result["winners"],
                "scoring": view["scoring"][index] if view.get("scoring") else None,
                "booty_scores": [
                    {"kind": kind, "label": kind_label(kind), "ducats": view["scoring"][index]["booty"][kind]}
                    for kind in KINDS
                    if view.get("scoring") and view["scoring"][index]["booty"].get(kind)
                ],
            }
        )
    display = [_ship(ship, slot) for slot, ship in enumerate(view["display"])]
    return {
        "view": view,
        "names": names,
        "panels": panels,
        "display": display,
        "boarded_names": [ship["name"] for ship in view["boarded"]],
        "challenge": challenge,
        "end_reason": END_REASONS.get(view.get("end_reason") or "", view.get("end_reason") or ""),
        "supply_items": [{"kind": k, "label": kind_label(k), "count": view["supply"][k]} for k in KINDS],
        "bonus_items": [
            {"kind": k, "label": kind_label(k), "bonus": view["card_set"]["majority_bonus"][k]} for k in KINDS
        ],
    }


def _pay(stack: dict[str, Any] | None, ship: dict[str, Any] | None, captain_seat: int) -> int | None:
    """What the captain pays the other players' pirates on boarding (C-BOARD-3), for the
    label only; the engine does the paying."""
    if stack is None or ship is None:
        return None
    return sum(
        ship["question_pay"] if p["value"] == "?" else int(p["value"])
        for p in stack["pirates"][1:]
        if p["seat"] != captain_seat
    )


def _booty_label(
    colours: list[str], ship: dict[str, Any] | None, stack: dict[str, Any] | None, booty: str | None
) -> str:
    """What a boarding gives whom (C-BOARD-2, P-CAP-2): the captain's piece and the mate's."""
    shown: list[str] = (ship or {}).get("booty", [])
    mate = stack["pirates"][1]["seat"] if stack and len(stack["pirates"]) > 1 else None
    mate_owner = f"{colour_name(colours, mate)}'s mate" if mate is not None else "the mate"
    if booty is None:
        if len(shown) == 2:
            return f"Take a {kind_label(shown[0])}; {mate_owner} gets the other"
        return f"Take the {kind_label(shown[0])}" if shown else "Board"
    others = [kind for kind in shown if kind != booty]
    mates = f"; {mate_owner} gets the {kind_label(others[0])}" if others else ""
    return f"Take the {kind_label(booty)}{mates}"


def _board_label(ship: dict[str, Any] | None, stack: dict[str, Any] | None, ship_id: str) -> str:
    if ship is None:
        return f"Board ship {ship_id}"
    pay = _pay(stack, ship, stack["controller"] if stack else -1)
    paying = f", pay {pay}" if pay else ""
    return f"Board the {ship['name']} (crew {ship['min_crew']}): {ship['ducats']} ducats{paying}"


def _captain(view: dict[str, Any]) -> str:
    active = view.get("active")
    return colour_name(view["colours"], active) if active is not None else "the captain"


def _stack_step(view: dict[str, Any], stack_id: str) -> Step:
    colours: list[str] = view["colours"]
    stack = _stacks(view).get(stack_id)
    label = pirate_label(colours, stack_id)
    if stack is None or stack["size"] == 1:
        hint = "single pirate"
    else:
        hint, label = f"your stack of {stack['size']}", f"Stack led by {label}"
    if stack_id in ((view.get("challenge") or {}).get("challenged") or []):
        hint += ": challenged, it must board"  # C-MUT-3
    return Step(key=stack_id, label=label, hint=hint, pirates=_chips(colours, stack))


def _question_step(view: dict[str, Any]) -> Step:
    """The question the viewer is asked (C-MUT-2): about which stack, holding how many of theirs."""
    colours: list[str] = view["colours"]
    viewer = view.get("viewer")
    questions = (view.get("challenge") or {}).get("questions", [])
    asked = next((q for q in questions if q["seat"] == viewer), None)
    stack = _stacks(view).get(asked["stack"]) if asked else None
    captain = _captain(view).capitalize()
    if asked is None or stack is None:
        return Step(key=QUESTION, label=f"{captain} is about to play.", hint=HINT, pirates=[])
    yours = sum(1 for p in stack["pirates"] if p["seat"] == viewer)
    label = (
        f"{captain} is about to play with {stack_text(colours, stack, asked['stack'])}, "
        f"holding {yours} of your pirates."
    )
    return Step(key=QUESTION, label=label, hint=HINT, pirates=_chips(colours, stack))


def move_steps(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[Step]:
    """The controls: the challenge question's answers, or per stack (and single pirate) what
    it can do, with the booty choice as a third step where a ship shows two kinds. Each button
    carries ``previews[i]`` (what legal action i will do), said before the move is made."""
    colours: list[str] = view["colours"]
    stacks = _stacks(view)
    ships = {ship["id"]: ship for ship in view["display"] if ship is not None}
    steps: dict[str, Step] = {}
    options: dict[tuple[str, str], Option] = {}

    def add(step_key: str, key: str, label: str, group: str, choice: Choice) -> None:
        step = steps.get(step_key)
        if step is None:
            if step_key == QUESTION:
                step = _question_step(view)
            elif step_key in stacks:
                step = _stack_step(view, step_key)
            else:
                step = Step(key=step_key, label=group, hint="nothing else is possible", pirates=[])
            steps[step_key] = step
        found = options.get((step_key, key))
        if found is None:
            found = options[(step_key, key)] = Option(label=label, group=group)
            step.options.append(found)
        found.choices.append(choice)

    for index, action in enumerate(legal_actions):
        kind = str(action.get("type"))
        encoded = encode(action)
        said = previews[index] if previews else ""
        if kind == "move":  # C-MOVE-1
            party, onto = action["party"], action["onto"]
            size = sum(stacks[s]["size"] if s in stacks else 1 for s in (party, onto))
            label = f"Onto {stack_text(colours, stacks.get(onto), onto)}: a stack of {size}"
            add(party, f"move:{onto}", label, "Move", Choice("Move", encoded, index, said))
        elif kind == "board":  # C-BOARD-1, C-MUT-3
            ship, stack = ships.get(action["ship"]), stacks.get(action["party"])
            booty = _booty_label(colours, ship, stack, action.get("booty"))
            label = _board_label(ship, stack, action["ship"])
            choice = Choice(booty, encoded, index, said)
            add(action["party"], f"board:{action['ship']}", label, "Board", choice)
        elif kind == "challenge":  # C-MUT-2
            about = stack_text(colours, stacks.get(action["party"]), action["party"])
            label = f"Challenge {_captain(view)} to board with {about}"
            add(QUESTION, kind, label, "Challenge", Choice("Challenge", encoded, index, said))
        elif kind == "decline":
            label = "Decline: let the turn go on"
            add(QUESTION, kind, label, "Decline", Choice("Decline", encoded, index, said))
        else:  # skip (C-TURN-1; the service applies it at once), or an action this table predates
            word = kind.capitalize()
            add(kind, encoded, word, word, Choice(word, encoded, index, said))
    # The question first, then stacks, biggest first (they can board), then single pirates;
    # the sort is stable, so equal sizes keep the engine's captain-id order.
    return sorted(steps.values(), key=lambda s: (s.key != QUESTION, -len(s.pirates)))


def move_groups(
    legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
) -> list[MoveGroup]:
    """The controls flattened for places without steps (emails): one group per stack (or the
    question), each move labelled with what it does and, where there is a choice, the booty."""
    groups = []
    for step in move_steps(legal_actions, view, previews):
        group = MoveGroup(key=step.key, label=step.label, hint=step.hint)
        for opt in step.options:
            for choice in opt.choices:
                label = opt.label if len(opt.choices) == 1 else f"{opt.label}: {choice.label}"
                if opt.group == "Board" and len(opt.choices) == 1:
                    label = f"{opt.label}; {choice.label[0].lower()}{choice.label[1:]}"
                group.moves.append(Move(label, choice.action, choice.index, choice.preview or label))
        groups.append(group)
    return groups
