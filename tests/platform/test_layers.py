"""The import contracts in pyproject.toml ([tool.importlinter]): the engine imports nothing of
the project; the ways in (views, API, inbound mail, tasks, commands) sit above mail and
reads, which sit above the services, then the side effects, the outbox, the read model and the
models; the selectors never import the services; no module or package of games/ is part of
an import cycle, imports inside functions included; and games/ imports no module inside a
rule set (only the engine contract and what a rule set's package exports)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _lint_imports(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    return subprocess.run(
        [command, "--no-cache", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_the_import_contracts_are_kept() -> None:
    done = _lint_imports()
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_cycle_contract_finds_an_import_inside_a_function(tmp_path: Path) -> None:
    """The cycle check is not blind to the imports that hid today's cycle: a package whose
    two modules import each other, one of them inside a function, breaks the contract."""
    package = tmp_path / "harbour"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ships.py").write_text("from harbour import crews\n")
    (package / "crews.py").write_text(textwrap.dedent("""\
        def muster():
            from harbour import ships
            return ships
        """))
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""\
        [importlinter]
        root_package = harbour

        [importlinter:contract:1]
        name = No cycles in harbour
        type = acyclic_siblings
        ancestors = harbour
        """))
    done = _lint_imports("--config", str(tmp_path / ".importlinter"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "BROKEN" in done.stdout
    assert ".crews -> .ships" in done.stdout or ".ships -> .crews" in done.stdout


def _rule_set_contract() -> dict[str, Any]:
    """The contract of pyproject.toml that keeps games/ out of a rule set's internal modules."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["type"] == "forbidden" and "engine.*.*" in c["forbidden_modules"]]
    return contract


def _project_with_a_rule_set(root: Path, games_modules: dict[str, str]) -> Path:
    """A small engine (a generic module and one rule set with a module inside), a games
    package of ``games_modules``, and an import-linter config holding the project's contract."""
    files = {
        "engine/__init__.py": "",
        "engine/base.py": "class Rules: ...\n",
        "engine/toy/__init__.py": "from engine.toy.state import START\n",
        "engine/toy/state.py": "from engine.base import Rules\nSTART = 3\n",
        "games/__init__.py": "",
        **{f"games/{name}.py": text for name, text in games_modules.items()},
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    contract = _rule_set_contract()
    (root / ".importlinter").write_text(textwrap.dedent(f"""\
        [importlinter]
        root_packages =
            engine
            games

        [importlinter:contract:1]
        name = {contract["name"]}
        type = forbidden
        source_modules = games
        forbidden_modules =
        {chr(10).join("    " + str(m) for m in contract["forbidden_modules"])}
        allow_indirect_imports = {str(contract.get("allow_indirect_imports", False)).lower()}
        """))
    return root / ".importlinter"


def test_the_rule_set_contract_refuses_an_import_of_a_rule_sets_module(tmp_path: Path) -> None:
    """games/ may import the engine's generic modules and a rule set's package (what its
    __init__ exports), never a module inside a rule set: the how-to-play page that imported a
    constant from engine.<package>.state breaks the contract, its twin that imports it from
    the package keeps it."""
    kept = _project_with_a_rule_set(tmp_path / "kept", {
        "table": "from engine import base\nfrom engine.toy import START\n",
    })
    done = _lint_imports("--config", str(kept), cwd=kept.parent)
    assert done.returncode == 0, done.stdout
    broken = _project_with_a_rule_set(tmp_path / "broken", {
        "table": "from engine import base\nfrom engine.toy import START\n",
        "how_to_play": "def page():\n    from engine.toy.state import START\n    return START\n",
    })
    done = _lint_imports("--config", str(broken), cwd=broken.parent)
    assert done.returncode == 1, done.stdout
    assert "BROKEN" in done.stdout
    assert "games.how_to_play -> engine.toy.state" in done.stdout
    assert "games.table" not in done.stdout
