"""One bash simple command judged from its words: wrappers, cd, paths, writes, nested text.

Owns: `CommandJudge` (the pattern and always of a command, its wrappers peeled, its path
operands checked, its writes reported, the text it runs handed on) and `BashShell`, the
state of one simulated shell (the pushd stack). Must not touch: statements or
redirects (bash_walk.py, bash_redirects.py) or results policy.
"""

from __future__ import annotations

from shellpilot.scanner import bash_nesting
from shellpilot.scanner.arity import known
from shellpilot.scanner.bash_nesting import RunHere
from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.option_table import SHAPES
from shellpilot.scanner.options import find_paths, read
from shellpilot.scanner.parse import POSIX_SHELLS
from shellpilot.scanner.scan_paths import CD_COMMANDS
from shellpilot.scanner.scan_writes import WRITERS, Target, find_writes, written
from shellpilot.scanner.shell_strings import FOREIGN_SHELLS
from shellpilot.scanner.words import Word
from shellpilot.scanner.wrappers import FIRST_WORDS, package_name, program_name, unwrap

# Commands whose arguments carry more command text to scan (see bash_nesting).
_RUNS_TEXT = POSIX_SHELLS | FOREIGN_SHELLS | {"eval", "find", "trap", "su", "runuser"}

# What `judge()` must do for a command name, as bit flags in one table: one dict lookup
# per command instead of one per table.
_CD = 1  # cd, pushd, popd, chdir: moves the simulated cwd
_PATHS = 2  # has an option shape (option_table.SHAPES) or is `find`: check path words
_WRITES = 4  # may write files named by its words (scan_writes.WRITERS)
_RUNS = 16  # runs command text from its arguments (`bash -c`, eval, find -exec, ...)


def _roles() -> dict[str, int]:
    roles: dict[str, int] = {}
    for flag, names in (
        (_CD, CD_COMMANDS),
        (_PATHS, {*SHAPES, "find"}),
        (_WRITES, WRITERS),
        (_RUNS, _RUNS_TEXT),
    ):
        for name in names:
            roles[name] = roles.get(name, 0) | flag
    return roles


_ROLES = _roles()
_PYTHONS = frozenset({"python", "python3", "python2"})
# Programs that, written right after a program the scanner does not know (`rtk rm -rf x`),
# are taken to be what it runs: so deny rules, dirs and writes see them.
_BEHIND_NAMES = """
rm rmdir unlink shred mv cp ln dd chmod chown chgrp truncate tee touch mkdir install
sed perl python python3 ruby node php bash sh zsh dash ksh eval exec sudo su doas env
xargs curl wget nc ncat socat ssh scp rsync git tar zip unzip 7z cat kill pkill
killall find docker kubectl
"""
_BEHIND = frozenset(_BEHIND_NAMES.split())


class BashShell:
    """The state of one simulated bash process: its `pushd` stack. A `bash -c` string
    starts a new one; `eval` and `trap` text runs in the same one."""

    __slots__ = ("dirs",)

    def __init__(self) -> None:
        self.dirs: list[Cwds] = []


class CommandJudge:
    """Judges the simple commands of one bash text (see `judge`)."""

    __slots__ = ("builder", "ctx", "depth", "resolver", "run_here", "shell")

    def __init__(self, ctx: ScanContext, shell: BashShell, depth: int, run_here: RunHere) -> None:
        self.ctx = ctx
        self.builder = ctx.builder
        self.resolver = ctx.resolver
        self.shell = shell
        self.depth = depth
        self.run_here = run_here

    def judge(
        self,
        words: list[Word],
        cwds: Cwds,
        *,
        prefix: list[Word] | None = None,
        redirects: list[str] | None = None,
        writes: bool = False,
        stdin: str | None = bash_nesting.NO_STDIN,
        dynamic_words: bool = True,
    ) -> Cwds:
        """Record one simple command and scan what it touches; returns the cwds after it.

        `words`: its words, name first (brace-expanded, redirect operands included);
        `prefix`: its leading `VAR=x` assignments; `redirects`: the texts of the
        redirects that apply to it (its own, then those of the compound commands around
        it); `writes`: one of them writes a file; `stdin`: its here-document text (see
        bash_nesting.shell). `dynamic_words=False` promises no word is dynamic.
        """
        builder = self.builder
        resolver = self.resolver
        head = words[0]
        name = head.value
        index = 0
        wrappers: tuple[str, ...] = ()
        run_cwds = cwds
        from_input = False
        if len(words) > 1 and (name in FIRST_WORDS or name[:1] in "/\\"):
            unwrapped = unwrap(words)
            wrappers = tuple(unwrapped.wrappers)
            from_input = unwrapped.from_input
            what = wrappers[0] if wrappers else name
            if unwrapped.problem:
                builder.unknown(unwrapped.problem)
            for path in unwrapped.paths:
                resolver.check(path, cwds, what)
            for path in unwrapped.creates:  # flock's lock file
                resolver.check(path, cwds, what)
                resolver.target(path, cwds)
            if unwrapped.chdir is not None:
                run_cwds = resolver.cd(unwrapped.chdir, cwds, "a wrapper's working directory")
            for string in unwrapped.strings:  # `flock f -c CMD`, `nix-shell --run CMD`
                if string.dynamic:
                    builder.unknown(
                        f"{program_name(words[unwrapped.index].value)} runs a dynamic string {string.raw}"
                    )
                else:
                    self.ctx.nest("bash", string.value, run_cwds, self.depth + 1, what)
            if unwrapped.joined:  # watch, parallel: the words are one command string
                self.record(words, 0, program_name(name), prefix, redirects, run_cwds, (), dynamic_words)
                joined = words[unwrapped.index : unwrapped.end]
                # parallel's `::: a b` arguments are added to it (each job gets one)
                joined += [w for w in words[unwrapped.end + 1 :] if not w.value.startswith(":::")]
                bash_nesting.joined(joined, run_cwds, wrappers[-1], self.ctx, self.depth)
                if from_input and unwrapped.end == len(words):
                    builder.unknown(f"{wrappers[-1]} adds words from its input to {joined[0].raw}")
                return cwds
            if unwrapped.index:
                index = unwrapped.index
                head = words[index]
                name = head.value
                if unwrapped.package and not head.dynamic:
                    name = package_name(name)
        elif (
            len(words) > 1
            and not words[1].dynamic
            and words[1].value in _BEHIND
            and not head.dynamic
            and not known(program_name(name))
        ):
            wrappers = (program_name(name),)  # an unknown program followed by a known one
            index = 1
            head = words[1]
            name = head.value
        real = words[index:] if index else words
        if head.dynamic:
            builder.unknown(f"dynamic command name {head.raw}")
        elif name[:1] in "/\\":
            name = program_name(name)
        role = _ROLES.get(name, 0)
        if role & _CD:
            if writes:
                self.record(words, index, name, prefix, redirects, cwds, wrappers, dynamic_words)
            builder.seen = True
            return self.cd(name, real[1:], run_cwds)
        self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
        if not role:
            return cwds
        args = real[1:]
        if name in _PYTHONS and len(args) > 1 and args[0].value == "-m" and args[1].value in SHAPES:
            # `python -m pip install -t DIR`, `python -m venv DIR`: the module's own options
            module = args[1].value
            self.files(module, args[2:], run_cwds, module in WRITERS, from_input)
        elif role & _PATHS:
            self.files(name, args, run_cwds, role & _WRITES != 0, from_input)
        if role & _RUNS:
            return self.runs(name, args, cwds, run_cwds, stdin)
        return cwds

    def record(
        self,
        words: list[Word],
        index: int,
        name: str,
        prefix: list[Word] | None,
        redirects: list[str] | None,
        cwds: Cwds,
        wrappers: tuple[str, ...],
        dynamic_words: bool,
    ) -> None:
        """Record the command's patterns: the whole (assignments, wrappers, words,
        redirects) and, when something precedes the real command or its name was
        normalised, the real command's own."""
        shown = [w.shown() for w in words]
        tail = " " + " ".join(redirects) if redirects else ""
        lead = [w.shown() for w in prefix] if prefix else []
        text = " ".join(lead + shown) + tail
        inner = before = ""
        if lead or index or name != shown[index]:
            inner = " ".join([name, *shown[index + 1 :]]) + tail
            before = " ".join(lead + shown[:index])
        real = words[index:] if index else words
        argv = [name]
        for word in real[1:]:  # a plain loop: cheaper than a comprehension's frame on 3.11
            argv.append(word.value)
        dynamic = dynamic_words and any(word.dynamic for word in real)
        self.builder.command(
            text, argv, dynamic, wrappers, inner_text=inner, prefix_text=before, cwds=cwds or ()
        )

    def runs(self, name: str, args: list[Word], cwds: Cwds, run_cwds: Cwds, stdin: str | None) -> Cwds:
        """Scan the command text `name` runs (a shell's -c string, eval's words...)."""
        ctx = self.ctx
        if name in POSIX_SHELLS:
            bash_nesting.shell(name, args, run_cwds, stdin, ctx, self.depth)
        elif name in FOREIGN_SHELLS:
            bash_nesting.foreign(name, args, run_cwds, ctx, self.depth)
        elif name == "eval":
            return bash_nesting.evaluate(args, run_cwds, ctx, self.run_here)
        elif name == "find":
            self.find_exec(args, run_cwds)
        elif name == "trap":
            bash_nesting.trap(args, run_cwds, ctx, self.run_here)
        else:
            bash_nesting.su(name, args, run_cwds, ctx, self.depth)
        return cwds

    def files(self, name: str, args: list[Word], cwds: Cwds, writes: bool, from_input: bool) -> None:
        """Check the files a command names (its shape's path words: operands, `-o FILE`,
        `-C DIR`...) and report those it writes (see scan_writes.written).

        `from_input`: it runs under xargs, which adds paths from its input.
        """
        resolver = self.resolver
        targets: list[Target]
        if name == "find":
            paths = find_paths(args)
            targets = find_writes(args)
            operands = True
        else:
            shape = SHAPES[name]
            parsed = read(shape, args)
            paths = parsed.path_words()
            targets = written(parsed) if writes else []
            operands = shape.operands != "none"
        if from_input and (paths or operands):
            self.builder.unknown(f"xargs passes paths from its input to {name}")
        for word in paths:
            if word.value != "{}":
                resolver.check(word, cwds, name)
        for target in targets:
            word = target.word
            if not word.dynamic and word not in paths:  # `sed 'w /x'`, `git init /x`, `-v /:/h`
                resolver.check(word, cwds, name)
            if not target.read_only:
                resolver.target(word, cwds, target.into, target.directory)
        if from_input and writes:
            self.builder.wrote("*")  # `xargs rm`: the files come from its input

    def cd(self, name: str, args: list[Word], cwds: Cwds) -> Cwds:
        """The cwds after `cd`/`pushd`/`popd` (see PathResolver.cd)."""
        operands = [w for w in args if not (w.value.startswith("-") and len(w.value) > 1 and not w.dynamic)]
        stack = self.shell.dirs
        if name == "popd":
            if stack:
                return stack.pop()
            self.builder.unknown("popd without a matching pushd")
            return None
        if name == "pushd":
            if not operands or operands[0].value[:1] in "+-":
                self.builder.unknown("pushd without a directory rotates the directory stack")
                return None
            stack.append(cwds)
        return self.resolver.cd(operands[0] if operands else None, cwds, name)

    def find_exec(self, args: list[Word], cwds: Cwds) -> None:
        """`find ... -exec CMD ARGS ;`: CMD is judged like any command."""
        i = 0
        n = len(args)
        while i < n:
            value = args[i].value
            if value in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < n and args[j].value not in (";", "+"):
                    j += 1
                sub = args[i + 1 : j]
                if j >= n:
                    self.builder.unknown(f"find {value} without a terminating ';' or '+'")
                if sub:
                    self.judge(list(sub), cwds)
                i = j
            i += 1
