"""The compiled-scanner switch: SHELLPILOT_PURE_PYTHON=1 loads the .py sources (_compiled.py)."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shellpilot._compiled import COMPILED, _SourcesFirst, choose_build, stale_sources

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


def _fake_build(tmp_path: Path, *, compiled: bool = True) -> Path:
    """A package tree with a .py (and, when `compiled`, a .so) for every COMPILED module."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for name in COMPILED:
        stem = tmp_path.joinpath(*name.split("."))
        stem.parent.mkdir(parents=True, exist_ok=True)
        stem.with_suffix(".py").write_text("")
        os.utime(stem.with_suffix(".py"), (1_000, 1_000))
        if compiled:
            (stem.parent / (stem.name + suffix)).write_bytes(b"")
            os.utime(stem.parent / (stem.name + suffix), (1_001, 1_001))
    return tmp_path / "shellpilot"


def test_stale_sources_lists_sources_edited_after_the_build(tmp_path: Path) -> None:
    package = _fake_build(tmp_path)
    assert stale_sources(str(package)) == []
    edited = package / "shell" / "scan_bash.py"
    os.utime(edited, (1_001 + 1, 1_001 + 1))  # within the slack a wheel install leaves
    assert stale_sources(str(package)) == []
    os.utime(edited, (2_000, 2_000))  # an edit after the build
    assert stale_sources(str(package)) == [str(edited)]
    assert stale_sources(str(_fake_build(tmp_path / "pure", compiled=False))) == []


def test_a_stale_build_runs_the_sources_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SHELLPILOT_PURE_PYTHON", raising=False)  # .ci/run's pure pass sets it
    package = _fake_build(tmp_path)
    os.utime(package / "shell" / "scan.py", (2_000, 2_000))
    before = list(sys.meta_path)
    # (without the finder this process may already run with, if its own build is stale)
    sys.meta_path[:] = [finder for finder in before if not isinstance(finder, _SourcesFirst)]
    try:
        choose_build(str(package))
        added = [finder for finder in sys.meta_path if isinstance(finder, _SourcesFirst)]
        assert len(added) == 1
        spec = added[0].find_spec("shellpilot.shell.scan", [str(package / "shell")])
        assert spec is not None and spec.origin == str(package / "shell" / "scan.py")
    finally:
        sys.meta_path[:] = before
    err = capsys.readouterr().err
    assert "scan.py changed after the scanner was compiled" in err and "pip install -e ." in err
