"""Campaign: mutated command lines run with the real bash (traced, sandboxed) against scan().

Owns: driving `shellpilot.testing.oracle` over large seeded samples and printing figures.
Must not touch: anything but a temp fixture and scratch space; prints, asserts nothing.

Run:
    .venv/bin/python benchmarks/oracle_campaign.py --count 100000 --workers 4
    .venv/bin/python benchmarks/oracle_campaign.py --sample          # the test suite's sample
    .venv/bin/python benchmarks/oracle_campaign.py --readonly-rate   # prompts on plain reads

Prints: commands tried; false negatives, each with its command (grouped by kind: exec,
write, dir, silent); the unknown rate; the false-alarm rate (commands that prompt although
bash did nothing outside the read-only set); commands per second. ``--fns-out FILE``
writes the false negatives as markdown. ``--grow`` makes mutants that found something
parents of later ones. ``--readonly-rate`` needs no sandbox: it scans the plain read-only
corpus (benchmarks/data/readonly_commands.jsonl) in the fixture project (without its
hostile fsmonitor configs) and prints the share that runs without any prompt under the
default policy, with the ones that prompt.
Needs bwrap, strace and git (Debian: apt-get install -y bubblewrap strace git).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.testing.oracle import SAMPLE_SEED, Oracle, Tally, load_seeds, sample

READ_ONLY_CORPUS = Path(__file__).parent / "data" / "readonly_commands.jsonl"
SEEDS = Path(__file__).parent.parent / "tests" / "fixtures" / "oracle_seeds.jsonl"


def readonly_rate() -> None:
    """Print the share of the plain read-only corpus that runs without a prompt."""
    import os

    from shellpilot.scanner.scan import scan
    from shellpilot.testing.oracle.fixture import Fixture
    from shellpilot.testing.oracle.prompts import Gate

    commands = [
        json.loads(line) for line in READ_ONLY_CORPUS.read_text(encoding="utf-8").splitlines() if line
    ]
    with tempfile.TemporaryDirectory() as tmp:
        fixture = Fixture(Path(tmp) / "tree", fsmonitor=False).build()
        os.environ["HOME"] = str(fixture.home)
        gate = Gate(fixture.project, Path(tmp) / "data")
        prompting: list[str] = []
        for command in commands:
            found = scan(command, cwd=fixture.project, project_dir=fixture.project, shell="bash")
            asks = gate.asks(command, found)
            if asks:
                prompting.append(f"  {command!r} asks {', '.join(asks)}")
    quiet = len(commands) - len(prompting)
    print(f"read-only corpus:   {len(commands)} commands ({READ_ONLY_CORPUS.name})")
    print(f"run without prompt: {quiet} ({100.0 * quiet / len(commands):.1f}%)")
    print("still prompting:")
    print("\n".join(prompting) or "  (none)")


def campaign(args: argparse.Namespace) -> None:
    """Run mutants (or the test sample) through the oracle and print the tally."""
    from shellpilot.testing.oracle.mutation import Fuzzer

    seeds = load_seeds(SEEDS)
    tally = Tally()
    started = time.monotonic()
    last = started
    with Oracle(timeout_s=args.timeout) as oracle:
        if args.sample:
            fixed = sample(seeds)
            commands = iter(fixed)
            total = len(fixed)
            fuzzer = None
        else:
            fuzzer = Fuzzer(seeds, seed=args.seed)
            commands = iter(fuzzer)
            total = args.count
        batch = max(args.workers * 8, 32)
        while tally.tried < total:
            chunk = [next(commands) for _ in range(min(batch, total - tally.tried))]
            for judgement in oracle.check_many(chunk, workers=args.workers):
                tally.add(judgement)
                if judgement.findings and fuzzer is not None and args.grow:
                    fuzzer.add(judgement.command)
            now = time.monotonic()
            if now - last > args.progress:
                last = now
                rate = tally.tried / (now - started)
                print(
                    f"[{tally.tried}/{total}] {rate:.1f} commands/s, "
                    f"false negatives {tally.false_negatives}, unknown {tally.rate(tally.unknown)}",
                    file=sys.stderr,
                    flush=True,
                )
                if args.fns_out:
                    _write_fns(args.fns_out, tally, args)
    elapsed = time.monotonic() - started
    print(tally.summary())
    print(f"commands per second: {tally.tried / elapsed:.1f} ({elapsed:.0f} s, {args.workers} workers)")
    print()
    print(tally.misses_text(limit=args.show))
    if tally.alarm_examples:
        print("\n## false alarms (examples)")
        print("\n".join(f"- {line}" for line in tally.alarm_examples[: args.show]))
    if args.fns_out:
        _write_fns(args.fns_out, tally, args)


def _write_fns(path: Path, tally: Tally, args: argparse.Namespace) -> None:
    what = "the test sample" if args.sample else f"{tally.tried} mutants (seed {args.seed})"
    text = f"# Oracle false negatives: {what}\n\n```\n{tally.summary()}\n```\n\n{tally.misses_text()}\n"
    path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=2000, help="mutants to try (default 2000)")
    parser.add_argument("--seed", type=int, default=SAMPLE_SEED + 1, help="the fuzzer's seed")
    parser.add_argument("--workers", type=int, default=4, help="sandboxes at a time (default 4)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per command (default 5)")
    parser.add_argument("--sample", action="store_true", help="run the test suite's fixed sample")
    parser.add_argument("--grow", action="store_true", help="mutants that found something become parents")
    parser.add_argument("--show", type=int, default=0, help="false negatives shown per kind (0: all)")
    parser.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument("--fns-out", type=Path, help="write the false negatives as markdown here")
    parser.add_argument("--readonly-rate", action="store_true", help="prompts on the plain read-only corpus")
    args = parser.parse_args()
    if args.readonly_rate:
        readonly_rate()
    else:
        campaign(args)


if __name__ == "__main__":
    main()
