"""The mutation fuzzer: deterministic, and what it writes is still bash."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from shellpilot.oracle import SAMPLE_SIZE, Fuzzer, load_seeds, sample
from shellpilot.oracle.lexer import command_words, tokens
from shellpilot.oracle.mutation import MUTATIONS

SEEDS = load_seeds(Path(__file__).parent.parent / "fixtures" / "oracle_seeds.jsonl")


def test_the_seeds_hold_every_form_the_issue_quotes() -> None:
    for form in (
        "echo pwned | cat > src/a.py",
        "rm\tvictim",
        "r\\\nm victim",
        "{rm,victim}",
        "${X:-rm} victim",
        "rm${IFS}victim",
        "hash -p /bin/rm del; del victim",
        "git -c alias.x='!rm victim' x",
        "echo 'r''m victim' | sh",
        "flock /outside/l rm -rf /outside",
        "docker run -v /:/host alpine true",
        "head -c 16 /dev/urandom",
    ):
        assert form in SEEDS
    assert len(SEEDS) >= 300


def test_the_same_seed_gives_the_same_mutants() -> None:
    assert Fuzzer(SEEDS, seed=3).take(300) == Fuzzer(SEEDS, seed=3).take(300)
    assert Fuzzer(SEEDS, seed=3).take(300) != Fuzzer(SEEDS, seed=4).take(300)
    fixed = sample(SEEDS)
    assert len(fixed) == SAMPLE_SIZE and fixed[: len(SEEDS)] == SEEDS and fixed == sample(SEEDS)


def test_the_fuzzer_grows_its_pool() -> None:
    fuzzer = Fuzzer(SEEDS[:5], seed=1, grow=1.0)
    fuzzer.take(20)
    assert len(fuzzer.pool) == 25
    fuzzer.add("true")
    assert fuzzer.pool[-1] == "true"
    with pytest.raises(ValueError, match="at least one seed"):
        Fuzzer([])


@pytest.mark.parametrize("operator", MUTATIONS, ids=lambda op: op.__name__)
def test_every_operator_writes_text_bash_can_parse(operator: object) -> None:
    """``bash -n`` (parse only) accepts every mutant of every seed bash itself accepts."""
    assert callable(operator)
    mutants: list[str] = []
    for draw in range(6):
        rng = random.Random(draw)
        mutants += [m for seed in SEEDS if (m := operator(rng, seed)) is not None]
    assert len(mutants) > 100, "the operator applies to too few seeds"
    assert _unparsable(mutants) == []


def test_the_fixed_sample_is_bash() -> None:
    """Stacked mutants too (1-3 operators each)."""
    assert _unparsable(sample(SEEDS)) == []


def _unparsable(lines: list[str]) -> list[str]:
    """The lines bash cannot parse: one bash reads each as a function body (no command
    runs), so a syntax error fails that line's eval alone."""
    check = (
        'i=0; while IFS= read -r -d "" m; do '
        'eval "__m() { $m"$\'\\n}\' 2>/dev/null || echo "$i"; i=$((i+1)); done'
    )
    given = "".join(m + "\0" for m in lines)
    done = subprocess.run(["bash", "-c", check], input=given, text=True, capture_output=True, check=False)
    return [lines[int(i)] for i in done.stdout.split()]


def test_the_lexer_finds_command_names() -> None:
    toks = tokens("A=1 2>/dev/null rm -rf x | { cat; } && if true; then ls; fi")
    assert toks is not None
    assert [toks[i].text for i in command_words(toks)] == ["rm", "cat", "true", "ls"]
    assert tokens("cat <<EOF\nx\nEOF") is None  # here-documents are left alone
    assert tokens("echo 'unclosed") is None
