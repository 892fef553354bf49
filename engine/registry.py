"""Rule sets by id and version, found without naming any of them.

Every subpackage of ``engine`` lists the rule sets it provides in its ``__init__`` as
``RULE_SETS: list[Rules]`` (one entry per id and version it still plays; ``[]`` for a package
of shared helpers). The registry imports them all, in name order, when ``engine`` is
imported. A package that
fails to import, lacks ``RULE_SETS``, lists something that is not a ``Rules``, or repeats an
id and version already registered stops the import with an error naming it: a half-loaded
engine would replay some games and refuse others.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

from engine.base import Rules
from engine.errors import UnknownRules

Registry = dict[str, dict[int, Rules[Any]]]


class RegistryError(RuntimeError):
    """A rule-set package that cannot be registered (a programming error, not a user's)."""


def _add(found: Registry, rules: object, where: str) -> None:
    if not isinstance(rules, Rules):
        raise RegistryError(f"{where}: {rules!r} in RULE_SETS is not an engine.base.Rules")
    versions = found.setdefault(rules.id, {})
    if rules.version in versions:
        raise RegistryError(f"{where}: rules {rules.id!r} version {rules.version} are registered twice")
    versions[rules.version] = rules


def rule_set_packages() -> list[str]:
    """The names of the rule-set packages (every subpackage of ``engine``), sorted."""
    root = Path(__file__).resolve().parent
    return sorted(f"engine.{info.name}" for info in pkgutil.iter_modules([str(root)]) if info.ispkg)


def collect(packages: list[str]) -> Registry:
    """The rule sets that ``packages`` list in their ``RULE_SETS``, by id and version. An
    import error propagates as it is."""
    found: Registry = {}
    for name in packages:
        module = importlib.import_module(name)
        rule_sets = getattr(module, "RULE_SETS", None)
        if not isinstance(rule_sets, list | tuple):
            raise RegistryError(
                f"{name} must list its rule sets in RULE_SETS (a list of Rules; [] for shared helpers)"
            )
        for rules in rule_sets:
            _add(found, rules, name)
    return found


_RULES: Registry = collect(rule_set_packages())


def register(rules: Rules[Any]) -> None:
    """Add a rule set that lives outside ``engine`` (tests, experiments)."""
    _add(_RULES, rules, "register")


def unregister(rules_id: str) -> None:
    """Forget every version of a rule set added with ``register`` (tests that add their own)."""
    _RULES.pop(rules_id, None)


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


def all_rules() -> list[Rules[Any]]:
    """Every registered rule set, every version, by id then version."""
    return [versions[v] for _, versions in sorted(_RULES.items()) for v in sorted(versions)]
