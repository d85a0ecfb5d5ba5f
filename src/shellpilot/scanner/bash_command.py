"""One bash simple command judged from its words: wrappers, cd, paths, writes, nested text.

Owns: `CommandJudge` (the pattern and always of a command, its wrappers peeled, its path
operands checked, its writes reported, the text it runs handed on) and `BashShell`, the
state of one simulated shell (the pushd stack). Must not touch: statements or
redirects (bash_walk.py, bash_redirects.py) or results policy.
"""

from __future__ import annotations

import os

from shellpilot.scanner import bash_nesting
from shellpilot.scanner.argument_commands import SQL_SHELLS, runs_from_arguments, sql_text_problem
from shellpilot.scanner.arity import known
from shellpilot.scanner.bash_git import GitCommand
from shellpilot.scanner.bash_names import ASSIGNERS, SPECIAL_VARIABLES, assigned_name_problem
from shellpilot.scanner.bash_nesting import RunHere
from shellpilot.scanner.bash_shell import BashShell, rest_text
from shellpilot.scanner.brace_expansion import brace_words
from shellpilot.scanner.context import Cwds, ScanContext, union_cwds
from shellpilot.scanner.inline_code import inline_code_problem
from shellpilot.scanner.option_table import SHAPES
from shellpilot.scanner.options import find_paths, read
from shellpilot.scanner.parse import POSIX_SHELLS
from shellpilot.scanner.program_variables import judge_variable
from shellpilot.scanner.scan_paths import CD_COMMANDS
from shellpilot.scanner.scan_writes import WRITERS, Target, find_writes, sed_script_reads, written
from shellpilot.scanner.shell_strings import FOREIGN_SHELLS
from shellpilot.scanner.words import Word, guess, unquoted_glob
from shellpilot.scanner.words import shown as quoted
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
_REMOTE = frozenset(
    ["ssh", "mosh", "kubectl", "oc", "nerdctl", "lxc", "vagrant", "adb", "gcloud", "aws", "az"]
)
"""Programs whose path words name places on another machine or in a container."""
_API_CLIENTS = frozenset({"gh", "glab", "hub"})
"""Programs whose ``api ROUTE`` words are routes of a web API (``gh api /repos/o/r``), not files."""
_DEFINERS = frozenset({"alias", "unalias", "hash", "unset"})
_BUILTIN_WRAPPERS = frozenset({"builtin", "command"})
_HASH_WRAPPERS = frozenset({"command", "exec"})
"""Wrappers after which bash still looks the name up in its hash table (`hash -p`), though
not among aliases or functions (`command del`, `exec del`)."""
_RESERVED = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "case",
        "esac",
        "while",
        "until",
        "for",
        "in",
        "select",
        "function",
        "{",
        "}",
        "[[",
        "]]",
        "coproc",
    ]
)
"""bash's reserved words that never name a command when unquoted in command position: a
command tree-sitter names so (`! if x; then y; fi` comes out as commands `if x`, `then y`)
was misread, so what bash runs is not what the tree shows."""
_TIME_WORDS = frozenset({"time", "-p", "--"})
"""What may follow bash's `time` keyword before the command it times (`time -p -- x`,
`time time x`)."""
_PYTHONS = frozenset({"python", "python3", "python2"})
# Programs that, written among the words of a program the scanner does not know (`rtk rm
# -rf x`, `trickle -d 10 rm x`), are taken to be what it runs: so deny rules, dirs and
# writes see them.
_BEHIND_NAMES = """
rm rmdir unlink shred mv cp ln dd chmod chown chgrp truncate tee touch mkdir install
sed perl python python3 ruby node php bash sh zsh dash ksh eval exec sudo su doas env
xargs curl wget nc ncat socat ssh scp rsync git tar zip unzip 7z cat kill pkill
killall find docker kubectl
"""
_BEHIND = frozenset(_BEHIND_NAMES.split())


_ARITHMETIC = frozenset({"let", "declare", "typeset", "local", "export", "readonly"})
"""Builtins that evaluate words as arithmetic (`let`; the others with `-i`)."""


def _login_argv0(words: list[Word]) -> bool:
    """Whether `exec`'s options among `words` start the program as a login shell: `-l`,
    or `-a NAME` with a NAME starting with `-` (a shell reads that as login)."""
    for i, word in enumerate(words):
        value = word.value
        if word.dynamic or (value[:1] == "-" and "l" in value[1:] and not value.startswith("--")):
            return True
        if value == "-a" and i + 1 < len(words):
            after = words[i + 1]
            if after.dynamic or after.value.startswith("-"):
                return True
    return False


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
        aliases: bool = True,
        keyword: bool = True,
        redirected: int | None = None,
        here: bool = True,
    ) -> Cwds:
        """Record one simple command and scan what it touches; returns the cwds after it.

        `words`: its words, name first (brace-expanded, redirect operands included);
        `prefix`: its leading `VAR=x` assignments; `redirects`: the texts of the
        redirects that apply to it (its own, then those of the compound commands around
        it); `writes`: one of them writes a file; `stdin`: its here-document text (see
        bash_nesting.shell). `dynamic_words=False` promises no word is dynamic.
        `aliases=False`: the name is not looked up among aliases (see `alias`).
        `keyword=False`: something (a redirect) was written before the name, so it is no
        reserved word (`<f time x` runs /usr/bin/time). `redirected`: where (a source
        offset) its first redirect was written: a word after it is no reserved word either
        (`time >f time x` times /usr/bin/time). `here=False`: another program runs it (`rtk
        eval x`, `zz cd d`), so no builtin of this shell does (it moves and defines nothing).
        """
        builder = self.builder
        resolver = self.resolver
        head = words[0]
        name = head.value
        if (
            name == "time"
            and head.raw == "time"
            and keyword
            and not prefix
            and not self.shell.posix
            and words[1:]
        ):
            # bash's `time` keyword (not /usr/bin/time: unquoted, first, no assignment
            # before it) times the command after it in this same shell: that command is a
            # whole simple command again (alias, function, hash, builtins like cd, source)
            k = 1
            while (
                k < len(words)
                and words[k].raw in _TIME_WORDS
                and (redirected is None or words[k].start < redirected)
            ):
                k += 1
            if k == len(words):
                self.record(words, 0, name, prefix, redirects, cwds, (), dynamic_words)
                return cwds
            return self.judge(
                words[k:],
                cwds,
                prefix=words[:k],
                redirects=redirects,
                writes=writes,
                stdin=stdin,
                dynamic_words=dynamic_words,
                keyword=redirected is None or words[k].start < redirected,
                redirected=redirected,
            )
        if here and not head.dynamic and (self.shell.aliases or self.shell.hashed or self.shell.functions):
            texts = self.shell.alias_of(head) if aliases else None
            if texts is not None:
                after: Cwds = cwds
                for text in texts:
                    expanded = self.alias(text, words, cwds, prefix)
                    after = (
                        None if after is None or expanded is None else tuple(dict.fromkeys(after + expanded))
                    )
                plain = self.judge(
                    words,
                    cwds,
                    prefix=prefix,
                    redirects=redirects,
                    writes=writes,
                    stdin=stdin,
                    dynamic_words=dynamic_words,
                    aliases=False,
                    keyword=keyword,
                )
                return union_cwds(after, plain)
            handled, after = self.indirect(words, cwds, prefix, redirects, dynamic_words)
            if handled:
                return after
        if name == "!" and len(words) > 1 and head.raw == "!":
            # `! ! cmd`: tree-sitter reads the second `!` as a command name; it negates
            return self.judge(words[1:], cwds, prefix=prefix, redirects=redirects, writes=writes, stdin=stdin)
        if name in _RESERVED and head.raw == name:
            builder.unknown(f"the parser read the reserved word {name} as a command name")
        index = 0
        wrappers: tuple[str, ...] = ()
        builtins = here  # the wrappers may be the shell's own (`command`, not /usr/bin/command)
        run_cwds = cwds
        from_input = False
        placeholders: list[str] = []
        bare = len(words) == 1  # the program is given no words: `unshare`, `su`
        if len(words) > 1 and (name in FIRST_WORDS or "/" in name or name[:1] == "\\"):
            unwrapped = unwrap(words)
            bare = unwrapped.bare
            wrappers = tuple(unwrapped.wrappers)
            # `/usr/bin/command cd d` (or a `hash -p` name for it), also after the builtin
            # (`command /usr/bin/command cd d`), is a program: none of the builtins'
            # lookups, cd, source or alias happen in this shell
            builtins = here and not any("/" in word.value for word in words[: max(unwrapped.index, 1)])
            from_input = unwrapped.from_input
            placeholders = unwrapped.placeholders
            what = wrappers[0] if wrappers else name
            if unwrapped.problem:
                builder.unknown(unwrapped.problem)
            for word in words[: unwrapped.index]:
                # `env 'BASH_'ENV=f bash`, `env 'BASH_FUNC_ls%%=() { ..; }' bash`: a new bash
                # reads a file, or takes functions, that the text does not show
                variable = word.value.partition("=")[0] if "=" in word.value[1:] else ""
                if variable.startswith("BASH_FUNC_") or variable in SPECIAL_VARIABLES:
                    builder.unknown(f"{what} sets {variable} for the program it runs")
                elif variable:  # `env GIT_EXTERNAL_DIFF=rm git diff`
                    value = None if word.dynamic else word.value.partition("=")[2]
                    judge_variable(variable, value, run_cwds, self.ctx, self.depth)
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
                # (the wrappers, the joining one included, are what runs: `time taskset -c 0
                # parallel rm ::: x` runs taskset and parallel, so they are named)
                self.record(
                    words, 0, program_name(name), prefix, redirects, run_cwds, wrappers, dynamic_words
                )
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
                if "exec" in wrappers and name in POSIX_SHELLS and _login_argv0(words[:index]):
                    # `exec -l bash -c x`, `exec -a -sh sh -c x`: a login shell runs ~/.profile
                    builder.unknown(f"exec makes {name} a login shell, which runs startup files")
                if unwrapped.package and not head.dynamic:
                    name = package_name(name)
                programs = self.shell.hashed.get(name)
                if (
                    programs is not None
                    and not head.dynamic
                    and builtins
                    and _HASH_WRAPPERS.issuperset(wrappers)
                    and "hash " + name not in self.shell.expanding
                ):
                    # `command del`, `exec del` after `hash -p /bin/rm del`: bash runs rm
                    self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
                    return self.hashed(programs, words, index, cwds, prefix, redirects)
        real = words[index:] if index else words
        if placeholders:
            self.filled(real, placeholders, wrappers[-1] if wrappers else name)
        if not head.dynamic and (bare or program_name(name) in ("newgrp", "sg", "su")):
            self.bare_shell(program_name(name), real[1:], run_cwds, stdin, wrappers if from_input else ())
        if head.dynamic:
            builder.unknown(f"dynamic command name {head.raw}")
            # (`${X:-rm} x`, `rm${IFS}x`: what it most likely runs, for deny rules)
            builder.pattern(" ".join(guess(" ".join(w.raw for w in real)).split()))
        elif ("*" in name or "?" in name or "[" in name) and name != "[" and unquoted_glob(head):
            builder.unknown(f"a glob in the command name {head.raw}")
            rest = "".join(" " + w.shown() for w in real[1:])
            for found in self.glob_names(head.value, run_cwds):
                builder.pattern(found + rest)  # `/bin/r? x` may run `rm x`
        else:
            # the name, or a wrapper's name before it (`{timeout,} 5 ls`), made by brace
            # expansion: what runs depends on how the words fell into place
            for word in words[: index + 1]:
                if "{" in word.raw and word.raw != word.value and brace_words(word.raw) != [word.raw]:
                    builder.unknown(f"a brace expansion in the command name {word.raw}")
                    break
        if len(real) > 1 and not head.dynamic and not known(program_name(name)):
            # a program the scanner does not know may run what follows it (`rtk rm -rf x`,
            # `trickle -d 10 rm x`, `aws-vault exec p -- rm x`, `sg grp 'rm x'`): the whole
            # as written, its own words' places, then what it runs judged as a command of
            # its own (`rtk sudo rm x` is `sudo rm x`, so `rm x` too)
            behind = self.behind(real, run_cwds)
            if behind:
                self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
                self.loose_paths(program_name(name), real[1:behind], run_cwds)
                self.judge(
                    real[behind:],
                    run_cwds,
                    redirects=redirects,
                    writes=writes,
                    stdin=stdin,
                    aliases=False,
                    here=False,  # (in the program's child: `zz eval 'f() {..}'` defines no f here)
                )
                return cwds
        if not head.dynamic and "/" in name and name[:1] not in "/\\" and run_cwds:
            # a relative path that leads out of the project names a program there
            # (`../../usr/bin/rm` is rm); one inside stays the project's own script
            absolute = os.path.normpath(os.path.join(run_cwds[0], name))
            if not resolver.inside(absolute):
                name = absolute
        if not head.dynamic and name[:1] in "/\\":
            name = program_name(name)
        role = _ROLES.get(name, 0)
        if (
            role & _CD
            and head.value == name
            and builtins
            and _BUILTIN_WRAPPERS.issuperset(wrappers)
            and not (self.shell.posix and name in ("pushd", "popd"))  # (sh has neither)
        ):
            # the shell's own cd (`builtin cd`, `command cd` too); `env cd`, `nice cd`,
            # `/usr/bin/cd` run a program of that name, which moves no cwd of this shell
            if writes:
                self.record(words, index, name, prefix, redirects, cwds, wrappers, dynamic_words)
            builder.seen = True
            return self.cd(name, real[1:], run_cwds)
        if name in ("source", ".") and builtins and _BUILTIN_WRAPPERS.issuperset(wrappers):
            self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
            return self.source(real[1:], run_cwds, stdin)
        self.record(words, index, name, prefix, redirects, run_cwds, wrappers, dynamic_words)
        if name in _DEFINERS and builtins and _BUILTIN_WRAPPERS.issuperset(wrappers):
            # (`flock f alias x=y` runs a program named alias: it defines nothing here)
            self.define(name, real[1:])
        if name in ASSIGNERS and builtins and _BUILTIN_WRAPPERS.issuperset(wrappers):
            # `read $'\\x48'OME`, `printf -vHOME x`, `unset ${X}ME`: the shell's own
            # builtin assigns HOME, which the text never shows as a word
            problem = assigned_name_problem(name, real[1:])
            if problem is not None:
                builder.unknown(problem)
        if name in ("history", "ulimit", "set", "shopt", "enable") and builtins:
            self.shell_files(name, real[1:], run_cwds)
        # the walker judges a plain `let` and `declare -i` by the values it can see; written
        # any other way (`$'let'`, `builtin let`, `"declare" -i`, `time let`) it is not seen
        if (
            name in _ARITHMETIC
            and (index or head.raw != name or name != "let" or (prefix and prefix[0].raw == "time"))
            and (name == "let" or any(w.value[:1] == "-" and "i" in w.value for w in real[1:]))
        ):
            builder.unknown(f"{head.raw} evaluates its words as arithmetic, which may run a command")
        hidden = runs_from_arguments(name, real[1:])
        if hidden is not None:
            builder.unknown(hidden)
        code = inline_code_problem(name, real[1:], stdin, bash_nesting.NO_STDIN)
        if code is not None:
            builder.unknown(code)
        if name in SQL_SHELLS and stdin is not bash_nesting.NO_STDIN:
            # `sqlite3 db <<< '.shell x'`: the SQL comes from its input
            problem = sql_text_problem(name, stdin)
            if problem is not None:
                builder.unknown(problem)
        if len(real) > 1 and run_cwds:
            self.option_globs(real[1:], run_cwds)
        if not role & _PATHS and len(real) > 1:
            # the shell itself lists what a glob matches, whatever the command (`echo
            # /outside/*`, `echo */` through a link that leads out)
            self.globs(real[1:], run_cwds, name)
        if name.startswith("git-") and not head.dynamic and GitCommand.dashed(name):
            # `/usr/lib/git-core/git-push`, `git-push` with git-core on PATH: `git push`
            dashed = [Word.literal(name[4:]), *real[1:]]
            self.builder.pattern(" ".join(["git", *(w.shown() for w in dashed)]))
            GitCommand(self).check(dashed, run_cwds)
            return cwds
        if not role:
            if len(real) > 1 and not head.dynamic and name not in _REMOTE:
                self.loose_paths(name, real[1:], run_cwds)
            return cwds
        args = real[1:]
        if name in _PYTHONS and len(args) > 1 and args[0].value == "-m" and args[1].value in SHAPES:
            # `python -m pip install -t DIR`, `python -m venv DIR`: the module's own options
            module = args[1].value
            self.files(module, args[2:], run_cwds, module in WRITERS, from_input)
        elif role & _PATHS:
            self.files(name, args, run_cwds, role & _WRITES != 0, from_input)
        if name == "git":
            GitCommand(self).check(args, run_cwds)
        if role & _RUNS:
            # `nice eval 'cd x; f() { ..; }'` runs a program named eval (if any) in a
            # child: this shell stays where it was and defines nothing; only the shell's
            # own eval (`builtin eval` too) moves it or defines functions in it
            here = builtins and _BUILTIN_WRAPPERS.issuperset(wrappers)
            after = self.runs(name, args, cwds, run_cwds, stdin, here=here)
            return after if here else cwds
        return cwds

    def indirect(
        self,
        words: list[Word],
        cwds: Cwds,
        prefix: list[Word] | None,
        redirects: list[str] | None,
        dynamic_words: bool,
    ) -> tuple[bool, Cwds]:
        """A name that stands for something else in this shell (aliases aside, see
        `alias`): a defined function (its body, scanned from these cwds with these
        arguments; unknown when it calls itself) or else a `hash -p` name (the program
        it names). Records the command as
        written, then returns (True, the cwds after what it stands for); (False, cwds)
        when the name stands for itself."""
        shell = self.shell
        head = words[0]
        name = head.value
        # bash looks a name up as a function before its hash table (`hash -p /bin/true f`
        # does not stop `f() { rm x; }` from running)
        body = shell.functions.get(name)
        if body is not None:
            self.record(words, 0, name, prefix, redirects, cwds, (), dynamic_words)
            self.globs(words[1:], cwds, name)  # the shell lists `zz */` before the call
            if "function " + name in shell.expanding:
                # it calls itself, each time from where the last left off: not followed
                self.builder.unknown(f"function {name} calls itself")
                return True, cwds
            shell.expanding.add("function " + name)
            try:
                after = body(cwds, words[1:])
            finally:
                shell.expanding.discard("function " + name)
            programs = shell.hashed.get(name)
            if programs is not None and "hash " + name not in shell.expanding:
                # the definition may sit on a branch that did not run (`cd d && zz() {..};
                # hash -p /bin/x zz; zz` runs /bin/x when the cd fails): both count
                after = union_cwds(after, self.hashed(programs, words, 0, cwds, prefix, redirects))
            return True, after
        # (each kind of name has its own guard: `alias zz=zz` then `hash -p /bin/rm zz`
        # runs rm through both)
        programs = shell.hashed.get(name)
        if programs is not None and "hash " + name not in shell.expanding:
            self.record(words, 0, name, prefix, redirects, cwds, (), dynamic_words)
            return True, self.hashed(programs, words, 0, cwds, prefix, redirects)
        return False, cwds

    def run_anew(self, source: str, cwds: Cwds, what: str) -> Cwds:
        """Scan `source` as text this same shell reads afresh (`eval`'s words, a `trap`
        action, `source /dev/stdin`); returns the cwds after it.

        bash looks names up again in new text: an alias, `hash -p` name or function
        being expanded around it expands again inside it (`alias zz=eval; zz 'zz x'`).
        So the recursion guards are lifted for it; `MAX_DEPTH` still ends a loop."""
        shell = self.shell
        outer = shell.expanding
        shell.expanding = set()
        try:
            return self.run_here(source, cwds, what)
        finally:
            shell.expanding = outer

    def hashed(
        self,
        programs: list[str],
        words: list[Word],
        index: int,
        cwds: Cwds,
        prefix: list[Word] | None,
        redirects: list[str] | None,
    ) -> Cwds:
        """Judge `words` with the name at `index` replaced by each program a `hash -p` gave
        it; returns the cwds any of them may leave."""
        head = words[index]
        key = "hash " + head.value
        self.shell.expanding.add(key)
        outs: list[Cwds] = []
        try:
            for program in programs:
                hashed = Word.literal(program, head.start, head.end)
                rewritten = [*words[:index], hashed, *words[index + 1 :]]
                outs.append(self.judge(rewritten, cwds, prefix=prefix, redirects=redirects))
            after = outs[0]
            for found in outs[1:]:
                after = union_cwds(after, found)
        finally:
            self.shell.expanding.discard(key)
        return after

    def alias(self, text: str, words: list[Word], cwds: Cwds, prefix: list[Word] | None) -> Cwds:
        """Scan alias `text` in place of the name `words[0]`, with the words after it;
        returns the cwds after it.

        Whether bash expands it is not known from the text: a non-interactive bash only
        after `shopt -s expand_aliases`, and only for lines read after the one that
        defined it (a compound command is read whole first). So the caller scans the
        name as not an alias too, and both count.
        """
        shell = self.shell
        name = words[0].value
        shell.expanding.add(name)
        # (what came before the name stays before its text: `X=1 zz`, and `time zz` with
        # `alias zz=-p` is `time -p`)
        lead = "".join(w.raw + " " for w in prefix) if prefix else ""
        try:
            return self.run_here(lead + text + " " + rest_text(words[1:]), cwds, f"alias {name}")
        finally:
            shell.expanding.discard(name)

    def define(self, name: str, args: list[Word]) -> None:
        """`alias`, `unalias`, `hash`: record what the name will stand for afterwards."""
        shell = self.shell
        shell.defines(name, args)
        for problem in shell.problems:
            self.builder.unknown(problem)
        shell.problems.clear()

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
        # (Word.shown inlined: this runs for every word of every command)
        shown = [w.raw if w.dynamic or w.raw == w.value else quoted(w.value) for w in words]
        tail = " " + " ".join(redirects) if redirects else ""
        if prefix:
            lead = [w.shown() for w in prefix]
            text = " ".join(lead + shown) + tail
        else:
            lead = []
            text = " ".join(shown) + tail
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

    def runs(
        self, name: str, args: list[Word], cwds: Cwds, run_cwds: Cwds, stdin: str | None, *, here: bool = True
    ) -> Cwds:
        """Scan the command text `name` runs (a shell's -c string, eval's words...).
        `here=False`: eval and trap are programs of that name (behind `nice`, `env`...),
        so their text is scanned as a child shell's, which sees and keeps none of this
        shell's functions, aliases or cwd."""
        ctx = self.ctx
        if not here and name in ("eval", "trap"):

            def child(source: str, at: Cwds, what: str) -> Cwds:
                return ctx.nest("bash", source, at, self.depth + 1, what)

            if name == "eval":
                bash_nesting.evaluate(args, run_cwds, ctx, child)
            else:
                bash_nesting.trap(args, run_cwds, ctx, child)
            return cwds
        if name in POSIX_SHELLS:
            bash_nesting.shell(name, args, run_cwds, stdin, ctx, self.depth)
        elif name in FOREIGN_SHELLS:
            bash_nesting.foreign(name, args, run_cwds, ctx, self.depth)
        elif name == "eval":
            return bash_nesting.evaluate(args, run_cwds, ctx, self.run_anew)
        elif name == "find":
            self.find_exec(args, run_cwds)
        elif name == "trap":
            bash_nesting.trap(args, run_cwds, ctx, self.run_anew)
        else:
            bash_nesting.su(name, args, run_cwds, ctx, self.depth)
        return cwds

    def filled(self, real: list[Word], placeholders: list[str], what: str) -> None:
        """`real` is a command whose words `what` (xargs -I, parallel, find -exec) fills
        with what it reads or finds: a placeholder in the program's name, or in the words
        of one that runs text as commands (`xargs -I{} sh -c {}`, `find -exec sh -c 'echo
        {}'`: a file named `$(rm x)` runs rm), makes the scan unknown."""
        head = real[0]
        runs_text = not head.dynamic and program_name(head.value) in _RUNS_TEXT
        for k, word in enumerate(real):
            if k and not runs_text:
                break
            if any(mark in word.value for mark in placeholders):
                where = "the program's name" if k == 0 else "command text"
                self.builder.unknown(f"{what} puts what it reads into {where}: {word.raw}")
                return

    def bare_shell(
        self, name: str, args: list[Word], cwds: Cwds, stdin: str | None, feeders: tuple[str, ...]
    ) -> None:
        """A program given no program to run (`unshare -r`, `su -`, `newgrp`): many start
        the user's shell, which reads its commands from standard input (`su <<< 'rm x'`
        runs rm), so that input is scanned as a shell's, or the scan is unknown. Behind
        xargs or parallel (`feeders`), the words they add from their input become the
        program (`echo rm x | xargs env` runs rm): unknown."""
        if feeders:
            self.builder.unknown(f"{feeders[-1]} adds words from its input to {name}, which runs them")
            return
        if name in ("newgrp", "sg"):
            if len([w for w in args if not w.value.startswith("-")]) > 1:
                return  # `sg grp CMD`: CMD runs through sh -c (see `behind`)
        elif name == "su":
            if bash_nesting.su_shell(args, self.builder):
                return
        elif name not in bash_nesting.SHELL_WHEN_BARE:
            return
        bash_nesting.shell(name, [], cwds, stdin, self.ctx, self.depth)

    def globs(self, words: list[Word], cwds: Cwds, what: str) -> None:
        """Check the unquoted glob words among `words` as paths the shell itself lists (a
        command's words, a for list, an array): a match outside, or through a link that
        leads out, names its directory."""
        for word in words:
            if not word.dynamic and unquoted_glob(word):
                self.resolver.check(word, cwds, what)

    def behind(self, words: list[Word], cwds: Cwds) -> int:
        """Where a command an unknown program `words[0]` may run starts: the index of its
        first word naming a program of `_BEHIND` (`/bin/rm` too), else 0. Its words holding
        a whole command line of one (`'rm x'`, as `sg grp 'rm x'` or `tmux new 'rm x'`
        pass to a shell) are scanned as bash before that."""
        for k in range(1, len(words)):
            word = words[k]
            if word.dynamic:
                continue
            value = word.value
            if program_name(value) in _BEHIND:
                return k
            first = value.split(None, 1)[0] if value.strip() else ""
            if first != value and program_name(first) in _BEHIND:
                self.ctx.nest("bash", value, cwds, self.depth + 1, program_name(words[0].value))
        return 0

    def loose_paths(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """A program the scanner knows nothing of (`./tools/x`, a binary of some package):
        its words that name a place outside by themselves (`/etc/x`, `~/.ssh/k`, a
        `--opt=/x` or `key=/x` value, and `@/x` or `key=@/x`, which many clients read a
        file from) are taken as paths it reads, so their directories are asked for and
        external-directory rules see them. `/` alone, URLs and the route of an API client
        (`gh api /repos/o/r`) are not."""
        api = name in _API_CLIENTS and bool(args) and args[0].value == "api"
        for word in args:
            value = word.value
            start = value.find("=") + 1 if "=" in value and value[:1] not in "/~@" else 0
            if value[start : start + 1] == "@":
                start += 1
            elif api and not start:
                continue  # a route, not a file
            text = value[start:]
            if text[:1] not in ("/", "~") or not text.strip("/") or "://" in text:
                continue
            self.resolver.check(word.suffix(start) if start else word, cwds, name)

    def files(self, name: str, args: list[Word], cwds: Cwds, writes: bool, from_input: bool) -> None:
        """Check the files a command names (its shape's path words: operands, `-o FILE`,
        `-C DIR`...) and report those it writes (see scan_writes.written).

        `from_input`: it runs under xargs, which adds paths from its input.
        """
        resolver = self.resolver
        targets: list[Target]
        links: list[Word] | None = None  # `ln -s`'s operands
        if name == "find":
            paths = find_paths(args)
            targets = find_writes(args)
            operands = True
        elif name == "dd":  # `if=FILE` read, `of=FILE` written: key=value operands
            paths = [w.suffix(3) for w in args if w.value[:3] in ("if=", "of=")]
            targets = written(read(SHAPES[name], args)) if writes else []
            operands = True
        else:
            shape = SHAPES[name]
            operands = shape.operands != "none"
            if (
                writes
                or shape.subcommands is not None
                or shape.old_style
                or any(w.value[:1] == "-" for w in args)
            ):
                parsed = read(shape, args)
                paths = parsed.path_words()
                targets = written(parsed) if writes else []
                if name == "ln" and ("s" in parsed.seen or "--symbolic" in parsed.seen):
                    links = parsed.operands
            else:  # (the common case, `cat a b`: no option, nothing written)
                targets = []
                kind = shape.operands
                paths = (
                    args
                    if kind == "all"
                    else args[1:]
                    if kind == "skip1"
                    else args[:1]
                    if kind == "first"
                    else []
                )
        if name in ("sed", "gsed") and args:  # `sed '1r FILE'` reads FILE too
            paths = [*paths, *sed_script_reads(read(SHAPES[name], args))]
        if from_input and (paths or operands):
            self.builder.unknown(f"xargs passes paths from its input to {name}")
        for word in paths:
            if word.value != "{}" and not (word.dynamic and name == "git"):  # (`git log "$REV"`)
                resolver.check(word, cwds, name)
        for target in targets:
            word = target.word
            if not word.dynamic and word not in paths:  # `sed 'w /x'`, `git init /x`, `-v /:/h`
                resolver.check(word, cwds, name)
            if not target.read_only:
                resolver.target(word, cwds, target.into, target.directory)
        if from_input and writes:
            self.builder.wrote("*")  # `xargs rm`: the files come from its input
        if links is not None:  # (after its own writes: `ln -s /x l` writes l, not /x)
            self.made_links(links, targets, cwds)

    def option_globs(self, args: list[Word], cwds: tuple[str, ...]) -> None:
        """`sort *` beside a file named `-opwn` (or one an earlier command makes): bash puts
        the name among the words and the program reads it as an option (`-o pwn` writes
        pwn; tar's `--checkpoint-action=exec=..` runs a command). A glob that starts with a
        wildcard and may match such a name makes the scan unknown. After `--`, or with a
        path before the wildcard (`./*`), a name cannot read as an option."""
        from fnmatch import fnmatchcase

        made: list[str] | None = None
        for word in args:
            value = word.value
            if value == "--" and not word.dynamic:
                return
            if word.dynamic or value[:1] not in ("*", "?", "[") or not unquoted_glob(word):
                continue
            pattern = value.split("/", 1)[0]
            if made is None:
                made = [os.path.basename(p) for p in self.builder.written() if "/-" in p]
            names = list(made)
            for cwd in cwds:
                try:
                    with os.scandir(cwd) as entries:
                        names += [e.name for e in entries if e.name[:1] == "-"]
                except OSError:
                    continue
            for name in names:
                if fnmatchcase(name, pattern):
                    self.builder.unknown(f"{word.raw} matches {name}, which a program reads as an option")
                    return

    def made_links(self, operands: list[Word], targets: list[Target], cwds: Cwds) -> None:
        """`ln -s T... L`: the links it makes, so later paths through them (`ln -s
        /outside l; echo x > l/y`) are judged where they lead; a dynamic word or an
        unknown cwd makes the scan unknown."""
        if cwds is None or any(w.dynamic for w in operands):
            self.builder.unknown("ln -s with a dynamic word: where later paths lead is not in the text")
            return
        for target in targets:
            place = self.resolver.expand(target.word, cwds[0])
            if place is None:
                self.builder.unknown("ln -s to a place that cannot be known")
                return
            sources = operands[: len(target.into)] if target.into else operands[:1]
            for cwd in cwds:
                where = os.path.normpath(os.path.join(cwd, place))
                if target.into and (target.directory or place.endswith("/") or os.path.isdir(where)):
                    for source, base in zip(sources, target.into, strict=False):
                        self.resolver.made_link(os.path.join(where, base), source.value)
                elif sources:
                    self.resolver.made_link(where, sources[0].value)

    @staticmethod
    def glob_names(pattern: str, cwds: Cwds) -> list[str]:
        """The program names a glob in a command name may expand to here (at most 32)."""
        import glob

        base = "" if pattern.startswith("/") or not cwds else cwds[0]
        names: list[str] = []
        try:
            for path in glob.iglob(os.path.join(base, pattern)):
                names.append(os.path.basename(path))
                if len(names) >= 32:
                    break
        except (OSError, ValueError):
            pass
        return names

    def source(self, args: list[Word], cwds: Cwds, stdin: str | None) -> Cwds:
        """`source FILE` / `. FILE` runs the file's commands in this shell: they cannot be
        seen (and may define functions, aliases, cwd), so the scan is unknown; except
        `source /dev/stdin` fed a literal here-document or here-string, which is scanned."""
        operands = [w for w in args if not (w.value.startswith("-") and not w.dynamic)]
        target = operands[0] if operands else None
        if (
            target is not None
            and not target.dynamic
            and target.value in ("/dev/stdin", "/proc/self/fd/0")
            and stdin is not None
            and stdin is not bash_nesting.NO_STDIN
        ):
            return self.run_anew(stdin, cwds, "source")
        what = target.raw if target is not None else "no file"
        if target is not None:
            self.resolver.check(target, cwds, "source")
        self.builder.unknown(f"source {what}: runs a file's commands in this shell, which cannot be seen")
        return None

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
        if operands and not operands[0].dynamic and unquoted_glob(operands[0]):
            self.resolver.check(operands[0], cwds, name)
            self.builder.unknown(f"{name} to a glob {operands[0].raw}: where it leads is not in the text")
            return None
        return self.resolver.cd(operands[0] if operands else None, cwds, name)

    def shell_files(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """Files the shell itself writes for a builtin: `history -w/-a [FILE]` (without a
        FILE, $HISTFILE, which the text may have moved: unknown), `set -o history` and
        `shopt -os history` (bash then records the lines read after it and writes them to
        $HISTFILE when it exits: unknown) and `ulimit -c N`, after which a crashing program
        leaves a core file wherever the kernel says. Also the builtins that change what
        later commands do: `enable` (which builtins run) and the options of
        `bash_nesting.OPTION_RISKS` and `OFF_RISKS`."""
        flags = "".join(w.value[1:] for w in args if w.value[:1] == "-" and not w.dynamic)
        operands = [w for w in args if w.value[:1] != "-" or w.dynamic]
        if name == "history" and ("w" in flags or "a" in flags):
            if not operands:
                self.builder.unknown("history -w/-a writes $HISTFILE, which the text may have set")
            for word in operands:
                self.resolver.check(word, cwds, name)
                self.resolver.target(word, cwds)
        elif name == "ulimit" and "c" in flags and any(w.dynamic or w.value != "0" for w in operands):
            self.builder.unknown("ulimit -c lets a crashing program write a core file")
        elif name == "enable" and (operands or set(flags) & set("fnd")):
            # `enable -n cd` makes `cd` run a program (no cwd of this shell moves), `enable
            # -f lib.so x` loads code into bash
            self.builder.unknown("enable changes which builtins bash runs")
        elif name in ("set", "shopt"):
            for risk in bash_nesting.set_risks(name, args):
                self.builder.unknown(risk)

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
                    self.filled(sub, ["{}"], f"find {value}")
                    self.judge(list(sub), cwds)
                i = j
            i += 1
