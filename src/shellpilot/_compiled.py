"""The switch between the mypyc-compiled scanner and its Python sources.

Owns: `COMPILED` (the modules setup.py compiles), choosing at import time whether the
compiled modules or the .py files run, and telling which build is loaded.
Must not touch: what any module does; setup.py does the compiling.

Why: setup.py compiles the command scanner with mypyc (about 1.6x faster; the .py files
stay the reference). An editable install puts the compiled modules beside the sources and
Python prefers them, so an edited .py would be ignored until the next install. Instead,
shellpilot runs every module from its .py file when `SHELLPILOT_PURE_PYTHON=1` is set, or
when a compiled module is older than its source (with a warning on stderr: reinstall to
compile again). All or nothing: compiled modules call each other directly, so a mix would
still run the old code.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
from collections.abc import Sequence
from types import ModuleType

# Start-up matters here: no importlib.abc (it pulls in importlib.resources, pathlib, re,
# tempfile: ~25 ms; a finder only needs a `find_spec` method), importlib.util when used.

PURE_ENV = "SHELLPILOT_PURE_PYTHON"

COMPILED = (
    "shellpilot.permission.arity",
    "shellpilot.shell.bash_nesting",
    "shellpilot.shell.bash_words",
    "shellpilot.shell.scan",
    "shellpilot.shell.scan_bash",
    "shellpilot.shell.scan_paths",
    "shellpilot.shell.scan_result",
    "shellpilot.shell.scan_writes",
    "shellpilot.shell.words",
    "shellpilot.shell.wrappers",
)
"""The modules setup.py compiles with mypyc (it reads this tuple from this file)."""

_SLACK_S = 2.0
"""How much newer (s) a source may be than its compiled module and still count as built
with it: installing a wheel writes both, in either order, within moments."""


class _SourcesFirst:
    """A `sys.meta_path` finder: `shellpilot.*` modules as their .py file when one exists."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if path is None or not fullname.startswith("shellpilot."):
            return None
        leaf = fullname.rpartition(".")[2]
        for entry in path:
            source = os.path.join(entry, leaf + ".py")
            if os.path.isfile(source):
                import importlib.util  # only once the switch is on

                return importlib.util.spec_from_file_location(fullname, source)
        return None  # a package, or not ours: the normal finders decide


def prefer_sources() -> None:
    """Load shellpilot's modules from their .py files from now on (idempotent).

    Modules already imported stay as they are: call before any compiled module loads.
    """
    if not any(isinstance(finder, _SourcesFirst) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourcesFirst())


def _stem(package_dir: str, module: str) -> str:
    """The path of `module` without its suffix (`.py`, or the compiled module's
    `importlib.machinery.EXTENSION_SUFFIXES[0]`), for the package in `package_dir`."""
    return os.path.join(os.path.dirname(package_dir), *module.split("."))


def stale_sources(package_dir: str) -> list[str]:
    """The sources of `COMPILED` edited after their compiled module was built.

    `package_dir`: the directory of the `shellpilot` package. `[]` when the scanner is
    not compiled there. About 20 stat calls: cheap enough for every start-up.
    """
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    stale = []
    for name in COMPILED:
        stem = _stem(package_dir, name)
        try:
            built = os.stat(stem + suffix).st_mtime
        except OSError:
            return []  # not compiled (the build compiles all of COMPILED or none)
        if os.stat(stem + ".py").st_mtime > built + _SLACK_S:
            stale.append(stem + ".py")
    return stale


def choose_build(package_dir: str) -> None:
    """Run the .py sources instead of the compiled modules when asked or when stale.

    Called by `shellpilot/__init__.py` before any submodule loads. A stale build is
    reported once, on stderr, with the fix.
    """
    if os.environ.get(PURE_ENV) == "1":
        prefer_sources()
        return
    stale = stale_sources(package_dir)
    if stale:
        prefer_sources()
        names = ", ".join(os.path.relpath(path) for path in stale[:3]) + (", ..." if len(stale) > 3 else "")
        print(
            f"shellpilot: {names} changed after the scanner was compiled; running the .py "
            f"sources (slower). Reinstall (pip install -e .) to compile them again (pip "
            f"install -v -e . shows why, if that fails), or set {PURE_ENV}=1 to always run "
            f"the sources.",
            file=sys.stderr,
        )


def scanner_build() -> str:
    """`"compiled"` when the scanner runs (or will run) from a mypyc build, else `"python"`.

    Imports nothing (`--version` uses it): looks at the loaded module, else at the files.
    """
    module = sys.modules.get("shellpilot.shell.scan_bash")
    if module is not None:
        origin = getattr(module, "__file__", None) or ""
    elif any(isinstance(finder, _SourcesFirst) for finder in sys.meta_path):
        origin = "scan_bash.py"
    else:
        stem = _stem(os.path.dirname(__file__), "shellpilot.shell.scan_bash")
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        origin = stem + suffix if os.path.exists(stem + suffix) else stem + ".py"
    return "python" if origin.endswith(".py") else "compiled"
