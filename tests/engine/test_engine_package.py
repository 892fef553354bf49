"""The engine is an installable package.

The wheel that pyproject.toml builds is installed into an empty folder and run with no
site-packages and from outside the checkout, so `python -m engine` has to find its code and its
card data in the installed package alone (and needs no third-party package at all).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _build_wheel(tmp_path: Path) -> Path:
    """Builds from a copy holding only what the build reads, so no build litter lands in the checkout."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "engine", src / "engine", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    dist = tmp_path / "dist"
    # No build isolation: the build backend comes from the locked dev requirements, not the network.
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(dist),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("pirates_by_mail-*.whl")
    return wheel


def test_the_wheel_runs_python_m_engine_outside_the_checkout(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    assert "engine/pirates/data/pirates-2021-estimate.json" in names
    assert "engine/py.typed" in names
    # Only the engine is packaged; the Django project runs from the checkout or the image.
    assert not [n for n in names if n.split("/")[0] in {"games", "pirates_site", "tests"}]

    site = tmp_path / "site"
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "PYTHONNOUSERSITE": "1"}

    def engine(*args: str) -> subprocess.CompletedProcess[str]:
        # -S: no site-packages, so neither the venv's packages nor the checkout can stand in.
        return subprocess.run(
            [sys.executable, "-S", "-m", "engine", *args],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    where = subprocess.run(
        [sys.executable, "-S", "-c", "import engine; print(engine.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)

    played = engine("play", "--rules", "pirates", "--seed", "packaged", "--log", "game.jsonl")
    assert played.returncode == 0, played.stderr
    assert any(line.startswith("Final scores: Red ") for line in played.stdout.splitlines())
    events = [json.loads(line) for line in (elsewhere / "game.jsonl").read_text("utf-8").splitlines()]
    assert events[0]["payload"]["seed"] == "packaged"

    replayed = engine("replay", "game.jsonl")
    assert replayed.returncode == 0, replayed.stderr
    assert "The recorded result matches the replay." in replayed.stdout
