"""Every rule id of pirates.md is proved by at least one test that names it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

# Each family of rules in pirates.md and how many numbered rules it has.
FAMILIES = {"COMP": 5, "SET": 5, "PARTY": 4, "TURN": 2, "ASM": 4, "CAP": 9, "MUT": 5, "RAN": 3}
FAMILIES |= {"SPOT": 1, "SEA": 2, "END": 5}
RULE_IDS = [f"P-{family}-{n}" for family, count in FAMILIES.items() for n in range(1, count + 1)]
RULE_IDS.append("P-ACT")


def named_rules() -> set[str]:
    """Rule ids in test names (test_p_cap_5_...) and test docstrings ("P-CAP-5")."""
    found: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                match = re.match(r"test_p_([a-z]+)(?:_(\d+))?", node.name)
                if match:
                    found.add("-".join(filter(None, ["P", match[1].upper(), match[2]])))
                found.update(re.findall(r"P-[A-Z]+(?:-\d+)?", ast.get_docstring(node) or ""))
    return found


def test_every_rule_id_has_a_test() -> None:
    missing = [rule for rule in RULE_IDS if rule not in named_rules()]
    assert missing == []
