"""The execution oracle: what bash really runs and writes, checked against the scanner.

Owns: the public face of the oracle (`Oracle`, `Judgement`, `Finding`, `Tally`, `Fuzzer`)
and the fixed test sample (`sample`). Must not touch: the scanner or the permission engine
beyond calling them.

    from shellpilot.oracle import Oracle

    with Oracle() as oracle:                 # builds a fixture, needs bwrap, strace, git
        judgement = oracle.check("cat docs/id_rsa")
        judgement.findings                   # (Finding(kind="dir", detail="/outside/id_rsa"),)

Each command runs with the real bash in a throwaway bubblewrap sandbox (no network, a copy
of a small fixture project with a nested repository, a submodule and symlinks out, a fake
HOME, an /outside tree), traced by strace; the programs it ran and the files it wrote or
touched are compared with `shellpilot.scanner.scan.scan` (judge.py says what counts).
"""

from __future__ import annotations

import json
from pathlib import Path

from shellpilot.oracle.campaign import Oracle, Tally
from shellpilot.oracle.judge import Finding, Judgement
from shellpilot.oracle.mutation import Fuzzer

SAMPLE_SIZE = 2000
"""Commands in the fixed sample the test suite runs: every seed, then mutants."""

SAMPLE_SEED = 12
"""The fuzzer seed of the fixed sample."""


def load_seeds(path: Path) -> list[str]:
    """Seed command lines from a JSON-lines file (one JSON string per line)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def sample(seeds: list[str], size: int = SAMPLE_SIZE, seed: int = SAMPLE_SEED) -> list[str]:
    """The fixed sample: ``seeds`` then mutants of them up to ``size`` commands in all."""
    return list(seeds) + Fuzzer(seeds, seed=seed).take(max(0, size - len(seeds)))


__all__ = [
    "SAMPLE_SEED",
    "SAMPLE_SIZE",
    "Finding",
    "Fuzzer",
    "Judgement",
    "Oracle",
    "Tally",
    "load_seeds",
    "sample",
]
