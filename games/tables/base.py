"""What a table plugin is: how one rule set's game shows on the table page, in the replay and
in the emails. The base class is the generic table; a rule set's own table overrides what it
draws better (see ``games/tables/__init__.py`` for how tables are found)."""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from games.seat_names import Sitter
from games.seat_names import seat_names as names_of_seats

# The project's root: a table's templates and stylesheet are found by their package's name in
# templates/tables/<package>/ and static/tables/<package>/.
ROOT = Path(__file__).resolve().parents[2]

# View keys every rule set's view carries; the generic board shows them in the status line
# and the seat panels rather than as table sections.
META_KEYS = frozenset(
    {"rules", "version", "title", "viewer", "players", "colours", "status", "to_act", "result", "seats"}
)


@dataclass
class Move:
    """One button that submits exactly one legal action (``action`` is its JSON), or one
    numbered move of a list (``index`` finds its legal action; a table whose controls are
    not its ``move_groups`` may leave ``action`` empty there: no button carries it)."""

    label: str
    action: str
    index: int
    # What the move will do, said before it is made (the table's ``preview``).
    preview: str = ""


@dataclass
class MoveGroup:
    """Legal actions shown together: one kind of move, or everything one piece can do."""

    key: str
    label: str
    hint: str = ""
    moves: list[Move] = field(default_factory=list)


def encode(action: dict[str, Any]) -> str:
    """An action as the move forms carry it."""
    return json.dumps(action, separators=(",", ":"), sort_keys=True)


def humanize(key: str) -> str:
    return key.replace("_", " ").capitalize()


def colour_name(colours: list[str], seat: int) -> str:
    return colours[seat].capitalize() if 0 <= seat < len(colours) else f"Seat {seat}"


def seat_names(seats_summary: list[dict[str, Any]]) -> dict[int, str]:
    """The name shown for each seat (``games.seat_names``): its player's display name, or the
    level of the bot playing it, numbered when several bots of one level sit at the table."""
    return names_of_seats(
        Sitter(seat["seat"], seat.get("name") or seat.get("user") or None, seat.get("bot") or None)
        for seat in seats_summary
    )


def render_value(value: Any) -> SafeString:
    """Any JSON value of a view as readable, escaped HTML: objects as definition lists, lists of
    scalars inline, other lists as bullet lists."""
    if isinstance(value, dict):
        if not value:
            return mark_safe('<span class="muted">none</span>')
        rows = format_html_join("", "<div><dt>{}</dt><dd>{}</dd></div>",
                                ((humanize(str(k)), render_value(v)) for k, v in value.items()))
        return format_html('<dl class="view-dl">{}</dl>', rows)
    if isinstance(value, list):
        if not value:
            return mark_safe('<span class="muted">none</span>')
        if all(not isinstance(item, dict | list) for item in value):
            return format_html("{}", ", ".join(_scalar(item) for item in value))
        return format_html('<ul class="view-list">{}</ul>',
                           format_html_join("", "<li>{}</li>", ((render_value(item),) for item in value)))
    return format_html("{}", _scalar(value))


def _scalar(value: Any) -> str:
    if value is None:
        return "–"
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return str(value)


def action_label(action: dict[str, Any]) -> str:
    """A legal action in the rule set's own words, read from its JSON: ``{"type": "steal",
    "set": "m3"}`` is "Steal: set m3"."""
    words = humanize(str(action.get("type", "move")))
    details = ", ".join(f"{humanize(str(k)).lower()} {_scalar(v)}" for k, v in action.items() if k != "type")
    return f"{words}: {details}" if details else words


def package_of(rules_id: str) -> str:
    """The folder name of a rule set (engine/<package>/, games/tables/<package>/ ...): its id
    with ``_`` for ``-``."""
    return rules_id.replace("-", "_")


class Table:
    """The generic table: any rule set's public view laid out readably, one button per legal
    action grouped by kind. Subclasses draw a rule set better; everything has a default.

    A subclass names its ``rules_id``; the paths that follow from its package name are then
    filled in wherever the file exists (``templates/tables/<package>/board.html``,
    ``controls.html``, ``how_to_play.html``, ``static/tables/<package>/table.css`` and the
    engine package's ``rules.md``), unless the subclass sets them itself."""

    rules_id = ""
    board_template = "tables/generic/board.html"
    controls_template = "tables/generic/controls.html"
    # Extra stylesheet (a static path) for the table's own look, or "".
    stylesheet = ""
    # What the status line asks of the player whose move it is.
    move_hint = "choose your move below."
    # The replay chart's names for what it plots: each seat's ``Rules.score_now``.
    chart_title = "Score over time"
    chart_unit = "points"
    # The players' rules page (Markdown), or None for a page that only names the game.
    rules_doc: Path | None = None
    # A "How to play" page written for players (a template given ``how_to_play()`` as
    # ``guide``); when set, the rules page shows it instead of ``rules_doc`` (the
    # specification, which stays in the repository).
    how_to_play_template = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("rules_id"):
            return
        package = package_of(cls.rules_id)
        derived: dict[str, tuple[Path, str]] = {
            "board_template": (ROOT / "templates", f"tables/{package}/board.html"),
            "controls_template": (ROOT / "templates", f"tables/{package}/controls.html"),
            "how_to_play_template": (ROOT / "templates", f"tables/{package}/how_to_play.html"),
            "stylesheet": (ROOT / "static", f"tables/{package}/table.css"),
        }
        for name, (folder, path) in derived.items():
            if name not in cls.__dict__ and (folder / path).is_file():
                setattr(cls, name, path)
        if "rules_doc" not in cls.__dict__:
            # The rules as the engine implements them, with every clarification.
            engine_file = importlib.import_module(f"engine.{package}").__file__
            doc = Path(engine_file or "").resolve().parent / "rules.md"
            cls.rules_doc = doc if doc.is_file() else None

    def how_to_play(self) -> dict[str, Any]:
        """The context of ``how_to_play_template``."""
        return {}

    def __init__(self, rules_id: str = "") -> None:
        if rules_id:
            self.rules_id = rules_id

    def board(self, view: dict[str, Any], seats_summary: list[dict[str, Any]]) -> dict[str, Any]:
        """The context the board template draws (as ``board``)."""
        colours: list[str] = list(view.get("colours") or [])
        names = seat_names(seats_summary)
        result: dict[str, Any] | None = view.get("result") or None
        seats_value = view.get("seats")
        seats: list[Any] = seats_value if isinstance(seats_value, list) else []
        to_act = set(view.get("to_act") or [])
        panels = []
        for index in range(int(view.get("players") or len(seats))):
            detail = seats[index] if index < len(seats) and isinstance(seats[index], dict) else {}
            panels.append({
                "seat": index,
                "name": names.get(index, f"Seat {index}"),
                "colour": colours[index] if index < len(colours) else "",
                "colour_name": colour_name(colours, index),
                "is_active": index in to_act,
                "is_viewer": view.get("viewer") == index,
                "score": result["scores"][index] if result else None,
                "winner": result is not None and index in result["winners"],
                "details": render_value({k: v for k, v in detail.items() if k not in ("seat", "colour")}),
            })
        sections = [
            {"title": humanize(key), "body": render_value(value)}
            for key, value in view.items()
            if key not in META_KEYS
        ]
        return {"view": view, "panels": panels, "sections": sections, "names": names}

    def controls(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[Any]:
        """What the controls template draws (as ``steps``); ``previews`` says what each legal
        action will do (``preview``), in the same order."""
        return self.move_groups(legal_actions, view, previews)

    def move_groups(
        self, legal_actions: list[dict[str, Any]], view: dict[str, Any], previews: list[str] | None = None
    ) -> list[MoveGroup]:
        """The legal actions, numbered in their list order and grouped the way players read them."""
        groups: dict[str, MoveGroup] = {}
        for index, action in enumerate(legal_actions):
            kind = str(action.get("type", "move"))
            group = groups.setdefault(kind, MoveGroup(key=kind, label=humanize(kind)))
            label = self.action_label(action, view)
            preview = previews[index] if previews else label
            group.moves.append(Move(label, encode(action), index, preview))
        return list(groups.values())

    def action_label(self, action: dict[str, Any], view: dict[str, Any]) -> str:
        return action_label(action)

    def preview(
        self, action: dict[str, Any], view: dict[str, Any], *, rules: Any, state: Any, seat: int
    ) -> str:
        """What ``action`` (legal for ``seat``) will do, said before it is made: the rule set's
        own words (``Rules.preview``, which reads nothing hidden from ``seat`` and draws
        nothing), else the action's label."""
        return rules.preview(state, seat, action) or self.action_label(action, view)

    def final(self, action: dict[str, Any], *, rules: Any, state: Any, seat: int) -> str:
        """What the confirm step says of a move that cannot be taken back ("This move is
        final: it draws a card."), "" for one that can: the rule set's own reason
        (``Rules.reveals``), which reads nothing hidden from ``seat``."""
        reason = rules.reveals(state, seat, action)
        return "" if reason is None else f"This move is final: {reason}."
