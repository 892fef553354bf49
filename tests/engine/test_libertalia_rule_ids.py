"""Every rule id of libertalia.md (the copy in engine/libertalia/) is proved by at least one
test that names it, in its name (test_l_dusk_3_...) or its docstring ("L-DUSK-3")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).parent
SPEC = HERE.parents[1] / "engine" / "libertalia" / "rules.md"


def spec_rule_ids() -> list[str]:
    """Rules are list items ("- L-DUSK-3 …"), or a heading "(L-ACT)" with no numbered items."""
    text = SPEC.read_text("utf-8")
    found = re.findall(r"^- (L-[A-Z]+-\d+)\b", text, flags=re.MULTILINE)
    families = {rule.rsplit("-", 1)[0] for rule in found}
    headings = re.findall(r"^## .*\((L-[A-Z]+)\)$", text, flags=re.MULTILINE)
    found += [family for family in headings if family not in families]
    return list(dict.fromkeys(found))


def named_rules() -> set[str]:
    found: set[str] = set()
    for path in HERE.glob("test_libertalia_*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                match = re.match(r"test_l_([a-z]+)(?:_(\d+))?", node.name)
                if match:
                    found.add("-".join(filter(None, ["L", match[1].upper(), match[2]])))
                found.update(re.findall(r"L-[A-Z]+(?:-\d+)?", ast.get_docstring(node) or ""))
    return found


def test_the_spec_defines_the_families_we_expect() -> None:
    ids = spec_rule_ids()
    families = {rule.rsplit("-", 1)[0] if rule[-1].isdigit() else rule for rule in ids}
    assert families == {
        "L-COMP", "L-SET", "L-CAMP", "L-ZONE", "L-ORD", "L-SUN", "L-DAY", "L-DUSK", "L-NIGHT",
        "L-END", "L-DBL", "L-WIN", "L-CHAR", "L-DEC", "L-RNG", "L-ACT",
    }  # fmt: skip
    assert [r for r in ids if r.startswith("L-CHAR-")] == [f"L-CHAR-{n}" for n in range(1, 31)]


def test_every_rule_id_has_a_test() -> None:
    missing = [rule for rule in spec_rule_ids() if rule not in named_rules()]
    assert missing == []
