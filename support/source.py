"""The project's own source files parsed once a test process: the checks that read the code (imports, colours,
numbers, messages, Streamlit's internals) walk the same files, several times a file each."""

from __future__ import annotations

import ast
import functools
from pathlib import Path


def tree(path: Path | str) -> ast.Module:
    """``path``'s syntax tree, parsed once while the file stays as it is (read only: it is shared)."""
    path = Path(path)
    stat = path.stat()
    return _parsed(str(path), stat.st_size, stat.st_mtime_ns)


@functools.cache
def _parsed(path: str, size: int, mtime_ns: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), path)
