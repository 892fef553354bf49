"""ENGINE-REGISTRY: rule sets are found without being named (engine/registry.py): every
subpackage of engine lists its own in RULE_SETS, and a broken one stops the engine loudly."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
from engine import registry
from engine.base import Rules
from tests.engine.toy_rules import DoubloonsRules

ENGINE = Path(engine.__file__).resolve().parent
TOY = "from tests.engine.toy_rules import DoubloonsRules\n"


def test_every_engine_subpackage_is_a_registered_rule_set_package() -> None:
    packages = registry.rule_set_packages()
    assert "engine.pirates" in packages and packages == sorted(packages)
    on_disk = sorted(f"engine.{p.parent.name}" for p in ENGINE.glob("*/__init__.py"))
    assert packages == on_disk
    listed = sorted(
        (rules.id, rules.version) for name in packages for rules in importlib.import_module(name).RULE_SETS
    )
    assert listed == sorted((rules.id, rules.version) for rules in registry.all_rules())
    assert [rules_id for rules_id, _ in engine.available_rules()] == sorted({i for i, _ in listed})


def test_no_generic_engine_module_names_a_rule_set() -> None:
    """Only a rule set's own package names it: base, bots, cli, gamelog, registry and errors
    work for whatever is registered."""
    ids = [rules_id for rules_id, _ in engine.available_rules()]
    packages = [name.removeprefix("engine.") for name in registry.rule_set_packages()]
    for path in sorted(ENGINE.glob("*.py")):
        text = path.read_text("utf-8")
        for word in [*ids, *packages]:
            assert f'"{word}"' not in text and f"engine.{word}" not in text, (path.name, word)


def write_package(root: Path, name: str, body: str) -> str:
    package = root / "fake_rule_sets" / name
    package.mkdir(parents=True)
    (package.parent / "__init__.py").touch()
    (package / "__init__.py").write_text(body, "utf-8")
    return f"fake_rule_sets.{name}"


@pytest.fixture
def fake_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("fake_rule_sets")]:
        del sys.modules[name]


def test_collect_finds_each_packages_rule_sets(fake_root: Path) -> None:
    good = write_package(fake_root, "good", f"{TOY}RULE_SETS = [DoubloonsRules()]\n")
    helpers = write_package(fake_root, "helpers", "RULE_SETS = []\n")
    found = registry.collect([good, helpers])
    assert list(found) == ["doubloons"] and isinstance(found["doubloons"][1], DoubloonsRules)


@pytest.mark.parametrize(
    ("body", "error", "message"),
    [
        ("x = 1\n", registry.RegistryError, "must list its rule sets in RULE_SETS"),
        ("RULE_SETS = [object()]\n", registry.RegistryError, "is not an engine.base.Rules"),
        (
            f"{TOY}RULE_SETS = [DoubloonsRules(), DoubloonsRules()]\n",
            registry.RegistryError,
            "'doubloons' version 1 are registered twice",
        ),
        ("import no_such_module_anywhere\n", ModuleNotFoundError, "no_such_module_anywhere"),
        ("RULE_SETS = [1 / 0]\n", ZeroDivisionError, "division"),
    ],
    ids=["no-rule-sets", "not-rules", "twice", "import-error", "crash"],
)
def test_a_broken_rule_set_package_fails_loudly(
    fake_root: Path, body: str, error: type[Exception], message: str
) -> None:
    name = write_package(fake_root, "broken", body)
    with pytest.raises(error, match=message) as raised:
        registry.collect([name])
    if error is registry.RegistryError:
        assert name in str(raised.value)


def test_register_adds_a_rule_set_from_outside_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_RULES", dict(registry._RULES))
    rules: Rules[object] = DoubloonsRules()  # type: ignore[assignment]
    registry.register(rules)
    assert engine.get_rules("doubloons") is rules
    with pytest.raises(registry.RegistryError, match="registered twice"):
        registry.register(rules)
