"""Rule sets by id and version."""

from __future__ import annotations

from typing import Any

from engine.base import Rules
from engine.errors import UnknownRules
from engine.libertalia import LibertaliaRules
from engine.pirates import PiratesRules

_RULES: dict[str, dict[int, Rules[Any]]] = {}


def register(rules: Rules[Any]) -> None:
    _RULES.setdefault(rules.id, {})[rules.version] = rules


register(PiratesRules())
register(LibertaliaRules())


def get_rules(rules_id: str, version: int | None = None) -> Rules[Any]:
    """The rule set ``rules_id`` at ``version`` (the latest when ``None``)."""
    versions = _RULES.get(rules_id) if isinstance(rules_id, str) else None
    if versions is None:
        raise UnknownRules(f"Unknown rules {rules_id!r}; known rules: {', '.join(sorted(_RULES))}")
    if version is None:
        return versions[max(versions)]
    if type(version) is not int or version not in versions:
        known = ", ".join(str(v) for v in sorted(versions))
        raise UnknownRules(f"Rules {rules_id!r} have no version {version!r}; known versions: {known}")
    return versions[version]


def available_rules() -> list[tuple[str, str]]:
    """(id, title) of the latest version of every rule set, by id."""
    return [(rules_id, versions[max(versions)].title) for rules_id, versions in sorted(_RULES.items())]
