"""The oracle as one object: fixture + sandbox + scan + prompts + judge, and campaign tallies.

Owns: `Oracle` (check one command or many in parallel) and `Tally` (counts, rates and the
false negatives grouped by kind, printable). Must not touch: how runs are traced or judged
(sandbox.py, judge.py) or which commands are tried (mutation.py, the callers).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from shellpilot.oracle.fixture import Fixture
from shellpilot.oracle.judge import Finding, Judge, Judgement
from shellpilot.oracle.prompts import Gate
from shellpilot.oracle.sandbox import Sandbox


class Oracle:
    """Runs command lines for real and judges the scanner's predictions about them.

    ``Oracle(root)`` builds the fixture under ``root`` (a fresh directory; default: a new
    temp dir, removed by ``close``). While open, ``HOME`` in this process's environment is
    the fixture's (the scanner and the read-only judgement expand ``~`` from it; ``check``
    sets it again if something changed it); ``close`` restores it. ``timeout_s``: per
    command. ``hostile`` False: a benign fixture (see Fixture). ``scratch``: where per-run
    copies go (see Sandbox). Raises OracleError when strace or git is missing, no bwrap
    works or the fixture cannot be built. Use as a context manager.
    """

    def __init__(
        self,
        root: Path | None = None,
        *,
        timeout_s: float = 5.0,
        scratch: Path | None = None,
        hostile: bool = True,
    ) -> None:
        self._own_root = root is None
        base = Path(tempfile.mkdtemp(prefix="shellpilot-oracle-fixture-")) if root is None else root
        self.fixture = Fixture(base / "tree", hostile=hostile).build()
        self.sandbox = Sandbox(self.fixture, scratch=scratch, timeout_s=timeout_s)
        self._base = base
        self.gate = Gate(self.fixture.project, base / "data")
        self.judge = Judge(self.fixture)
        self._home = os.environ.get("HOME")
        os.environ["HOME"] = str(self.fixture.home)

    def close(self) -> None:
        """Restore HOME and remove scratch space (and the fixture when the oracle made it)."""
        if self._home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = self._home
        self.sandbox.close()
        if self._own_root:
            shutil.rmtree(self._base, ignore_errors=True)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def check(self, command: str) -> Judgement:
        """Scan ``command`` in the fixture's project, run it in a sandbox, judge the scan."""
        from shellpilot.scanner.scan import scan

        project = self.fixture.project
        home = str(self.fixture.home)
        if os.environ.get("HOME") != home:  # (a test harness may have set its own since)
            os.environ["HOME"] = home
        found = scan(command, cwd=project, project_dir=project, shell="bash")
        asks = self.gate.asks(self.gate.plan(command))
        run = self.sandbox.run(command)
        return self.judge.judge(run, found, asks)

    def check_many(self, commands: Iterable[str], workers: int = 4) -> Iterator[Judgement]:
        """``check`` each command, ``workers`` sandboxes at a time, yielding in input order."""
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            yield from pool.map(self.check, commands)


@dataclass
class Tally:
    """Campaign counts: commands tried, unknown scans, false negatives by kind, prompts,
    read-only behaviour and false alarms (prompts on read-only behaviour)."""

    tried: int = 0
    unknown: int = 0
    timed_out: int = 0
    read_only: int = 0
    false_alarms: int = 0
    silent: int = 0
    misses: dict[str, list[tuple[Judgement, Finding]]] = field(default_factory=dict)
    alarm_examples: list[str] = field(default_factory=list)

    def add(self, judgement: Judgement) -> None:
        """Count one judgement."""
        self.tried += 1
        self.unknown += judgement.unknown
        self.timed_out += judgement.timed_out
        self.read_only += judgement.read_only
        self.silent += not judgement.asks
        if judgement.false_alarm:
            self.false_alarms += 1
            if len(self.alarm_examples) < 50:
                self.alarm_examples.append(f"{judgement.command!r} asks {', '.join(judgement.asks)}")
        for finding in judgement.findings:
            self.misses.setdefault(finding.kind, []).append((judgement, finding))

    @property
    def false_negatives(self) -> int:
        """Commands with at least one finding."""
        return len({judgement.command for found in self.misses.values() for judgement, _ in found})

    def rate(self, count: int, of: int | None = None) -> str:
        """``count`` as a percentage of ``of`` (default: commands tried)."""
        total = self.tried if of is None else of
        return f"{100.0 * count / total:.2f}%" if total else "n/a"

    def summary(self) -> str:
        """The campaign's figures, one per line."""
        lines = [
            f"commands tried:      {self.tried}",
            f"false negatives:     {self.false_negatives} commands "
            + "("
            + ", ".join(f"{k}: {len(v)}" for k, v in sorted(self.misses.items()))
            + ")",
            f"unknown rate:        {self.rate(self.unknown)} ({self.unknown})",
            f"read-only behaviour: {self.read_only} commands",
            f"false-alarm rate:    {self.rate(self.false_alarms, self.read_only)} of read-only "
            f"behaviour ({self.false_alarms})",
            f"no prompt at all:    {self.rate(self.silent)} ({self.silent})",
            f"timed out:           {self.timed_out}",
        ]
        return "\n".join(lines)

    def misses_text(self, limit: int = 0) -> str:
        """The false negatives grouped by kind, each with its command (``limit`` per kind; 0: all)."""
        out: list[str] = []
        for kind, found in sorted(self.misses.items()):
            out.append(f"## {kind} ({len(found)})")
            for judgement, finding in found[: limit or None]:
                out.append(f"- `{judgement.command!r}` -> {finding.detail}")
        return "\n".join(out)


__all__ = ["Oracle", "Tally"]
