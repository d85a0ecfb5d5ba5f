"""Campaign: mutated command lines run with the real bash (traced, sandboxed) against scan().

Owns: driving `shellpilot.oracle` over large seeded samples and printing figures.
Must not touch: anything but a temp fixture and scratch space; prints, asserts nothing.

Run:
    .venv/bin/python benchmarks/oracle_campaign.py --count 100000 --workers 4
    .venv/bin/python benchmarks/oracle_campaign.py --sample          # the test suite's sample
    .venv/bin/python benchmarks/oracle_campaign.py --readonly-rate   # prompts on plain reads

Prints: commands tried; false negatives, each with its command (grouped by kind: exec,
write, dir, silent); the unknown rate; the false-alarm rate (commands that prompt although
bash did nothing outside the read-only set); commands per second. ``--fns-out FILE``
writes the false negatives as markdown, grouped by class and by kind. ``--save FILE``
keeps every judgement (JSON lines) and ``--report FILE`` prints the report from them again.
``--grow`` makes mutants that found something parents of later ones.
``--readonly-rate`` needs no sandbox: it scans the plain read-only corpus
(benchmarks/data/readonly_commands.jsonl) and the plain read-only lines of
benchmarks/data/commands.jsonl in a benign fixture project (no links out, no fsmonitor)
and prints the share that runs without any prompt under the default policy.
Needs bwrap, strace and git (Debian: apt-get install -y bubblewrap strace git).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.oracle import SAMPLE_SEED, Finding, Judgement, Oracle, Tally, load_seeds, sample

READ_ONLY_CORPUS = Path(__file__).parent / "data" / "readonly_commands.jsonl"
MIXED_CORPUS = Path(__file__).parent / "data" / "commands.jsonl"
SEEDS = Path(__file__).parent.parent / "tests" / "fixtures" / "oracle_seeds.jsonl"


_PLAIN_READERS = re.compile(
    r"(ls|cat|head|tail|wc|grep|egrep|fgrep|rg|find|pwd|echo|printf|stat|du|basename|dirname|date|uname|"
    r"whoami|which|true|false|git (log|status|diff|show|branch|rev-parse|ls-files)|sed -n)\b"
)


def _plain_read_only(line: str) -> bool:
    """A line of ordinary read-only commands only (by their first words), inside the project:
    no redirect but to /dev/null, no ``~``, absolute path, ``..`` or substitution."""
    if re.search(r"~|\$\(|`|\.\.|(^|\s)/(?!dev/null)|sed -i|find .*-(exec|delete)|\n", line):
        return False
    if re.search(r">(?!\s*/dev/null|&[12])", line):
        return False
    return all(_PLAIN_READERS.match(part.strip()) for part in re.split(r"\|\||&&|\||;", line) if part.strip())


def readonly_rate() -> None:
    """Print the share of plain read-only commands that run without a prompt: the corpus
    made for it, and the plain read-only lines of benchmarks/data/commands.jsonl."""
    import os

    from shellpilot.oracle.fixture import Fixture
    from shellpilot.oracle.prompts import Gate

    corpora = {
        READ_ONLY_CORPUS.name: [
            json.loads(x) for x in READ_ONLY_CORPUS.read_text(encoding="utf-8").splitlines() if x
        ],
        f"{MIXED_CORPUS.name} (plain read-only lines)": [
            c
            for x in MIXED_CORPUS.read_text(encoding="utf-8").splitlines()
            if x and _plain_read_only(c := json.loads(x))
        ],
    }
    with tempfile.TemporaryDirectory() as tmp:
        fixture = Fixture(Path(tmp) / "tree", hostile=False).build()
        os.environ["HOME"] = str(fixture.home)
        gate = Gate(fixture.project, Path(tmp) / "data")
        for name, commands in corpora.items():
            prompting = [
                f"  {command!r} asks {', '.join(asks)}"
                for command in commands
                if (asks := gate.asks(gate.plan(command)))
            ]
            quiet = len(commands) - len(prompting)
            print(f"corpus:             {name}: {len(commands)} commands")
            print(f"run without prompt: {quiet} ({100.0 * quiet / max(1, len(commands)):.1f}%)")
            print("still prompting:")
            print("\n".join(prompting[:40]) or "  (none)")
            print()


def campaign(args: argparse.Namespace) -> None:
    """Run mutants (or the test sample) through the oracle and print the tally."""
    from shellpilot.oracle.mutation import Fuzzer

    seeds = load_seeds(SEEDS)
    tally = Tally()
    saved = args.save.open("w", encoding="utf-8") if args.save else None
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
                if saved is not None:
                    saved.write(json.dumps(_as_dict(judgement)) + "\n")
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
    if saved is not None:
        saved.close()
    print(tally.summary())
    print(f"commands per second: {tally.tried / elapsed:.1f} ({elapsed:.0f} s, {args.workers} workers)")
    print()
    print(tally.misses_text(limit=args.show))
    if tally.alarm_examples:
        print("\n## false alarms (examples)")
        print("\n".join(f"- {line}" for line in tally.alarm_examples[: args.show]))
    if args.fns_out:
        _write_fns(args.fns_out, tally, args)


_WRAPPERS = re.compile(
    r"\b(taskset|flock|chrt|ionice|nice|env|timeout|stdbuf|setsid|nohup|xargs|time|command|exec|"
    r"firejail|busybox|script|nix-shell|direnv|parallel|uv|npx|pnpm|bunx)\b"
)
_OUTPUT_TOOLS = re.compile(
    r"\b(gcc|cc|archive|format-patch|--output|ssh-keygen|openssl|sqlite3|pip|venv|zip|split|mktemp|"
    r"worktree|clone|--global|-i\.bak|tar|install|dd|git init|shred|curl|wget)\b"
)
_CLASSES: list[tuple[str, str]] = [
    (
        "git-config-program",
        "git runs a program from a repository's config (core.fsmonitor in a nested repo or submodule): "
        "read-only git must ask, and the scan should be unknown (what runs is not in the text)",
    ),
    ("git-alias", "git aliases (-c alias.x='!..', git config alias.x) run commands"),
    ("unknown-writes", "an unknown scan does not say its writes are unknown (`*` in writes)"),
    (
        "argument-command",
        'a program runs a command given in its arguments (awk system() or print | "cmd", sed s///e or '
        "e cmd, ssh -o ProxyCommand, vim -c '!cmd', tar --use-compress-program, script -c): analyse the "
        "command or make the scan unknown",
    ),
    ("indirect", "alias, hash -p or a function runs a command the scan does not name"),
    (
        "shell-text",
        "text run by a shell (source/. of a file, /dev/stdin or <(..); here-doc, here-string or pipe into a "
        "shell; eval) is not analysed and the scan is not unknown",
    ),
    ("name-form", "a glob, brace or expansion in the command name: the scan is neither unknown nor right"),
    (
        "wrapper",
        "a wrapper is not peeled (taskset, flock, chrt, ionice...), or a wrapper before a builtin name "
        "(nice cd, env pushd) runs an external program of that name",
    ),
    (
        "symlink",
        "a path, glob or cd through a symlink (docs -> outside, lnk -> outside/dir, conf.txt) is not judged "
        "where it resolves",
    ),
    ("bare-redirect", "a bare redirect (no command) writes with no prompt"),
    (
        "compound-redirect",
        "a redirect on a pipeline, list, group, loop or subshell is left out: judged read-only",
    ),
    ("home-cd", "cd with no operand (or ~) enters HOME: not in dirs"),
    ("operand-redirect", "a redirect among the operands hides the operands from writes/dirs"),
    (
        "normalisation",
        "a line continuation or quoting inside a word (not the command name) is not read as bash reads it",
    ),
    (
        "git-worktree",
        "git commands that rewrite the work tree (mv, reset --hard, restore, checkout...) write files the "
        "scan does not list",
    ),
    ("output-flag", "an output flag or output operand of a common tool is not a write"),
    (
        "outside-write-dir",
        "a path outside the project is touched or written but its directory is not in dirs",
    ),
    ("other", "other"),
]
_ARGUMENT_COMMAND = re.compile(
    r"system\(|\| *\"|/e'|'\d*e |ProxyCommand|-c '!|--use-compress-program|--to-command|script .*-q?c|-TT "
)
_SHELL_TEXT = re.compile(r"source |(^|[;&|(\s])\. |<\(|\| *(ba)?sh\b|(ba)?sh\s*<<|eval ")
_NAME_FORM = re.compile(r"(^|[;&|(\s])(/usr)?/bin/\S*[?\[]|\{\w+,\w*\}|\$\{?X|\$\{?IFS")


def classify(judgement: Judgement, finding: Finding) -> str:
    """A class name (`_CLASSES`) for one false negative, by what the command holds."""
    command, detail, kind = judgement.command, finding.detail, finding.kind
    if detail.startswith("id ") or (kind == "silent" and detail.split(";")[0] == "id"):
        return "git-config-program"
    if "alias." in command and "git" in command:
        return "git-alias"
    if kind == "write" and judgement.unknown:
        return "unknown-writes"
    if _ARGUMENT_COMMAND.search(command):
        return "argument-command"
    if re.search(r"alias |hash -p|zz\(\)", command):
        return "indirect"
    if _SHELL_TEXT.search(command):
        return "shell-text"
    if _NAME_FORM.search(command):
        return "name-form"
    if kind in ("exec", "silent") and _WRAPPERS.search(command) and not detail.startswith("/"):
        return "wrapper"
    if "/outside" in detail and (
        re.search(r"\b(docs|lnk|conf\.txt)\b|\*/", command) or "/outside" not in command
    ):
        return "symlink"
    if kind == "silent":
        if re.search(r"(^|[;\n{&|]\s*)[0-9&]*>{1,2}\|?\s*\S", command):
            return "bare-redirect"
        return "compound-redirect"
    if kind == "dir" and "~" in detail and re.search(r"\bcd( *[;&)]|$| ~)", command):
        return "home-cd"
    if "\\\n" in command or "$'" in command:
        return "normalisation"
    if re.search(r"git .*\b(mv|reset|restore|checkout|stash|clean|switch)\b", command):
        return "git-worktree"
    if (
        re.search(r"\S\s+[0-9&]*[<>]", command)
        and kind in ("write", "dir")
        and not _OUTPUT_TOOLS.search(command)
    ):
        return "operand-redirect"
    if kind == "dir":
        return "outside-write-dir"
    if _OUTPUT_TOOLS.search(command) or kind == "write":
        return "output-flag"
    return "other"


def classes_text(tally: Tally, examples: int = 12) -> str:
    """False negatives grouped by class: a line per class, then examples."""
    grouped: dict[str, list[tuple[Judgement, Finding]]] = {}
    for found in tally.misses.values():
        for judgement, finding in found:
            grouped.setdefault(classify(judgement, finding), []).append((judgement, finding))
    out: list[str] = []
    for name, text in _CLASSES:
        items = grouped.get(name, [])
        if not items:
            continue
        commands = len({j.command for j, _ in items})
        out.append(f"### {name}: {commands} commands\n{text}\n")
        for judgement, finding in items[:examples]:
            out.append(f"- `{judgement.command!r}` -> {finding}")
        out.append("")
    return "\n".join(out)


def _write_fns(path: Path, tally: Tally, args: argparse.Namespace) -> None:
    what = "the test sample" if args.sample else f"{tally.tried} mutants (seed {args.seed})"
    text = (
        f"# Oracle false negatives: {what}\n\n```\n{tally.summary()}\n```\n\n"
        f"## By class\n\n{classes_text(tally)}\n## Every false negative, by kind\n\n{tally.misses_text()}\n"
    )
    path.write_text(text, encoding="utf-8")


def _as_dict(judgement: Judgement) -> dict[str, object]:
    return {
        "command": judgement.command,
        "findings": [[f.kind, f.detail] for f in judgement.findings],
        "unknown": judgement.unknown,
        "asks": list(judgement.asks),
        "read_only": judgement.read_only,
        "timed_out": judgement.timed_out,
    }


def report(args: argparse.Namespace) -> None:
    """Re-read judgements saved by ``--save`` and print (and ``--fns-out``) the report."""
    tally = Tally()
    for line in args.report.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        findings = tuple(Finding(kind, detail) for kind, detail in item["findings"])
        tally.add(
            Judgement(
                item["command"],
                findings,
                item["unknown"],
                tuple(item["asks"]),
                item["read_only"],
                item["timed_out"],
            )
        )
    print(tally.summary())
    print()
    print(classes_text(tally))
    if args.fns_out:
        _write_fns(args.fns_out, tally, args)


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
    parser.add_argument("--save", type=Path, help="write every judgement here (JSON lines)")
    parser.add_argument("--report", type=Path, help="print the report of judgements saved by --save")
    args = parser.parse_args()
    if args.readonly_rate:
        readonly_rate()
    elif args.report:
        report(args)
    else:
        campaign(args)


if __name__ == "__main__":
    main()
