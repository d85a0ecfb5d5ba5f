"""Files a command line writes and then runs: `echo 'rm x' > s; bash s`, `./s`, a
`Makefile` before `make`, a `package.json` before `npm test`.

Owns: the check over a finished scan's commands and writes (`written_runs`). Must not
touch: how commands, writes or paths are found (the walkers and the resolver do that).

What such a file holds is text the scan saw only as data, so what runs cannot be judged:
the scan is unknown. The check is order-free (a loop or a function may run the file
after the write) and errs toward unknown.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from shellpilot.scanner.scan_result import ScanBuilder
from shellpilot.scanner.wrappers import program_name

SCRIPT_READERS = frozenset(
    {
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "source", ".",
        "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "perl",
        "ruby", "php", "lua", "luajit", "tclsh", "wish", "expect", "Rscript", "awk", "gawk",
        "mawk", "make", "gmake", "run-parts", "pwsh", "osascript", "java", "jshell", "groovy",
    }
)  # fmt: skip
"""Programs that run (or read as code) a file named among their words."""

PROJECT_RUNNERS = frozenset(
    {
        "npm", "yarn", "pnpm", "bun", "make", "gmake", "just", "rake", "cargo", "go", "mvn",
        "gradle", "gradlew", "tox", "nox", "pytest", "py.test", "ant", "ninja", "meson", "cmake",
        "composer", "bundle", "mix", "sbt", "dotnet", "deno", "uv", "poetry", "hatch", "pdm",
        "pip", "pip3",
    }
)  # fmt: skip
"""Programs that run code from files of the directory they run in (manifests, build
files, tests): any file the line writes below that directory may be one. So does
`python -m MODULE` (pytest's conftest.py, a local module)."""

HOOK_FOLDERS = frozenset({".husky", ".githooks", "githooks", ".hooks", "hooks"})
"""Folders whose files git runs as hooks (its own, or where `core.hooksPath` often
points): a line that writes in one and runs git is unknown. Other writes before git
(`echo x > f && git add f`) are its everyday data."""


_LOGS = (".log", ".out", ".err")
"""Written files no runner reads as code (`make > build.log`, `pytest > out.log`)."""


def _places(word: str, cwds: Sequence[str]) -> list[str]:
    if word.startswith("/"):
        return [os.path.normpath(word)]
    return [os.path.normpath(os.path.join(cwd, word)) for cwd in cwds]


def written_runs(builder: ScanBuilder) -> None:
    """Mark the scan unknown when a recorded command runs a file the line writes (see the
    module doc). Reads `builder.commands` and `builder.written()`."""
    writes = [
        w for w in builder.written() if w != "*" and not w.startswith("/dev/") and not w.endswith(_LOGS)
    ]
    if not writes:
        return
    written = set(writes)
    for command in builder.commands:
        argv, cwds = command.argv, command.cwds
        if not argv or not cwds:
            continue
        program = argv[0]
        name = program_name(program)
        if "/" in program and written.intersection(_places(program, cwds)):
            builder.unknown(f"{program} runs a file this command line writes")
            return
        if name in SCRIPT_READERS:
            for word in argv[1:]:
                for place in _places(word, cwds):
                    if place in written or any(w.startswith(place + "/") for w in writes):
                        builder.unknown(f"{name} runs {word}, which this command line writes")
                        return
        if name == "git":
            if any(HOOK_FOLDERS.intersection(w.split("/")) for w in writes):
                builder.unknown("git may run a hook this command line writes")
                return
            continue
        module = name.startswith(("python", "pypy")) and "-m" in argv
        if name in PROJECT_RUNNERS or module or program.endswith("/gradlew"):
            for cwd in cwds:
                inside = cwd.rstrip("/") + "/"
                if any(w.startswith(inside) for w in writes):
                    builder.unknown(f"{name} runs files of {cwd}, where this command line writes")
                    return


__all__ = ["PROJECT_RUNNERS", "SCRIPT_READERS", "written_runs"]
