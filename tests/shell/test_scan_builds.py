"""The compiled scanner (setup.py, mypyc) and its .py sources give the same scans.

Differential: one child process scans with the compiled modules, another with
SHELLPILOT_PURE_PYTHON=1 from the .py files, the same commands in the same project. The commands: the
benchmark corpus, each also wrapped in ways that reach the other code paths, and seeded
random token soups for bash, PowerShell and cmd. Skipped when the scanner is not compiled
(.ci/run insists that it is).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from shellpilot._compiled import scanner_build

CORPUS = Path(__file__).parents[2] / "benchmarks" / "data" / "commands.jsonl"
WRAPS = [
    "sudo {}",
    "FOO=1 {} > out.txt",
    'echo "$({})"',
    "bash -c '{}'",
    "cd /tmp && {}",
    "cd sub && {} 2>&1 | tee log",
    "xargs {}",
    "{} <<EOF\nx\nEOF",
]
# fmt: off
TOKENS = [
    'ls', 'rm', '-rf', 'cd', '/tmp', '..', '~', '$HOME', '$(', ')', '`', "'", '"', '\\', '&&',
    '||', '|', ';', '&', '>', '>>', '<', '2>&1', '{a,b}', '*', '?', '[', ']', 'sudo', 'env', 'X=1',
    'bash', '-c', 'eval', 'find', '.', '-exec', '{}', '\\;', 'xargs', 'cp', 'mv', 'tee', 'sed',
    '-i', 'git', 'init', 'pushd', 'popd', '$((1+2))', '${x:-y}', '\n', '#', '!', '(', '{', '}',
    'if', 'then', 'fi', 'for', 'in', 'do', 'done', 'dd', 'of=/x', 'tar', '-C', '/etc', 'source',
    'pwsh', '-Command', 'time', 'watch', 'trap', 'su', '<(cat)', '>(tee)', '16#$(id)',
    'Remove-Item', '-Path', 'C:\\x', 'del', 'é',
]
# fmt: on


def _commands() -> list[tuple[str, str]]:
    lines = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    cases = [(line, "bash") for line in lines]
    cases += [(wrap.format(line), "bash") for wrap in WRAPS for line in lines[::7]]
    rnd = random.Random(20261130)
    for shell in ("bash", "pwsh", "cmd"):
        for _ in range(700):
            words = rnd.choices(TOKENS, k=rnd.randint(1, 10))
            cases.append(("".join(w + rnd.choice((" ", "", "/")) for w in words), shell))
    return cases


_SCANS = """
import json, sys
from shellpilot.shell.scan import scan
cases, project = json.load(sys.stdin)
out = []
for command, shell in cases:
    s = scan(command, cwd=project, project_dir=project, shell=shell)
    commands = [[c.text, c.argv, c.always, c.dynamic, c.wrappers] for c in s.commands]
    out.append([s.patterns, s.always, s.dirs, s.unknown, s.reasons, commands, s.writes])
json.dump(out, sys.stdout)
"""


def _scans(cases: list[tuple[str, str]], project: Path, *, pure: bool) -> list[list[object]]:
    """Scan `cases` in a child process, from the .py sources when `pure`."""
    env = {**os.environ, "SHELLPILOT_PURE_PYTHON": "1" if pure else "0"}
    child = subprocess.run(
        [sys.executable, "-c", _SCANS],
        input=json.dumps([cases, str(project)]),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: list[list[object]] = json.loads(child.stdout)
    return result


@pytest.mark.skipif(scanner_build() != "compiled", reason="the scanner is not compiled here")
def test_compiled_and_python_scanners_agree(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    cases = _commands()
    pure = _scans(cases, project, pure=True)
    compiled = _scans(cases, project, pure=False)
    assert len(pure) == len(compiled) == len(cases) > 3000
    differing = [case for case, a, b in zip(cases, pure, compiled, strict=True) if a != b]
    assert not differing, differing[:5]
    assert not any("scanner failure" in reason for result in compiled for reason in result[4])  # type: ignore[union-attr]
