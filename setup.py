"""Build hook: compile the command scanner with mypyc; fall back to plain Python.

The scanner judges every shell command a model proposes. Compiled with mypyc it costs
about 2.8x a bare tree-sitter parse instead of about 4.4x as Python (benchmarks/scan.py;
issue 2's target is 3x). Only the modules below are compiled, from the same sources:
the .py files stay the reference, and the package works without the compiled ones.

- `SHELLPILOT_PURE_PYTHON=1` skips compiling. An editable install puts the compiled
  modules beside the .py files and Python prefers them, so while editing the scanner
  either reinstall after each change or install with this set (tests/conftest.py stops
  a test run whose compiled modules are older than their sources).
- No mypyc, a type error mypyc rejects, or no C compiler: a warning, then plain Python
  (the extensions are optional), never a failed install.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup

COMPILED = [
    "src/shellpilot/permission/arity.py",
    "src/shellpilot/shell/bash_nesting.py",
    "src/shellpilot/shell/bash_words.py",
    "src/shellpilot/shell/scan.py",
    "src/shellpilot/shell/scan_bash.py",
    "src/shellpilot/shell/scan_paths.py",
    "src/shellpilot/shell/scan_result.py",
    "src/shellpilot/shell/scan_writes.py",
    "src/shellpilot/shell/words.py",
    "src/shellpilot/shell/wrappers.py",
]


def extensions() -> list[Extension]:
    """The mypyc extensions for COMPILED, or [] when they cannot or should not be built."""
    if os.environ.get("SHELLPILOT_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify

        # Type-check only what is compiled: no project mypy config (it loads the pydantic
        # plugin), imported modules followed silently, missing stubs ignored; whatever the
        # build environment holds. CI type-checks everything with `mypy --strict`.
        options = ["--config-file", os.devnull, "--ignore-missing-imports", "--follow-imports", "silent"]
        built = mypycify([*options, *COMPILED], opt_level="3", group_name="shellpilot_scanner")
    except (Exception, SystemExit) as err:  # mypyc exits on type errors: install as Python
        print(f"shellpilot: not compiling the scanner ({type(err).__name__}: {err})", file=sys.stderr)
        return []
    for extension in built:
        extension.optional = True  # a compiler failure installs the Python modules instead
    return built


setup(ext_modules=extensions())
