"""What the Python versions rollbridge supports ask of its source (README.md and
docs/operations.md, "Python versions")."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Every folder of Python the repository holds (the package's three and the rest).
FOLDERS = ("core", "plugins", "adapters", "tests", "benchmarks", "examples")
DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def docstrings() -> Iterator[tuple[str, str]]:
    """Each docstring of the repository's Python files, as written, with where it is."""
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            tree = ast.parse(path.read_bytes(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, DOCUMENTED):
                    text = ast.get_docstring(node, clean=False)
                    if text is not None:
                        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}"
                        yield where, text


def test_every_docstring_can_be_written_as_utf8() -> None:
    """CPython 3.13 strips a docstring's indentation as it compiles, through UTF-8: a
    docstring holding a lone surrogate (an escape such as ``\\ud800`` in a docstring
    that is not raw) stops the module's compilation with a ``UnicodeEncodeError``, so
    the module does not import there (``rollbridge.cli`` did not: no command ran on
    3.13). Python 3.11 and 3.12 compile it; this check fails on each version."""
    found = []
    for where, text in docstrings():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            found.append(f"{where}: {text[max(error.start - 30, 0) : error.end + 10]!r}")
    assert not found, f"docstrings with a lone surrogate: {found}"
