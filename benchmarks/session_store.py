"""Benchmark: what recording a user shell in the session store costs.

1. Store writes caused by one command printing SIZE bytes (default 100 MB) through
   ``SessionService.shell`` (coalesced live updates: the target is a handful of writes per
   second of running, independent of the output size), with the wall time and the
   runner's preview calls for comparison.
2. Wall time of the whole process ``shellpilot shell true`` (median of RUNS, default 20),
   beside ``python -c pass`` and ``shellpilot --version`` for scale.

Usage: ``python benchmarks/session_store.py [--size BYTES] [--runs N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.paths import store_path
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore


async def _big_output(size: int, base: Path) -> None:
    data = base / "data"
    project = base / "project"
    project.mkdir()
    store = SessionStore(store_path(data))
    bus = Bus()
    service = SessionService(store, bus, Config(), data, RunState(bus, lease=store))
    session = service.create(project)
    previews = 0

    def count(_: str) -> None:
        nonlocal previews
        previews += 1

    before = store.writes
    started = time.perf_counter()
    _, part = await service.shell(session.id, f"yes {'a' * 99} | head -c {size}", on_output=count)
    wall = time.perf_counter() - started
    writes = store.writes - before
    meta = part.state.metadata  # type: ignore[union-attr]
    print(f"output: {meta['total_bytes'] / 1e6:.1f} MB in {wall:.2f} s (truncated={meta['truncated']})")
    print(f"store writes for the whole command: {writes} (of which setup+final: 6)")
    live = writes - 6  # user message, text part, assistant message, running part, final part+message
    print(f"live previews received: {previews}; coalesced live writes: {live}")
    print(f"writes per second of running: {writes / wall:.1f}")
    store.close()


def _median_wall(argv: list[str], runs: int, cwd: Path, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _startup(runs: int, base: Path) -> None:
    project = base / "startup"
    project.mkdir()
    env = {**os.environ, "SHELLPILOT_DATA_DIR": str(base / "startup-data")}
    exe = Path(sys.executable).with_name("shellpilot")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "shellpilot"]
    bare = _median_wall([sys.executable, "-c", "pass"], runs, project, env)
    version = _median_wall([*cli, "--version"], runs, project, env)
    shell = _median_wall([*cli, "shell", "true"], runs, project, env)
    print(f"python -c pass:         median {bare * 1000:.0f} ms")
    print(f"shellpilot --version:   median {version * 1000:.0f} ms")
    print(f"shellpilot shell true:  median {shell * 1000:.0f} ms of {runs} runs (whole process)")
    print(f"ratio shell true / --version: {shell / version:.2f}; / bare python: {shell / bare:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=100 * 1000 * 1000, help="bytes of output")
    parser.add_argument("--runs", type=int, default=20, help="runs of `shellpilot shell true`")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        asyncio.run(_big_output(args.size, base))
        _startup(args.runs, base)


if __name__ == "__main__":
    main()
