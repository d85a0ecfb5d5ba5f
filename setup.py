"""Build hook: compile the command scanner with mypyc; fall back to plain Python.

The scanner judges every shell command a model proposes. Compiled with mypyc it costs
about 2.6x a bare tree-sitter parse instead of about 4.3x as Python (benchmarks/scan.py;
issue 2's target is 3x). Only the modules in `COMPILED` are compiled, from the same sources:
the .py files stay the reference, and the package works without the compiled ones.

- Which modules: `COMPILED` in src/shellpilot/_compiled.py, which also picks the build
  at run time (the .py files run when a compiled module is older than its source).
- `SHELLPILOT_PURE_PYTHON=1` skips compiling (and, at run time, runs the .py files).
- No mypyc, a type error mypyc rejects, or no C compiler: a warning, then plain Python
  (the extensions are optional), never a failed install.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

from setuptools import Extension, setup


def compiled_sources() -> list[str]:
    """The files of `COMPILED` in src/shellpilot/_compiled.py (read, not imported: the
    package's dependencies are not installed while it builds)."""
    tree = ast.parse(Path("src/shellpilot/_compiled.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["COMPILED"]:
            return ["src/" + name.replace(".", "/") + ".py" for name in ast.literal_eval(node.value)]
    raise LookupError("COMPILED not found in src/shellpilot/_compiled.py")


BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}
"""setup.py commands that build extensions (pip runs setup.py three times per install)."""


def remove_compiled() -> None:
    """Delete compiled scanner modules an earlier editable install left beside the sources,
    so that a pure-Python install runs the .py files."""
    for source in compiled_sources():
        for built in Path(source).parent.glob(Path(source).stem + ".*.so"):
            built.unlink()
    for group in Path("src").glob("shellpilot_scanner__mypyc.*.so"):
        group.unlink()


def extensions() -> list[Extension]:
    """The mypyc extensions for COMPILED, or [] when they cannot or should not be built."""
    if os.environ.get("SHELLPILOT_PURE_PYTHON") == "1":
        remove_compiled()
        return []
    if not BUILDING.intersection(sys.argv[1:]):
        return []  # pip's metadata steps (egg_info, dist_info): no need to run mypyc for them
    try:
        from mypyc.build import mypycify

        # Type-check only what is compiled: no project mypy config (it loads the pydantic
        # plugin), imported modules followed silently, missing stubs ignored; whatever the
        # build environment holds. CI type-checks everything with `mypy --strict`.
        options = ["--config-file", os.devnull, "--ignore-missing-imports", "--follow-imports", "silent"]
        built = mypycify([*options, *compiled_sources()], opt_level="3", group_name="shellpilot_scanner")
    except (Exception, SystemExit) as err:  # mypyc exits on type errors: install as Python
        print(f"shellpilot: not compiling the scanner ({type(err).__name__}: {err})", file=sys.stderr)
        return []
    for extension in built:
        extension.optional = True  # a compiler failure installs the Python modules instead
    return built


setup(ext_modules=extensions())
