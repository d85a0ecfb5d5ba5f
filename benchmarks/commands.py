"""Command system speed: registry load, ``command list`` as a whole process, template expansion.

Run: ``python benchmarks/commands.py [--files 10000] [--runs 5]``. Prints figures and the ratio
to each target:
- in-process registry load of 1,000 markdown files, shellpilot and Claude Code layouts
  (target < 300 ms);
- ``shellpilot command list`` over a project of FILES command files, as a whole process with
  the bytecode cache on: cold (a fresh data dir, so no parse cache) and warm (the same data
  dir again, files unchanged); target <= 200 ms warm;
- expansion of a 12-placeholder template (target < 1 ms, no shell blocks).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.command.model import Command
from shellpilot.command.registry import CommandRegistry
from shellpilot.command.substitution import substitute
from shellpilot.command.template import ExpandContext, expand
from shellpilot.config.model import Config
from shellpilot.tool.base import allow_all

FILES = 1_000
LOAD_TARGET_MS = 300.0
EXPAND_TARGET_MS = 1.0
LIST_TARGET_MS = 200.0


def make_files(root: Path, count: int = FILES, *, clean: bool = False) -> None:
    """``count`` markdown commands in 20 folders; unless ``clean``, each description holds an
    unquoted colon (strict YAML fails, the sanitiser runs, each file gets a load warning)."""
    for i in range(count):
        folder = root / ".shellpilot" / "command" / f"group{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        description = f'"Command number {i}: does things"' if clean else f"Command number {i}: does things"
        (folder / f"cmd{i}.md").write_text(
            "---\n"
            f"description: {description}\n"
            "agent: build\n"
            "subtask: false\n"
            "---\n"
            f"Do task {i} with $1 and $2, then $ARGUMENTS.\n" * 3,
            encoding="utf-8",
        )


CLAUDE_BODY = (
    "---\ndescription: Review a PR\nallowed-tools: Bash(gh pr view:*), Bash(git diff:*)\n"
    "argument-hint: [pr-number]\n---\n"
    "Review PR #$1. Context: !`gh pr view $1`\n\n"
    "```sql\nSELECT * FROM t WHERE id = $1;\n```\n- `#REF!`: bad cell\n- Price: $5,000\n" * 3
)


def make_claude_files(root: Path) -> None:
    for i in range(FILES):
        folder = root / ".claude" / "commands" / f"group{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"cmd{i}.md").write_text(CLAUDE_BODY, encoding="utf-8")


def bench_load(root: Path, rounds: int = 5) -> list[float]:
    times: list[float] = []
    for _ in range(rounds):
        registry = CommandRegistry(root, Config(), config_dir=root / "no-user-config")
        started = time.perf_counter()
        names = registry.load_files()
        times.append((time.perf_counter() - started) * 1000)
        assert len(names) == FILES + 2, len(names)
    return times


async def bench_expand(root: Path, rounds: int = 2_000) -> tuple[list[float], list[float]]:
    template = "Plan: " + " ".join(f"step {n}: ${n}." for n in range(1, 13)) + " All: $ARGUMENTS"
    command = Command(name="twelve", template=template)
    arguments = " ".join(f"arg{n}" for n in range(1, 16)) + ' "quoted words"'
    ctx = ExpandContext(project_dir=root, ask=allow_all)
    pure: list[float] = []
    full: list[float] = []
    for _ in range(rounds):
        started = time.perf_counter()
        substitute(template, arguments)
        pure.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        await expand(command, arguments, ctx)
        full.append((time.perf_counter() - started) * 1000)
    return pure, full


def report(label: str, times: list[float], target: float) -> None:
    median = statistics.median(times)
    print(
        f"{label:<42} median {median:8.3f} ms  min {min(times):8.3f} ms  "
        f"target {target:g} ms  ratio {median / target:5.2f}"
    )


def bench_list(
    root: Path, files: int, runs: int
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Whole-process ``command list``: wall times (ms) cold (fresh data dir each run) and warm,
    then the CPU times (user + system, ms) of the same runs (steadier on a busy machine)."""
    project = root / "many"
    project.mkdir()
    make_files(project, files, clean=True)  # a tree without load warnings, as most are
    exe = Path(sys.executable).with_name("shellpilot")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "shellpilot"]
    argv = [*cli, "command", "list", "--dir", str(project)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SHELLPILOT_CONFIG_DIR"] = str(root / "no-user-config")
    data = root / "data"

    cpu: list[float] = []

    def once() -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, env={**env, "SHELLPILOT_DATA_DIR": str(data)}, capture_output=True)
        elapsed = (time.perf_counter() - started) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count(b"\n/") + done.stdout.startswith(b"/") >= files, "commands missing"
        return elapsed

    once()  # the bytecode cache, as users run it
    cold: list[float] = []
    for _ in range(runs):
        shutil.rmtree(data, ignore_errors=True)
        cold.append(once())
    warm = [once() for _ in range(runs)]
    return cold, warm, cpu[1 : runs + 1], cpu[runs + 1 :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=10_000, help="command files for `command list`")
    parser.add_argument("--runs", type=int, default=5, help="whole-process runs of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_files(root)
        report(f"registry load, {FILES} markdown files", bench_load(root), LOAD_TARGET_MS)
        cold, warm, cold_cpu, warm_cpu = bench_list(root, args.files, args.runs)
        report(f"command list, {args.files} files, cold cache", cold, LIST_TARGET_MS)
        report(f"command list, {args.files} files, warm cache", warm, LIST_TARGET_MS)
        report("  the same, CPU time, cold cache", cold_cpu, LIST_TARGET_MS)
        report("  the same, CPU time, warm cache", warm_cpu, LIST_TARGET_MS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_claude_files(root)
        report(f"registry load, {FILES} Claude Code files", bench_load(root), LOAD_TARGET_MS)
        pure, full = asyncio.run(bench_expand(root))
        report("substitute, 12 placeholders", pure, EXPAND_TARGET_MS)
        report("expand (incl. @refs), 12 placeholders", full, EXPAND_TARGET_MS)


if __name__ == "__main__":
    main()
