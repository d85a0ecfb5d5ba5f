"""Command system speed: registry load of 1,000 markdown files (shellpilot and Claude Code
layouts), expansion of a 12-placeholder template.

Run: ``.venv/bin/python benchmarks/commands.py``. Targets: load < 300 ms,
expansion < 1 ms (no shell blocks). Prints figures and the ratio to each target.
"""

from __future__ import annotations

import asyncio
import statistics
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


def make_files(root: Path) -> None:
    for i in range(FILES):
        folder = root / ".shellpilot" / "command" / f"group{i % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"cmd{i}.md").write_text(
            "---\n"
            f"description: Command number {i}: does things\n"  # unquoted colon: the sanitiser runs
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_files(root)
        report(f"registry load, {FILES} markdown files", bench_load(root), LOAD_TARGET_MS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_claude_files(root)
        report(f"registry load, {FILES} Claude Code files", bench_load(root), LOAD_TARGET_MS)
        pure, full = asyncio.run(bench_expand(root))
        report("substitute, 12 placeholders", pure, EXPAND_TARGET_MS)
        report("expand (incl. @refs), 12 placeholders", full, EXPAND_TARGET_MS)


if __name__ == "__main__":
    main()
