"""engine/ is pure Python: it imports nothing of Django or the web layer (design.md, Layers)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.source import parse

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
GLOBAL_CALLS = {"time.time", "datetime.now", "random.random", "random.shuffle", "random.choice"}
FORBIDDEN = {"django", "rest_framework", "celery", "games", "pirates_site", "kombu", "redis"}


def engine_modules() -> list[str]:
    names = []
    for path in sorted(ENGINE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def test_importing_every_engine_module_loads_no_web_package() -> None:
    modules = engine_modules()
    assert "engine.pirates.rules" in modules and "engine.cli" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {sorted(FORBIDDEN)!r})\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_no_engine_file_imports_the_web_layer() -> None:
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert found == []


def rule_set_files() -> list[Path]:
    """Every file of every rule-set package (each subpackage of engine/), so a new rule set
    is covered the day it is added."""
    packages = [package for package in ENGINE.iterdir() if (package / "__init__.py").exists()]
    return sorted(path for package in packages for path in package.rglob("*.py"))


def test_engine_reads_no_clock_and_no_global_randomness() -> None:
    """design.md: nothing in the rules reads the clock or global randomness."""
    files = rule_set_files()
    assert ENGINE / "pirates" / "rules.py" in files and ENGINE / "base.py" not in files
    generic = [ENGINE / name for name in ("base.py", "bots.py", "gamelog.py", "registry.py")]
    for path in [*files, *generic]:
        tree = parse(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                call = f"{node.value.id}.{node.attr}"
                assert call not in GLOBAL_CALLS, (path, call)
            if isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
                raise AssertionError(f"{path} imports from {node.module}")
