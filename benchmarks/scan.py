"""Benchmark: the command scanner's speed, and its cost inside the tool call it serves.

Owns: timing `shellpilot.scanner.scan.scan` over benchmarks/data/commands.jsonl (one JSON
string per line) and `ShellTool.execute` of `true` (allow-all ask) in the same run.
Must not touch: anything but a temp project; prints figures, asserts nothing.

Run: .venv/bin/python benchmarks/scan.py [--rounds N] [--calls N] [--profile]

Prints two figures with their targets:
1. commands/s: the corpus scanned in a temp project, best of N interleaved rounds (wall
   time, time.perf_counter; the machine is shared, so the least disturbed round counts).
   Target >= 20,000/s.
2. the scan's share of a tool call: the mean scan time per corpus command / the median
   wall time of `ShellTool.execute` running `true` with an allow-all ask (which scans,
   asks, spawns the shell and records the result). Target <= 3%.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics
import tempfile
import time
from pathlib import Path

from shellpilot.scanner.scan import scan

CORPUS = Path(__file__).parent / "data" / "commands.jsonl"


def load() -> list[str]:
    """The corpus commands, in file order."""
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


async def tool_call_ms(calls: int, data: Path, project: Path) -> float:
    """Median wall time (ms) of `ShellTool.execute` running `true`, allow-all ask."""
    from shellpilot.config import Config
    from shellpilot.tool import ToolContext, allow_all
    from shellpilot.tool.shell import ShellParams, ShellTool

    tool = ShellTool(Config(), data)
    ctx = ToolContext(session_id="ses_bench", call_id="call_bench", project_dir=project, ask=allow_all)
    params = ShellParams(command="true", description="Does nothing")
    for _ in range(5):  # warm up: grammar load, first spawn
        await tool.execute(params, ctx)
    times: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        await tool.execute(params, ctx)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=15, help="corpus rounds (best counts)")
    parser.add_argument("--calls", type=int, default=200, help="`true` tool calls (median counts)")
    parser.add_argument("--profile", action="store_true", help="print the top functions of one scan pass")
    args = parser.parse_args()
    commands = load()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / "src").mkdir(parents=True)

        def full() -> float:
            start = time.perf_counter()
            for command in commands:
                scan(command, cwd=project, project_dir=project)
            return time.perf_counter() - start

        full()  # warm up: loads the grammar, fills caches
        scan_s = min(full() for _ in range(args.rounds))
        call_ms = asyncio.run(tool_call_ms(args.calls, Path(tmp) / "data", project))
        scan_s = min(scan_s, full())  # (one more round after the calls: same conditions)
        results = [scan(c, cwd=project, project_dir=project) for c in commands]
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(full)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    n = len(commands)
    per_scan_ms = scan_s / n * 1000
    unknown = sum(r.unknown for r in results)
    print(
        f"corpus: {n} commands ({sum(len(c) for c in commands) / n:.0f} chars on average), {unknown} unknown"
    )
    print(f"scan:   {n / scan_s:,.0f} commands/s ({per_scan_ms * 1000:.1f} us each)   target >= 20,000/s")
    print(f"`true` tool call (ShellTool.execute, allow-all): {call_ms:.2f} ms median of {args.calls}")
    print(f"scan share of a tool call: {per_scan_ms / call_ms:.2%}   target <= 3%")


if __name__ == "__main__":
    main()
