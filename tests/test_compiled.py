"""The compiled-scanner switch: SHELLPILOT_PURE_PYTHON=1 loads the .py sources (_compiled.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shellpilot._compiled import stale_compiled

_PROBE = (
    "import sys\n"
    "import shellpilot.shell.scan_bash as m, shellpilot.permission.arity as a\n"
    "from shellpilot._compiled import scanner_build\n"
    "from shellpilot.shell.scan import scan\n"
    "s = scan(f'cd {sys.argv[1]} && rm -rf x', cwd=sys.argv[2], project_dir=sys.argv[2])\n"
    "print(m.__file__, a.__file__, scanner_build(), s.patterns, s.dirs, s.writes, sep='|')"
)


def _probe(tmp_path: Path, pure: str) -> list[str]:
    env = {**os.environ, "SHELLPILOT_PURE_PYTHON": pure}
    args = [sys.executable, "-c", _PROBE, str(tmp_path / "out"), str(tmp_path / "proj")]
    return subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout.strip().split("|")


def test_pure_python_switch_loads_sources_and_scans_the_same(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    scan_bash, arity, build, *result = _probe(tmp_path, "1")
    assert scan_bash.endswith("scan_bash.py") and arity.endswith("arity.py") and build == "python"
    out = tmp_path / "out"
    assert result == ["['rm -rf x']", f"['{out}']", f"['{out / 'x'}']"]
    scan_bash, _arity, build, *default = _probe(tmp_path, "0")  # whatever the install built
    assert build == ("python" if scan_bash.endswith(".py") else "compiled")
    assert default == result


def test_stale_compiled_finds_sources_edited_after_the_build(tmp_path: Path) -> None:
    for name in ("fresh", "edited"):
        (tmp_path / f"{name}.py").write_text("x = 1\n")
        (tmp_path / f"{name}.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (tmp_path / "plain.py").write_text("")  # never compiled: fine
    os.utime(tmp_path / "fresh.py", (1_000, 1_000))
    os.utime(tmp_path / "edited.cpython-311-x86_64-linux-gnu.so", (1_000, 1_000))
    assert stale_compiled(str(tmp_path)) == [str(tmp_path / "edited.py")]
