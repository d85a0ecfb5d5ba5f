"""The scanner against the execution oracle: a fixed sample of real and mutated command lines,
each run with the real bash in a bwrap sandbox and traced, must show no false negative.

The sample is every seed of tests/fixtures/oracle_seeds.jsonl (real command lines and every
form quoted in the scanner's hardening issue) plus seeded mutants, 2,000 commands in all
(shellpilot.oracle.sample). What counts as a false negative is documented in
shellpilot/oracle/judge.py. The same sample runs from the command line with
``benchmarks/oracle_campaign.py --sample``, which also prints how long it takes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.oracle import SAMPLE_SIZE, Oracle, Tally, load_seeds, sample

SEEDS = Path(__file__).parent.parent / "fixtures" / "oracle_seeds.jsonl"


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    with Oracle(tmp_path_factory.mktemp("oracle")) as built:
        yield built


@pytest.mark.timeout(600)  # the sample takes about a minute on 2 idle cores; CI may be slower
def test_the_fixed_sample_has_no_false_negatives(oracle: Oracle, monkeypatch: pytest.MonkeyPatch) -> None:
    # The scanner reads `~` from HOME: it must be the fixture's fake HOME, which the traced
    # bash sees, not the empty one every test gets (set after the module-scoped oracle).
    monkeypatch.setenv("HOME", str(oracle.fixture.home))
    commands = sample(load_seeds(SEEDS))
    assert len(commands) == SAMPLE_SIZE >= 2000
    tally = Tally()
    for judgement in oracle.check_many(commands, workers=4):
        tally.add(judgement)
    assert tally.tried == len(commands)
    assert tally.false_negatives == 0, f"{tally.summary()}\n\n{tally.misses_text(limit=15)}"
