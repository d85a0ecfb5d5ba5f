"""Benchmark: what a user waits for before shellpilot starts working, as whole processes.

Prints the median wall time (RUNS runs each, default 15) of:
1. ``python3 -c "import sys"``: the interpreter alone, the floor;
2. ``shellpilot --version`` (target: at most 2x the floor);
3. ``shellpilot shell true`` (target: at most 150 ms), a direct shell in a fresh data dir;
4. ``shellpilot run hi`` up to the moment ``ScriptedModelServer`` receives its first request
   (OpenAI-compatible provider; target: at most 400 ms);
5. where ``shell true``'s imports go: ``-X importtime`` self times summed by top-level package
   (``pydantic``, ``asyncio``, ``click``, ``shellpilot``...), medians in ms and their share of
   all import time, so a change of start-up shows which library it moved.

The bytecode cache is used as users have it: PYTHONDONTWRITEBYTECODE is removed from the
children's environment, and one warm-up run of each precedes the timed runs. CPU time (user +
system, of the child and its own children) is printed beside wall time: on a shared machine it
moves less with the load than wall time does.

Usage: ``python benchmarks/startup.py [--runs N] [--entry MODULE:FUNCTION]`` (the shellpilot on
``sys.path`` is measured).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.testing import RecordedRequest, ScriptedModelServer, Turn

PY = sys.executable


def _launcher(entry: str) -> list[str]:
    """What pip's console script for ``module:function`` runs (its launcher imports re too)."""
    module, function = entry.split(":")
    return [PY, "-c", f"import re, sys; from {module} import {function}; sys.exit({function}())"]


FLOOR_LABEL = 'python3 -c "import sys"'


def _env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "OPENAI_API_KEY")}
    env["SHELLPILOT_DATA_DIR"] = str(base / "data")
    env["SHELLPILOT_CONFIG_DIR"] = str(base / "config")
    env["SHELLPILOT_TRUST_PROJECT"] = "1"
    return env


def _cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _median_ms(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``argv``, in ms."""
    subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True)  # warm the caches
    times, cpu = [], []
    for _ in range(runs):
        started, cpu_before = time.perf_counter(), _cpu_s()
        subprocess.run(argv, env=env, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
        cpu.append(_cpu_s() - cpu_before)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000


def _first_request_ms(shellpilot: list[str], env: dict[str, str], project: Path, runs: int) -> float:
    """Median time from spawning ``shellpilot run`` to its first request reaching the server."""
    arrivals: list[float] = []

    def answer(_: RecordedRequest) -> Turn:
        arrivals.append(time.perf_counter())
        return Turn(text="ok")

    times = []
    with ScriptedModelServer() as server:
        config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/bench"}
        (project / "shellpilot.json").write_text(json.dumps(config))
        argv = [*shellpilot, "run", "hi", "--dir", str(project)]
        for i in range(runs + 1):
            server.add(answer)
            started = time.perf_counter()
            subprocess.run(argv, env=env, cwd=project, check=True, capture_output=True)
            if i > 0:  # the first run warms the caches
                times.append(arrivals[-1] - started)
    return statistics.median(times) * 1000


def _import_ms(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> dict[str, float]:
    """Median ``-X importtime`` self time (ms) per top-level package over ``runs`` runs of
    ``argv`` (a ``python -c`` launcher); key ``""`` is the sum over all packages."""
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        done = subprocess.run(
            [argv[0], "-X", "importtime", *argv[1:]], env=env, cwd=cwd, capture_output=True, text=True
        )
        totals: dict[str, float] = {"": 0.0}
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            self_us, _, name = (part.strip() for part in line[len("import time:") :].split("|"))
            if not self_us.isdigit():
                continue  # the header line
            top = name.split(".")[0].lstrip("_") or name
            totals[top] = totals.get(top, 0.0) + int(self_us) / 1000
            totals[""] += int(self_us) / 1000
        for key, value in totals.items():
            samples.setdefault(key, []).append(value)
    return {key: statistics.median(values + [0.0] * (runs - len(values))) for key, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--entry",
        default="shellpilot.cli:main",
        help="the console script's module:function (pyproject [project.scripts]; older trees: "
        "shellpilot.cli.app:main)",
    )
    args = parser.parse_args()
    shellpilot = _launcher(args.entry)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "project"
        project.mkdir()
        env = _env(base)
        floor, floor_cpu = _median_ms([PY, "-c", "import sys"], env, project, args.runs)
        version, version_cpu = _median_ms([*shellpilot, "--version"], env, project, args.runs)
        shell, shell_cpu = _median_ms([*shellpilot, "shell", "true"], env, project, args.runs)
        run = _first_request_ms(shellpilot, env, project, args.runs)
        imports = _import_ms([*shellpilot, "shell", "true"], env, project, max(3, args.runs // 3))
    print(f"median of {args.runs} whole-process runs (bytecode cache on); wall time, then CPU time")
    print(f"{FLOOR_LABEL:<34} {floor:7.1f} ms  cpu {floor_cpu:6.1f} ms")
    print(
        f"{'shellpilot --version':<34} {version:7.1f} ms  cpu {version_cpu:6.1f} ms  "
        f"{version / floor:4.2f}x the floor (target <= 2x)"
    )
    print(
        f"{'shellpilot shell true':<34} {shell:7.1f} ms  cpu {shell_cpu:6.1f} ms  "
        f"{shell / floor:4.1f}x the floor (target <= 150 ms)"
    )
    print(
        f"{'shellpilot run: first request':<34} {run:7.1f} ms  {'':13}"
        f"{run / floor:4.1f}x the floor (target <= 400 ms)"
    )
    total = imports.pop("")
    print(f"shell true's imports (-X importtime self time, median): {total:.1f} ms in all")
    for name, ms in sorted(imports.items(), key=lambda item: -item[1])[:12]:
        print(f"  {name:<20} {ms:7.1f} ms  {ms / total:6.1%}")


if __name__ == "__main__":
    main()
