"""Reading the project's Python source in tests."""

from __future__ import annotations

import ast
from pathlib import Path


def parse(path: Path) -> ast.Module:
    """``path``'s syntax tree. CPython 3.11.7 (this machine's) can raise a spurious
    ``SystemError: AST constructor recursion depth mismatch`` when another thread compiles at
    the same moment (a live server's thread importing a module; fixed in 3.11.8): such a
    parse is tried again, a real syntax error is not."""
    text = path.read_text("utf-8")
    for _ in range(4):
        try:
            return ast.parse(text, str(path))
        except SystemError:
            continue
    return ast.parse(text, str(path))
