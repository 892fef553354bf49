"""Every rule id in each rule set's specification (``engine/<package>/rules.md``) is named by at
least one test of that rule set: a new rule set is covered by being registered.

What counts, precisely:

- A rule id is ``X-FAMILY-N`` (``P-CAP-5``), or a family ``X-FAMILY`` (``C-ACT``) that has no
  numbered rules in the specification. The specification's ids are every such token in it,
  ranges such as ``P-PARTY-1…3`` spelled out; so a rule set that adopts another's rules
  (pirates_classic adopts P-ASM-1) must prove those too.
- A test of a rule set is a ``test_*`` function in a file under tests/ whose name holds the
  package's name as whole words (``test_pirates_classic_mutiny.py``,
  ``test_previews_captain_lucky.py``), the longest package name winning (a
  ``test_pirates_classic_*`` file is not a Pirates test).
- A test names an id in its docstring (``"P-CAP-5: ..."``, ranges spelled out), or by
  starting its name with it (``test_p_cap_5_...``, ``test_c_act_...``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.base import Rules
from engine.registry import all_rules
from tests.source import parse

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
ID = re.compile(r"\b([A-Z]-[A-Z]+)(?:-(\d+)(?:…(\d+))?)?\b")
NAME = re.compile(r"^test_([a-z])_([a-z]+)(?:_(\d+))?(?:_|$)")


def package(rules: Rules[object]) -> str:
    """The engine package a rule set lives in (``pirates_classic``)."""
    return type(rules).__module__.split(".")[1]


PACKAGES = sorted({package(rules) for rules in all_rules()})


def ids_in(text: str) -> tuple[set[str], set[str]]:
    """(numbered ids with ranges spelled out, bare families) mentioned in ``text``."""
    numbered: set[str] = set()
    families: set[str] = set()
    for family, first, last in ID.findall(text):
        if not first:
            families.add(family)
            continue
        numbered |= {f"{family}-{n}" for n in range(int(first), int(last or first) + 1)}
    return numbered, families


def spec_rule_ids(name: str) -> set[str]:
    """The ids ``engine/<name>/rules.md`` defines or adopts."""
    numbered, families = ids_in((ROOT / "engine" / name / "rules.md").read_text("utf-8"))
    with_numbers = {rule.rsplit("-", 1)[0] for rule in numbered}
    return numbered | (families - with_numbers)


def owner(path: Path) -> str | None:
    """The package a test file belongs to: the longest package name its words contain."""
    words = f"_{path.stem}_"
    found = [name for name in PACKAGES if f"_{name}_" in words]
    return max(found, key=len) if found else None


def named_in(path: Path) -> set[str]:
    """The rule ids the test functions of one file name."""
    found: set[str] = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_"):
            match = NAME.match(node.name)
            if match:
                found.add("-".join(filter(None, [match[1].upper(), match[2].upper(), match[3]])))
            numbered, families = ids_in(ast.get_docstring(node) or "")
            found |= numbered | families
    return found


def named_rules(name: str) -> set[str]:
    return {
        rule for path in sorted(TESTS.rglob("test_*.py")) if owner(path) == name for rule in named_in(path)
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_every_rule_id_is_named_by_a_test(name: str) -> None:
    ids = spec_rule_ids(name)
    assert ids, f"engine/{name}/rules.md defines no rule ids"
    assert sorted(ids - named_rules(name)) == []


@pytest.mark.parametrize("name", PACKAGES)
def test_each_family_is_numbered_from_one_without_gaps(name: str) -> None:
    """A gap would be a rule the reading above missed (or a spec's typo)."""
    numbers: dict[str, list[int]] = {}
    for rule in spec_rule_ids(name):
        family, _, n = rule.rpartition("-")
        if n.isdigit():
            numbers.setdefault(family, []).append(int(n))
    own = {family for family in numbers if family[0] == spec_prefix(name)}
    for family in own:
        assert sorted(numbers[family]) == list(range(1, max(numbers[family]) + 1)), family


def spec_prefix(name: str) -> str:
    """The letter of the specification's own ids: the one its section headings carry."""
    text = (ROOT / "engine" / name / "rules.md").read_text("utf-8")
    letters = set(re.findall(r"^#+ .*\(([A-Z])-[A-Z]+\)", text, flags=re.MULTILINE))
    assert len(letters) == 1, f"engine/{name}/rules.md: section headings name one family letter"
    return letters.pop()


# What the reading finds in the four bundled specifications: pinned, so a change to the
# reading that loses ids shows here (a new rule set needs no entry).
KNOWN: dict[str, tuple[int, set[str]]] = {
    "pirates": (46, set()),
    "pirates_classic": (
        29,
        {"P-PARTY-1", "P-PARTY-2", "P-PARTY-3", "P-ASM-1", "P-ASM-2", "P-ASM-4", "P-CAP-2", "P-ACT"},
    ),
    "libertalia": (83, set()),
    "captain_lucky": (18, set()),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_the_reading_finds_the_ids_the_bundled_specifications_define(name: str) -> None:
    count, adopted = KNOWN[name]
    ids = spec_rule_ids(name)
    assert len(ids) == count
    assert {rule for rule in ids if rule[0] != spec_prefix(name)} == adopted


def test_the_rule_sets_tests_are_found_by_file_name() -> None:
    assert owner(Path("test_pirates_capture.py")) == "pirates"
    assert owner(Path("test_pirates_classic_mutiny.py")) == "pirates_classic"
    assert owner(Path("test_previews_captain_lucky.py")) == "captain_lucky"
    assert owner(Path("test_engine_bots.py")) is None
    assert named_in(Path(__file__)) == set()  # this file's own tests name no rule
