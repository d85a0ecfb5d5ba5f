"""The switch between the mypyc-compiled scanner and its Python sources.

Owns: `SHELLPILOT_PURE_PYTHON=1` at run time (load every shellpilot module from its .py
file even where a compiled one sits beside it) and telling which build is loaded.
Must not touch: what any module does; setup.py decides what is compiled at install.

Why: setup.py compiles the command scanner with mypyc (about 1.6x faster; the .py files
stay the reference). An editable install puts the compiled modules beside the sources and
Python prefers them, so an edited .py would be ignored until the next install; with this
variable set it is used at once. Tests also run the scanner this way (.ci/run).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from types import ModuleType

PURE_ENV = "SHELLPILOT_PURE_PYTHON"


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds `shellpilot.*` modules as their .py file when one exists on the package path."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None or not fullname.startswith("shellpilot."):
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            source = os.path.join(entry, leaf + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None  # a package, or not ours: the normal finders decide


def prefer_sources() -> None:
    """Load shellpilot's modules from their .py files from now on (idempotent).

    Called by `shellpilot/__init__.py` when `SHELLPILOT_PURE_PYTHON=1`, before any
    submodule is imported; modules already imported stay as they are.
    """
    if not any(isinstance(finder, _SourcesFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourcesFirst())


def scanner_build() -> str:
    """`"compiled"` when the scanner loaded (or would load) from a mypyc build, else `"python"`."""
    spec = importlib.util.find_spec("shellpilot.shell.scan_bash")
    origin = spec.origin if spec is not None else None
    return "python" if origin is None or origin.endswith(".py") else "compiled"


def stale_compiled(root: str) -> list[str]:
    """The .py files under `root` edited after their compiled module was built (sorted).

    An editable install compiles beside the sources, and Python loads the compiled module,
    so such an edit is silently ignored; tests/conftest.py stops a test run on any.
    """
    stale = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith((".so", ".pyd")):
                source = os.path.join(folder, name.split(".", 1)[0] + ".py")
                if os.path.exists(source) and os.path.getmtime(source) > os.path.getmtime(
                    os.path.join(folder, name)
                ):
                    stale.append(source)
    return sorted(stale)
