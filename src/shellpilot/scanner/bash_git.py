"""What one git command runs and writes beyond its words: config given with `-c` that runs
programs, aliases (`-c alias.x='!cmd'`, `git config alias.x`, the config files), the
repositories whose config it reads, and the work tree files its subcommand rewrites.

Owns: `GitCommand.judge`. Must not touch: reading repository files (git_repos.py) or
patterns (bash_command.py records the command first).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.git_repos import git_alias, git_dir, risky_config
from shellpilot.scanner.words import Word, shown

if TYPE_CHECKING:
    from shellpilot.scanner.bash_shell import BashShell
    from shellpilot.scanner.scan_paths import PathResolver
    from shellpilot.scanner.scan_result import ScanBuilder


class CommandJudge(Protocol):
    """What a git judgement uses of the command judge (`bash_command.CommandJudge`), named
    here so this module needs no import of the judge that calls it."""

    ctx: ScanContext
    builder: ScanBuilder
    resolver: PathResolver
    shell: BashShell
    depth: int

    def run_here(self, source: str, cwds: Cwds, what: str) -> Cwds: ...


_BUILTIN_NAMES = """
add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick
citool clean clone column commit commit-graph commit-tree config count-objects
credential describe diagnose diff diff-files diff-index diff-tree difftool fast-export
fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo
format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init
instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit
maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree
multi-pack-index mv name-rev notes pack-objects pack-refs patch-id prune prune-packed
pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere
reset restore rev-list rev-parse revert rm scalar send-email shortlog show show-branch
show-index show-ref sparse-checkout stash status stripspace submodule switch
symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info
var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs
"""
_BUILTINS = frozenset(_BUILTIN_NAMES.split())
"""git's own commands (and git-lfs): an alias can never shadow one of these."""

# Subcommands that rewrite files of the work tree (everything under its root may change).
_WORKTREE_NAMES = """checkout switch restore stash merge rebase pull cherry-pick revert am apply clean
submodule sparse-checkout read-tree checkout-index"""
_WORKTREE = frozenset(_WORKTREE_NAMES.split())
_QUERIES = frozenset({"list", "show", "status", "summary"})
_READ_ONLY_FORMS = frozenset(
    {"--check", "--stat", "--numstat", "--summary", "--cached", "-n", "--dry-run", "--list"}
)
# Config keys (lowered; `*` = any middle part) whose value git runs as a program or command.
_PROGRAM_KEYS = (
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.askpass",
    "core.hookspath",
    "sequence.editor",
    "diff.external",
    "diff.*.textconv",
    "diff.*.command",
    "merge.*.driver",
    "filter.*.clean",
    "filter.*.smudge",
    "filter.*.process",
    "gpg.program",
    "gpg.*.program",
    "credential.helper",
    "pager.*",
    "interactive.difffilter",
    "uploadpack.packobjectshook",
    "include.path",
    "includeif.*",
)


def _runs_program(key: str) -> bool:
    parts = key.lower().split(".")
    for pattern in _PROGRAM_KEYS:
        want = pattern.split(".")
        if want[-1] == "*" and len(want) == 2 and parts[0] == want[0] and len(parts) >= 2:
            return True
        if len(want) == len(parts) and all(w in ("*", p) for w, p in zip(want, parts, strict=True)):
            return True
        if (
            len(want) == 3
            and len(parts) == 3
            and want[1] == "*"
            and want[0] == parts[0]
            and want[2] == parts[2]
        ):
            return True
    return False


class GitCommand:
    """Judges one `git` command for a `CommandJudge` (its shell, context and depth)."""

    __slots__ = ("judge",)

    def __init__(self, judge: CommandJudge) -> None:
        self.judge = judge

    @staticmethod
    def dashed(name: str) -> bool:
        """Whether `name` is one of git's own programs by its dashed name (`git-push`),
        which git-core holds and runs like `git push`."""
        return name[4:] in _BUILTINS

    def check(self, args: list[Word], cwds: Cwds) -> None:
        """Scan what `git ARGS` run from `cwds` runs and writes beyond its own words."""
        judge = self.judge
        builder = judge.builder
        local: dict[str, str] = {}
        dirs: list[str] = []
        gitdir: str | None = None
        i = 0
        n = len(args)
        while i < n:
            word = args[i]
            v = word.value
            if word.dynamic or not v.startswith("-"):
                break
            value: Word | None = None
            if v in ("-c", "-C", "--git-dir", "--work-tree", "--config-env", "--namespace", "--exec-path"):
                value = args[i + 1] if i + 1 < n else None
                i += 1
            elif v.startswith("-c") and len(v) > 2:
                value, v = word.suffix(2), "-c"
            elif "=" in v:
                v, _, _ = v.partition("=")
                value = word.suffix(len(v) + 1)
            i += 1
            if value is None:
                continue
            if value.dynamic:
                if v in ("-c", "--config-env", "--exec-path", "--git-dir"):
                    builder.unknown(f"git {v} with a dynamic value {value.raw}")
                continue
            if v == "-c":
                self.config(value.value, local, cwds)
            elif v == "--config-env":
                key = value.value.partition("=")[0]
                if _runs_program(key) or key.lower().startswith("alias."):
                    builder.unknown(f"git --config-env {key}: a program set from the environment")
            elif v == "-C":
                dirs.append(value.value)
            elif v == "--git-dir":
                gitdir = value.value
            elif v == "--exec-path":
                builder.unknown("git --exec-path runs git's programs from another directory")
        rest = args[i:]
        if i and rest:
            # `git -C . push`, `git --no-pager push`: rules are written for `git push *`,
            # so the command is also seen without git's own options
            builder.pattern(" ".join(["git", *(w.shown() for w in rest)]))
        places = self.places(cwds, dirs)
        for place in places:
            found = risky_config(place, _joined(place, gitdir) if gitdir else None)
            if found is not None:
                builder.unknown(f"git in {found[0]} reads a config that may run a program ({found[1]})")
                break
        if not rest or rest[0].dynamic:
            return
        sub = rest[0].value
        if sub not in _BUILTINS:
            self.alias(sub, rest[1:], local, places, cwds)
            return
        given = {w.value for w in rest[1:]}
        if sub == "config":
            self.config_command(rest[1:], places)
        elif sub == "submodule" and "foreach" in given:
            self.foreach(rest[1:], cwds)
        elif sub in _WORKTREE or (sub == "reset" and {"--hard", "--merge", "--keep"} & given):
            reads = (sub in ("apply", "clean") and given & _READ_ONLY_FORMS) or (
                sub in ("stash", "submodule") and given & _QUERIES
            )
            if not reads:
                self.worktree(places)
        elif sub in ("mv", "rm"):
            for word in rest[1:]:
                if not word.value.startswith("-") or word.dynamic:
                    judge.resolver.target(word, cwds)

    def foreach(self, args: list[Word], cwds: Cwds) -> None:
        """`git submodule foreach CMD`: CMD runs through a shell in each submodule."""
        judge = self.judge
        words = args[args.index(next(w for w in args if w.value == "foreach")) + 1 :]
        words = [w for w in words if w.value not in ("--recursive", "-q", "--quiet")]
        if any(w.dynamic for w in words):
            judge.builder.unknown("git submodule foreach runs a dynamic string")
        elif words:
            judge.ctx.nest(
                "bash", " ".join(w.value for w in words), None, judge.depth + 1, "git submodule foreach"
            )

    def places(self, cwds: Cwds, dirs: list[str]) -> list[str]:
        """The directories git runs in: each cwd, then each `-C` directory in turn."""
        out: list[str] = []
        for cwd in cwds or ():
            place = cwd
            for folder in dirs:
                place = _joined(place, folder)
            out.append(place)
        return out

    def config(self, setting: str, local: dict[str, str], cwds: Cwds) -> None:
        """`-c key=value`: an alias for this command, or a program git may run."""
        key, _, value = setting.partition("=")
        lowered = key.lower()
        if lowered.startswith("alias."):
            local[lowered[len("alias.") :]] = value
        elif lowered in ("core.hookspath", "include.path") or lowered.startswith(("includeif.", "protocol.")):
            # a place whose hooks or config run (`-c core.hooksPath=h` after writing
            # h/pre-commit), or a transport allowed that runs commands (`ext::`)
            self.judge.builder.unknown(f"git -c {key}: what runs comes from files or transports")
        elif _runs_program(lowered):
            # git runs it through /bin/sh (`sh -c VALUE`): that shell runs too
            text = f"sh -c {shown(value.lstrip('!'))}"
            self.judge.ctx.nest("bash", text, cwds, self.judge.depth + 1, f"git -c {key}")

    def alias(
        self, name: str, rest: list[Word], local: dict[str, str], places: list[str], cwds: Cwds
    ) -> None:
        """`git NAME` that is no git command: an alias (`-c`, `git config` earlier on the
        line, the config files), scanned; else a `git-NAME` program, which cannot be seen."""
        judge = self.judge
        shell = judge.shell
        key = name.lower()
        value = local.get(key, shell.git_aliases.get(key))
        if value is None:
            value = next((v for v in (git_alias(name, p) for p in places) if v is not None), None)
        if value is None:
            judge.builder.unknown(f"git {name} is no git command: an alias or a git-{name} program")
            return
        if key in shell.expanding:
            return
        tail = " ".join(w.shown() for w in rest)
        shell.expanding.add(key)
        try:
            if value.startswith("!"):  # run by git through /bin/sh, with the words after it
                text = f"sh -c {shown(f'{value[1:]} {tail}'.strip())}"
                judge.ctx.nest("bash", text, cwds, judge.depth + 1, f"git alias {name}")
            else:
                judge.run_here(f"git {value} {tail}", cwds, f"git alias {name}")
        finally:
            shell.expanding.discard(key)

    def config_command(self, args: list[Word], places: list[str]) -> None:
        """`git config [--global|--system|--file F] KEY VALUE`: writes that file; an
        `alias.*` key is remembered for `git NAME` later on the line."""
        judge = self.judge
        scope = ""
        target: Word | None = None
        operands: list[Word] = []
        i = 0
        while i < len(args):
            word = args[i]
            v = word.value
            if v in ("--global", "--system", "--local", "--worktree"):
                scope = v
            elif v in ("-f", "--file"):
                target = args[i + 1] if i + 1 < len(args) else None
                i += 1
            elif v.startswith("--file="):
                target = word.suffix(len("--file="))
            elif v.startswith("-") and not word.dynamic:
                if v in (
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "-l",
                    "--list",
                    "--show-origin",
                    "-e",
                    "--edit",
                ):
                    return  # reads (`--edit` runs the editor, which is `true` here)
            else:
                operands.append(word)
            i += 1
        if len(operands) < 2:
            return  # `git config KEY` reads it
        key = operands[0]
        if not key.dynamic and key.value.lower().startswith("alias."):
            value = operands[1]
            name = key.value.lower()[len("alias.") :]
            if value.dynamic:
                judge.builder.unknown(f"git config {key.value} with a dynamic value")
            else:
                judge.shell.git_aliases[name] = value.value
        resolver = judge.resolver
        if target is not None:
            resolver.target(target, tuple(places) or None)
        elif scope == "--global":
            resolver.target(Word.literal(os.path.join(resolver.home, ".gitconfig")), None)
        elif scope == "--system":
            resolver.target(Word.literal("/etc/gitconfig"), None)
        else:
            for place in places:
                found = git_dir(place)
                if found is not None:
                    resolver.target(Word.literal(os.path.join(found[1], "config")), None)

    def worktree(self, places: list[str]) -> None:
        """A subcommand that rewrites the work tree: every file under its root."""
        resolver = self.judge.resolver
        for place in places:
            found = git_dir(place)
            root = found[0] if found is not None else place
            resolver.target(Word.literal(root), None, ("*",), directory=True)


def _joined(base: str, folder: str) -> str:
    return os.path.normpath(os.path.join(base, os.path.expanduser(folder)))


__all__ = ["GitCommand"]
