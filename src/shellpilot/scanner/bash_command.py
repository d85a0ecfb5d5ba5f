"""One bash simple command judged from its words: wrappers, cd, paths, writes, nested text.

Owns: `CommandJudge` (the pattern and always of a command, its wrappers peeled, its path
operands checked, its writes reported, the text it runs handed on) and `BashShell`, the
state of one simulated shell (the pushd stack). Must not touch: statements or
redirects (bash_walk.py, bash_redirects.py) or results policy.
"""

from __future__ import annotations

from shellpilot.scanner import bash_nesting
from shellpilot.scanner.bash_nesting import RunHere
from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.parse import POSIX_SHELLS
from shellpilot.scanner.scan_paths import CD_COMMANDS, SPECS, path_operands
from shellpilot.scanner.scan_writes import WRITERS, git_writes, written
from shellpilot.scanner.shell_strings import FOREIGN_SHELLS
from shellpilot.scanner.words import Word
from shellpilot.scanner.wrappers import WRAPPERS, program_name, unwrap

# Commands whose arguments carry more command text to scan (see bash_nesting).
_RUNS_TEXT = POSIX_SHELLS | FOREIGN_SHELLS | {"eval", "find", "trap", "su", "runuser"}

# What `judge()` must do for a command name, as bit flags in one table: one dict lookup
# per command instead of one per table.
_CD = 1  # cd, pushd, popd, chdir: moves the simulated cwd
_PATHS = 2  # has an argument table (scan_paths.SPECS) or is `find`: check path operands
_WRITES = 4  # modifies files named by its arguments (scan_writes.WRITERS)
_GIT = 8  # writes only for `init`/`clone` (scan_writes.git_writes)
_RUNS = 16  # runs command text from its arguments (`bash -c`, eval, find -exec, ...)


def _roles() -> dict[str, int]:
    roles: dict[str, int] = {}
    for flag, names in (
        (_CD, CD_COMMANDS),
        (_PATHS, {*SPECS, "find"}),
        (_WRITES, WRITERS),
        (_GIT, {"git"}),
        (_RUNS, _RUNS_TEXT),
    ):
        for name in names:
            roles[name] = roles.get(name, 0) | flag
    return roles


_ROLES = _roles()


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
        if len(words) > 1 and (name in WRAPPERS or name[:1] in "/\\"):
            unwrapped = unwrap(words)
            wrappers = tuple(unwrapped.wrappers)
            if unwrapped.problem:
                builder.unknown(unwrapped.problem)
            for path in unwrapped.paths:
                resolver.check(path, cwds, wrappers[0] if wrappers else name)
            if unwrapped.chdir is not None:
                run_cwds = resolver.cd(unwrapped.chdir, cwds, "a wrapper's working directory")
            if unwrapped.index:
                index = unwrapped.index
                head = words[index]
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
        if wrappers and wrappers[-1] == "watch":  # its words are one command text, scanned
            self.record(words, 0, words[0].value, prefix, redirects, run_cwds, (), dynamic_words)
            bash_nesting.joined(real, run_cwds, "watch", self.ctx, self.depth)
            return cwds
        self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
        if not role:
            return cwds
        args = real[1:]
        from_input = "xargs" in wrappers
        if role & _PATHS:
            operands = path_operands(name, args)
            if operands:
                if from_input:
                    builder.unknown(f"xargs passes paths from its input to {name}")
                for word in operands:
                    if word.value != "{}":
                        resolver.check(word, run_cwds, name)
            elif from_input and name in SPECS and SPECS[name].operands != "none":
                builder.unknown(f"xargs passes paths from its input to {name}")
        if role & _WRITES or (role & _GIT and git_writes(args)):
            self.writes(name, args, run_cwds, from_input)
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

    def writes(self, name: str, args: list[Word], cwds: Cwds, from_input: bool) -> None:
        """Report the files a file-modifying command writes (see scan_writes.written)."""
        resolver = self.resolver
        for target in written(name, args):
            word = target.word
            # `sed 'w /x'`, `git init /x`: not path operands, so checked here
            if not word.dynamic and (name not in SPECS or word not in args):
                resolver.check(word, cwds, name)
            resolver.target(word, cwds, target.into, target.directory)
        if from_input:
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
