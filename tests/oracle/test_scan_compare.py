"""benchmarks/scan_compare.py: carrying a campaign's verdicts to newer scanner code."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "scan_compare.py"
SRC = Path(__file__).resolve().parents[2] / "src"
pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scan_compare", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_what_a_newer_scan_lacks_is_named() -> None:
    lost = _module().lost
    old = (False, frozenset({"/p/a"}), frozenset({"/o"}), frozenset({"rm a"}))
    assert lost(old, old) == []
    assert lost(old, (True, frozenset({"*"}), frozenset({"/o"}), frozenset())) == []  # unknown covers
    assert lost(old, (False, frozenset(), frozenset({"/o"}), frozenset({"rm a"}))) == ["writes ['/p/a']"]
    assert lost(old, (True, frozenset(), frozenset(), frozenset())) == ["dirs ['/o']"]
    assert lost((True, *old[1:]), old) == ["no longer unknown"]


def _save(tmp_path: Path, commands: list[str]) -> Path:
    save = tmp_path / "j.jsonl"
    save.write_text("".join(json.dumps({"command": c, "findings": []}) + "\n" for c in commands))
    return save


def test_the_same_code_sees_no_less(tmp_path: Path) -> None:
    save = _save(tmp_path, ["ls src", "cat docs/secret.txt > out", "rm -rf build"])
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--old", str(SRC), "--new", str(SRC), "--save", str(save)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "commands compared:  3" in done.stdout and "new scan sees less: 0" in done.stdout


def test_a_scan_that_lost_a_directory_is_reported(tmp_path: Path) -> None:
    # the "old" code: this source with a scanner that also names /elsewhere for every command
    old = tmp_path / "old"
    shutil.copytree(SRC, old, ignore=shutil.ignore_patterns("__pycache__"))
    scan_py = old / "shellpilot" / "scanner" / "scan.py"
    scan_py.write_text(
        scan_py.read_text()
        + "\n\n_plain_scan = scan\n\n\ndef scan(*args, **kwargs):  # type: ignore[no-redef]\n"
        + "    import dataclasses\n\n    found = _plain_scan(*args, **kwargs)\n"
        + "    return dataclasses.replace(found, dirs=(*found.dirs, '/elsewhere'))\n"
    )
    save = _save(tmp_path, ["ls src"])
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--old", str(old), "--new", str(SRC), "--save", str(save)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "'ls src': dirs ['/elsewhere']" in done.stdout
