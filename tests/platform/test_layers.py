"""The import contracts in pyproject.toml ([tool.importlinter]): the engine imports nothing of
the project; the ways in (views, API, inbound mail, tasks, commands) sit above mail and
reads, which sit above the services, then the side effects, the outbox, the read model and the
models; the selectors never import the services; and no module or package of games/ is part
of an import cycle, imports inside functions included."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

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
