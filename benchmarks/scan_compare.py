"""Carry a saved oracle campaign's verdicts over to newer scanner code.

Run: ``python benchmarks/scan_compare.py --old OLD_SRC --save j.jsonl [--new NEW_SRC]``.

``OLD_SRC`` is the ``src`` folder of the code the campaign ran on (a ``git worktree`` of
that commit); ``NEW_SRC`` defaults to this checkout's ``src``. Every command of the
campaign's ``--save`` file is scanned by both, in one oracle fixture, each in a process of
its own. The script prints each command where the new scan sees less than the old one:
no longer unknown, or a write, an outside directory or a command the old scan had and the
new one lacks (writes and commands only count while the new scan is not unknown).

When there is none, the campaign's verdicts hold for the new code as they are: a false
negative is always something a scan lacks (a command, a write, a directory), so a scan
that lacks nothing the old one had cannot add one. The commands the campaign found as
false negatives still have to be checked again (``Oracle.check``): those the new code
was changed for. Exit status 1 when some command sees less.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

Record = tuple[bool, frozenset[str], frozenset[str], frozenset[str]]
"""What one scan says: (unknown, writes, dirs, commands as argv joined by spaces)."""


def scan_all(fixture_root: Path, save: Path, out: Path) -> None:
    """Scan each distinct command of ``save`` in the fixture under ``fixture_root``
    (built on first use) with the ``shellpilot`` on ``sys.path``; one JSON line each."""
    from shellpilot.oracle.fixture import Fixture
    from shellpilot.scanner.scan import scan

    fixture = Fixture(fixture_root / "tree", hostile=True)
    if not fixture.project.exists():
        fixture.build()
    os.environ["HOME"] = str(fixture.home)  # (the oracle scans with the fixture's home)
    project = fixture.project
    seen: set[str] = set()
    with save.open(encoding="utf-8") as lines, out.open("w", encoding="utf-8") as sink:
        for line in lines:
            if not line.strip():
                continue
            command = json.loads(line)["command"]
            if command in seen:
                continue
            seen.add(command)
            found = scan(command, cwd=project, project_dir=project, shell="bash")
            argvs = sorted({" ".join(c.argv) for c in found.commands})
            row = [command, found.unknown, sorted(found.writes), sorted(found.dirs), argvs]
            sink.write(json.dumps(row) + "\n")


def read(path: Path) -> dict[str, Record]:
    """The records ``scan_all`` wrote, by command."""
    records: dict[str, Record] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            command, unknown, writes, dirs, argvs = json.loads(line)
            records[command] = (unknown, frozenset(writes), frozenset(dirs), frozenset(argvs))
    return records


def lost(old: Record, new: Record) -> list[str]:
    """What the new scan of one command lacks that the old one had (empty: nothing)."""
    old_unknown, old_writes, old_dirs, old_argvs = old
    unknown, writes, dirs, argvs = new
    found: list[str] = []
    if old_unknown and not unknown:
        found.append("no longer unknown")
    if not unknown and not old_writes <= writes:
        found.append(f"writes {sorted(old_writes - writes)[:3]}")
    if not old_dirs <= dirs:
        found.append(f"dirs {sorted(old_dirs - dirs)[:3]}")
    if not unknown and not old_argvs <= argvs:
        found.append(f"commands {sorted(old_argvs - argvs)[:3]}")
    return found


def _scan_in(src: Path, fixture_root: Path, save: Path, out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(src)}
    argv = [
        sys.executable,
        __file__,
        "--scan-into",
        str(out),
        "--fixture",
        str(fixture_root),
        "--save",
        str(save),
    ]
    subprocess.run(argv, env=env, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", type=Path, required=True, help="a campaign's --save file (JSON lines)")
    parser.add_argument("--old", type=Path, help="src folder of the code the campaign ran on")
    parser.add_argument("--new", type=Path, default=Path(__file__).resolve().parent.parent / "src")
    parser.add_argument("--scan-into", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--fixture", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scan_into is not None:  # (the child: scan with the shellpilot on PYTHONPATH)
        scan_all(args.fixture, args.save, args.scan_into)
        return 0
    if args.old is None:
        parser.error("--old SRC is required")
    with tempfile.TemporaryDirectory(prefix="shellpilot-scan-compare-") as tmp:
        root = Path(tmp)
        _scan_in(args.old, root / "fixture", args.save, root / "old.jsonl")
        _scan_in(args.new, root / "fixture", args.save, root / "new.jsonl")
        old, new = read(root / "old.jsonl"), read(root / "new.jsonl")
    worse = {c: lost(old[c], new[c]) for c in old if c in new}
    worse = {c: what for c, what in worse.items() if what}
    for command, what in list(worse.items())[:50]:
        print(f"{command!r}: {'; '.join(what)}")
    print(f"commands compared:  {len(old):,}")
    print(f"new scan sees less: {len(worse):,}")
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
