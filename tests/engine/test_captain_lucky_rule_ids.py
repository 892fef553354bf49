"""Every rule id of the Captain Lucky specification is proved by at least one test that names it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "engine" / "captain_lucky" / "rules.md"


def spec_rule_ids() -> list[str]:
    """The ids the specification defines: each list item that starts with one (K-SET-3 …),
    plus the K-ACT section."""
    text = SPEC.read_text("utf-8")
    ids = re.findall(r"^- (K-[A-Z]+-\d+)\b", text, flags=re.MULTILINE)
    if "(K-ACT)" in text:
        ids.append("K-ACT")
    return ids


def named_rules() -> set[str]:
    """Rule ids in test names (test_k_turn_7_...) and test docstrings ("K-TURN-7")."""
    found: set[str] = set()
    for path in Path(__file__).parent.glob("test_captain_lucky_*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                match = re.match(r"test_k_([a-z]+)(?:_(\d+))?", node.name)
                if match:
                    found.add("-".join(filter(None, ["K", match[1].upper(), match[2]])))
                found.update(re.findall(r"K-[A-Z]+(?:-\d+)?", ast.get_docstring(node) or ""))
    return found


def test_the_specification_is_bundled_with_its_rule_ids() -> None:
    ids = spec_rule_ids()
    families = {rule.rsplit("-", 1)[0] for rule in ids if rule != "K-ACT"}
    assert families == {"K-COMP", "K-SET", "K-TURN", "K-END"}
    assert len(ids) == 3 + 3 + 7 + 4 + 1 == len(set(ids))


def test_every_rule_id_has_a_test() -> None:
    missing = [rule for rule in spec_rule_ids() if rule not in named_rules()]
    assert missing == []
