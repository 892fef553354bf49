"""Every rule id of pirates-classic.md, and every 2021 rule it adopts, is proved by a test of
this rule set that names it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "engine" / "pirates_classic" / "rules.md"
TESTS = sorted(Path(__file__).parent.glob("test_pirates_classic_*.py"))


def spec_rule_ids(text: str) -> set[str]:
    """The numbered C- rules, the C- families without numbered rules (C-ACT), and the P- rules
    the classic spec adopts, with ranges such as "P-PARTY-1…3" spelled out."""
    ids = set(re.findall(r"\bC-[A-Z]+-\d+\b", text))
    families = {rule.rsplit("-", 1)[0] for rule in ids}
    ids |= {family for family in re.findall(r"\((C-[A-Z]+)\)", text) if family not in families}
    for family, first, last in re.findall(r"\b(P-[A-Z]+)-(\d+)…(\d+)", text):
        ids |= {f"{family}-{n}" for n in range(int(first), int(last) + 1)}
    ids |= set(re.findall(r"\bP-[A-Z]+(?:-\d+)?\b", text))
    return ids


def named_rules() -> set[str]:
    """Rule ids in this rule set's test names (test_c_mut_2_…, test_p_asm_4_…) and docstrings."""
    found: set[str] = set()
    for path in TESTS:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                match = re.match(r"test_([cp])_([a-z]+)(?:_(\d+))?", node.name)
                if match:
                    found.add("-".join(filter(None, [match[1].upper(), match[2].upper(), match[3]])))
                found.update(re.findall(r"\b[CP]-[A-Z]+(?:-\d+)?", ast.get_docstring(node) or ""))
    return found


def test_the_spec_lists_the_rules_we_expect() -> None:
    ids = spec_rule_ids(SPEC.read_text("utf-8"))
    assert {"C-SET-5", "C-TURN-2", "C-MOVE-2", "C-BOARD-5", "C-MUT-3", "C-END-3", "C-ACT"} <= ids
    adopted = {rule for rule in ids if rule.startswith("P-")}
    assert adopted == {
        "P-PARTY-1",
        "P-PARTY-2",
        "P-PARTY-3",
        "P-ASM-1",
        "P-ASM-2",
        "P-ASM-4",
        "P-CAP-2",
        "P-ACT",
    }
    assert len(ids) == 21 + 8


def test_every_rule_id_has_a_test() -> None:
    missing = sorted(spec_rule_ids(SPEC.read_text("utf-8")) - named_rules())
    assert missing == []
