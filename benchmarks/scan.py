"""Benchmark: the command scanner against bare tree-sitter parsing over a corpus.

Owns: timing `shellpilot.scanner.scan` on benchmarks/data/commands.jsonl (one JSON string
per line). Must not touch: anything but reading the corpus; prints figures, asserts nothing.

Run: .venv/bin/python benchmarks/scan.py [--rounds N] [--profile]
Times are CPU time of this process (time.process_time), best of N interleaved rounds
(default 15: on a shared 2-core box single rounds vary by 25%), so that other load skews
the ratio less; both sides call the same `parse()` with the same reused parser.
Targets: >= 5,000 commands/s and full scan <= 3x bare parse. The scanner is
measured as installed: compiled by mypyc (setup.py) unless SHELLPILOT_PURE_PYTHON=1.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import tempfile
import time
from pathlib import Path

from shellpilot._compiled import scanner_build

from shellpilot.scanner.parse import parse
from shellpilot.scanner.scan import scan

CORPUS = Path(__file__).parent / "data" / "commands.jsonl"


def load() -> list[str]:
    """The corpus commands, in file order."""
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def best_of(rounds: int, fn: object) -> float:
    """Least CPU time (s) of `rounds` calls of `fn` (a no-argument callable)."""
    assert callable(fn)
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--profile", action="store_true", help="print the top functions of one scan pass")
    args = parser.parse_args()
    commands = load()
    encoded = [c.encode() for c in commands]
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / "src").mkdir(parents=True)

        def bare() -> None:
            for data in encoded:
                parse(data, "bash")

        def full() -> None:
            for command in commands:
                scan(command, cwd=project, project_dir=project)

        full()  # warm-up: loads the grammar, fills caches
        # Interleave the two so that load from other processes hits both alike.
        parse_s = scan_s = float("inf")
        for _ in range(args.rounds):
            parse_s = min(parse_s, best_of(1, bare))
            scan_s = min(scan_s, best_of(1, full))
        results = [scan(c, cwd=project, project_dir=project) for c in commands]
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(full)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
    n = len(commands)
    unknown = sum(r.unknown for r in results)
    print(f"scanner build: {scanner_build()} (setup.py; SHELLPILOT_PURE_PYTHON=1 runs the .py sources)")
    print(f"corpus: {n} commands ({sum(len(c) for c in commands) / n:.0f} chars on average)")
    print(f"bare tree-sitter parse: {n / parse_s:,.0f} commands/s ({parse_s / n * 1e6:.1f} us each)")
    print(f"full scan:              {n / scan_s:,.0f} commands/s ({scan_s / n * 1e6:.1f} us each)")
    print(
        f"ratio full scan / bare parse: {scan_s / parse_s:.2f}x  (target <= 3x; target >= 5,000 commands/s)"
    )
    print(f"commands marked unknown: {unknown} ({unknown / n:.0%})")


if __name__ == "__main__":
    main()
