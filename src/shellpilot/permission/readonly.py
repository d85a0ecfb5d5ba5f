"""The built-in read-only command set, judged on a parsed argv (never on the command string).

Owns: ``is_read_only`` and the per-command allow-lists of harmless flags. Must not touch:
parsing shell text into commands (``scanner/scan.py`` does that) or rules and prompts.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shellpilot.permission.expansion import (
    PRINTERS,
    expansions_allowed,
    glob_is_safe,
    has_brace_expansion,
    has_glob,
    masked_words,
    plain_text,
    same_words,
    without_null_redirects,
)
from shellpilot.permission.flags import FlagSpec, parse, words
from shellpilot.scanner.sedscript import is_safe_script

_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class _Where:
    """Where relative paths resolve (``cwd``), the project bounding them, and extra
    ``readable`` roots (e.g. the tool-output folder) that count as inside for reads."""

    cwd: Path | None
    project: Path | None
    readable: tuple[Path, ...] = ()

    def inside(self, arg: str) -> bool:
        """Does path operand ``arg`` (cut at its first glob character) stay in the project
        or a readable root, symlinks resolved?

        Dynamic values (``$``, backticks) are never inside. With neither a cwd nor a
        project, only relative paths without ``..`` count as inside.
        """
        return self._inside(arg, self.readable)

    def in_project(self, arg: str) -> bool:
        """Like ``inside`` but only the project counts (readable roots do not)."""
        return self._inside(arg, ())

    def _inside(self, arg: str, readable: tuple[Path, ...]) -> bool:
        if "$" in arg or "`" in arg:
            return False
        cut = _GLOB.search(arg)
        if cut and not self._place_inside(arg, readable):
            return False  # a quoted `[`: `cat 'h[1].txt'` names a file (maybe a link out)
        return self._place_inside(self._before_glob(arg, cut), readable)

    @staticmethod
    def _before_glob(arg: str, cut: re.Match[str] | None) -> str:
        """The directory part of ``arg`` before its first glob character (all of it without one)."""
        text = arg[: cut.start()] if cut else arg
        if cut and "/" in text:
            text = text[: text.rindex("/") + 1]
        elif cut:
            text = ""
        return text

    def _place_inside(self, text: str, readable: tuple[Path, ...]) -> bool:
        """Is the path ``text`` (taken literally) in the project or a readable root, links resolved?"""
        if text.startswith("~"):
            if text not in ("~",) and not text.startswith("~/"):
                return False  # ~user
            text = os.path.expanduser("~") + text[1:]
        boundary = self.project or self.cwd
        base = self.cwd or self.project
        path = Path(text or ".")
        if not path.is_absolute():
            if base is None:
                return ".." not in path.parts
            path = base / path
        try:
            real = os.path.realpath(path)
        except OSError:  # an unreadable link (`/proc/1/root/...`): not known to be inside
            return False
        roots = ([boundary] if boundary is not None else []) + list(readable)
        for root in roots:
            top = os.path.realpath(root)
            if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
                return True
        return False


Judge = Callable[[list[str], _Where], bool]

_PARAMETER = re.compile(r"\$(?:\{[^}]*\}|\w+|[?#$!@*0-9-])")
"""A parameter expansion (``$HOME``, ``${HOME}``, ``$?``): its ``?`` or ``*`` is no glob."""


def _all_inside(paths: list[str], where: _Where) -> bool:
    return all(where.inside(p) for p in paths)


def _no_glob(args: list[str]) -> bool:
    """No operand starts with a glob: ``*`` may expand to a file named ``-i`` or ``--pre=x``
    that the command then reads as an option (``src/*.py`` cannot, it starts with ``src/``).
    """
    return not any(_GLOB.match(a) for a in args)


def _files_command(
    spec: FlagSpec, path_options: tuple[str, ...] = (), follows: tuple[str, ...] = ()
) -> Judge:
    """A command whose operands are files to read: every flag known, every path inside.

    ``follows``: options that make it follow symlinks met while walking a tree (a link
    committed in the repo may point outside), refused.
    """

    def judge(args: list[str], where: _Where) -> bool:
        parsed = parse(args, spec)
        if parsed is None or parsed.has(*follows):
            return False
        return _all_inside(parsed.operands + parsed.values(*path_options), where)

    return judge


def _flags_only(spec: FlagSpec, operands: bool = False) -> Judge:
    """A command that reads no files: known flags, operands only when ``operands``."""

    def judge(args: list[str], where: _Where) -> bool:
        parsed = parse(args, spec)
        return parsed is not None and (operands or not parsed.operands)

    return judge


def _echo(args: list[str], where: _Where) -> bool:
    return True


def _printf(args: list[str], where: _Where) -> bool:
    """printf prints its arguments; ``-v NAME`` would assign a variable instead: refused,
    and so is a first word that is a parameter expansion, whose value may be ``-v``
    (``true -v; printf "$_" PATH tools`` sets PATH)."""
    return not args or not (args[0].startswith("-v") or "$" in args[0])


DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"})
"""Device files ``head`` may read: endless or empty streams, never anyone's data."""


def _head(args: list[str], where: _Where) -> bool:
    """head: every flag known, every file inside, or one of `DEVICES` (it stops after
    its count, so ``head -c 16 /dev/urandom`` ends)."""
    parsed = parse(args, _HEAD)
    if parsed is None:
        return False
    return _all_inside([op for op in parsed.operands if op not in DEVICES], where)


_LS = FlagSpec(short_value="ITw", long_value=words("--hide --ignore --width --tabsize"), any_flag=True)
_CAT = FlagSpec(
    short="AbeEnstTuv",
    long=words(
        "--show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs "
        "--show-nonprinting --help --version"
    ),
)
_HEAD = FlagSpec(
    short="qvz",
    short_value="nc",
    long=words("--quiet --silent --verbose --zero-terminated"),
    long_value=words("--lines --bytes"),
    numeric=True,
)
_TAIL = FlagSpec(
    short="qvz",
    short_value="nc",
    long=words("--quiet --silent --verbose --zero-terminated"),
    long_value=words("--lines --bytes"),
    numeric=True,
)  # no -f/-F/--follow: they never end on their own
_WC = FlagSpec(
    short="cmlLw",
    long=words("--bytes --chars --lines --max-line-length --words --help --version"),
    long_optional=words("--total"),
)
_GREP = FlagSpec(
    short="EFGPiyvwxcLloqsbHhnTZzUaIrR",
    short_value="efmABCdD",
    long=words(
        "--extended-regexp --fixed-strings --basic-regexp --perl-regexp --ignore-case "
        "--no-ignore-case --invert-match --word-regexp --line-regexp --count "
        "--files-without-match --files-with-matches --only-matching --quiet --silent "
        "--no-messages --byte-offset --with-filename --no-filename --line-number --initial-tab "
        "--null --null-data --text --recursive --dereference-recursive --line-buffered --binary"
    ),
    long_value=words(
        "--regexp --file --max-count --label --binary-files --devices --directories --exclude "
        "--exclude-from --exclude-dir --include --after-context --before-context --context"
    ),
    long_optional=words("--color --colour"),
    numeric=True,
)
_RG = FlagSpec(
    short="iSswxvnNlcoFHhLuUaqp0P.b",
    short_value="efgtTABCmMjrEd",
    long=words(
        "--ignore-case --smart-case --case-sensitive --word-regexp --line-regexp --invert-match "
        "--line-number --no-line-number --files-with-matches --files-without-match --count "
        "--count-matches --only-matching --fixed-strings --with-filename --no-filename --follow "
        "--hidden --no-hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent "
        "--no-ignore-global --unrestricted --multiline --multiline-dotall --text --quiet --null "
        "--pretty --pcre2 --json --no-heading --heading --column --no-column --vimgrep --files "
        "--type-list --stats --trim --no-messages --byte-offset --crlf --passthru --one-file-system "
        "--no-config --line-buffered --block-buffered --glob-case-insensitive --sort-files "
        "--help --version"
    ),
    long_value=words(
        "--regexp --file --glob --iglob --type --type-not --after-context --before-context "
        "--context --max-count --max-columns --threads --replace --encoding --max-depth "
        "--max-filesize --sort --sortr --colors --path-separator --context-separator "
        "--field-match-separator --ignore-file --engine"
    ),
    long_optional=words("--color"),
)  # no --pre / --pre-glob / --hostname-bin (they run programs), no -z (runs decompressors)


def _grep_like(spec: FlagSpec, *, globs_ok: bool, follows: tuple[str, ...]) -> Judge:
    """grep/rg: the first operand is the pattern unless -e/-f gave one; the rest are paths.

    ``follows``: the options following symlinks while recursing (refused).
    """

    def judge(args: list[str], where: _Where) -> bool:
        parsed = parse(args, spec)
        if parsed is None or parsed.has(*follows):
            return False
        operands = list(parsed.operands)
        if not parsed.has("-e", "-f", "--regexp", "--file", "--files", "--type-list") and operands:
            operands = operands[1:]
        if not globs_ok and not _no_glob([a for a in operands if a not in parsed.after_dashdash]):
            return False
        return _all_inside(operands + parsed.values("-f", "--file", "--exclude-from", "--ignore-file"), where)

    return judge


_SED = FlagSpec(
    short="nErsuzb",
    short_value="el",
    long=words(
        "--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug "
        "--sandbox --binary --help --version"
    ),
    long_value=words("--expression --line-length"),
)  # no -i/--in-place, no -f/--file (a script we cannot see)


def _sed(args: list[str], where: _Where) -> bool:
    parsed = parse(args, _SED)
    if parsed is None:
        return False
    scripts = parsed.values("-e", "--expression")
    files = list(parsed.operands)
    if not scripts:
        if not files:
            return False
        scripts, files = [files[0]], files[1:]
    if not all(is_safe_script(s) for s in scripts):
        return False
    return _no_glob([f for f in files if f not in parsed.after_dashdash]) and _all_inside(files, where)


# find: predicates by number of arguments; everything else (-exec, -execdir, -ok, -okdir,
# -delete, -fprint, -fprint0, -fprintf, -fls, -files0-from, ...) is not read-only; nor
# -L / -follow (they follow symlinks met in the walk, which may point outside).
_FIND_0 = words(
    "-print -print0 -ls -prune -quit -true -false -empty -readable -writable -executable -nouser "
    "-nogroup -depth -d -xdev -mount -daystart -noleaf -ignore_readdir_race "
    "-noignore_readdir_race -not -a -and -o -or ! ( ) ,"
)
_FIND_1 = words(
    "-name -iname -path -ipath -wholename -iwholename -lname -ilname -regex -iregex -regextype "
    "-type -xtype -maxdepth -mindepth -size -mtime -mmin -atime -amin -ctime -cmin -used -perm "
    "-user -group -uid -gid -links -inum -printf -fstype -context"
)
_FIND_PATH_1 = words("-newer -anewer -cnewer -samefile")
_FIND_NEWER = re.compile(r"-newer[aBcmt][aBcmt]")


def _find(args: list[str], where: _Where) -> bool:
    i = 0
    while i < len(args) and args[i] in ("-H", "-P"):
        i += 1
    roots: list[str] = []
    while i < len(args) and not (args[i].startswith("-") or args[i] in ("!", "(", ")", ",")):
        roots.append(args[i])
        i += 1
    if not _no_glob(roots) or not _all_inside(roots, where):
        return False
    while i < len(args):
        token = args[i]
        i += 1
        if token in _FIND_0:
            continue
        if token in _FIND_1 or (_FIND_NEWER.fullmatch(token) and token.endswith("t")):
            i += 1  # (`-newermt DATE` compares with a time, not a file)
        elif token in _FIND_PATH_1 or _FIND_NEWER.fullmatch(token):
            if i >= len(args) or not where.inside(args[i]):
                return False
            i += 1
        else:
            return False
    return i == len(args)


_PWD = FlagSpec(short="LP")
_UNAME = FlagSpec(
    short="asnrvmpio",
    long=words(
        "--all --kernel-name --nodename --kernel-release --kernel-version --machine --processor "
        "--hardware-platform --operating-system --help --version"
    ),
)
_WHICH = FlagSpec(short="a")
_NAMES = FlagSpec(short="az", short_value="s", long=words("--multiple --zero"), long_value=words("--suffix"))
_DATE = FlagSpec(
    short="uR",
    short_value="d",
    short_optional="I",
    long=words("--utc --universal --rfc-email --help --version"),
    long_value=words("--date"),
    long_optional=words("--iso-8601 --rfc-3339"),
)  # no -s/--set (sets the clock), no -f/--file


def _date(args: list[str], where: _Where) -> bool:
    parsed = parse(args, _DATE)
    return parsed is not None and all(op.startswith("+") for op in parsed.operands)


_STAT = FlagSpec(
    short="LftZ",
    short_value="c",
    long=words("--dereference --file-system --terse --help --version"),
    long_value=words("--format --printf --cached"),
)
_DU = FlagSpec(
    short="0abcDhHklLmsSxP",
    short_value="dBt",
    long=words(
        "--null --all --apparent-size --bytes --total --dereference-args --human-readable --si "
        "--count-links --dereference --separate-dirs --summarize --one-file-system --no-dereference "
        "--inodes --help --version"
    ),
    long_value=words("--max-depth --block-size --threshold --exclude --time-style"),
    long_optional=words("--time"),
)


_GREP_FOLLOWS = ("-R", "--dereference-recursive")


def _git(args: list[str], where: _Where) -> bool:
    """Read-only git: the argv (gitargs.py), a repository whose own config runs no
    program (gitconfig.py: a cloned repo's `core.fsmonitor` would run on `git status`),
    and, when the repository's top is above the project, no operand naming a file by it."""
    from shellpilot.permission.gitargs import is_read_only_git
    from shellpilot.permission.gitconfig import repo_config_runs_programs, repo_top

    def places(dirs: list[str]) -> list[Path]:
        folder = where.cwd or where.project or Path.cwd()
        found = [folder]
        for directory in dirs:  # git -C a -C b: each relative to the one before
            folder = folder / directory
            found.append(folder)
        return found

    def plain_repo(dirs: list[str]) -> bool:
        return not any(repo_config_runs_programs(place) for place in places(dirs))

    def top_inside(dirs: list[str]) -> bool:
        top = repo_top(places(dirs)[-1])
        return top is None or where.in_project(str(top))

    return is_read_only_git(args, where.in_project, plain_repo, top_inside)


_JUDGES: dict[str, Judge] = {
    "ls": _files_command(_LS, follows=("-L", "--dereference")),
    "pwd": _flags_only(_PWD),
    "echo": _echo,
    "printf": _printf,
    "true": _echo,
    "false": _echo,
    "cat": _files_command(_CAT),
    "head": _head,
    "tail": _files_command(_TAIL),
    "wc": _files_command(_WC),
    "grep": _grep_like(_GREP, globs_ok=True, follows=_GREP_FOLLOWS),
    "egrep": _grep_like(_GREP, globs_ok=True, follows=_GREP_FOLLOWS),
    "fgrep": _grep_like(_GREP, globs_ok=True, follows=_GREP_FOLLOWS),
    "rg": _grep_like(_RG, globs_ok=False, follows=("-L", "--follow")),
    "sed": _sed,
    "find": _find,
    "git": _git,
    "whoami": _flags_only(FlagSpec()),
    "uname": _flags_only(_UNAME),
    "which": _flags_only(_WHICH, operands=True),
    "basename": _flags_only(_NAMES, operands=True),
    "dirname": _flags_only(_NAMES, operands=True),
    "date": _date,
    "stat": _files_command(_STAT),
    "du": _files_command(_DU, follows=("-L", "--dereference")),
}

READ_ONLY_COMMANDS: frozenset[str] = frozenset(_JUDGES)
"""Command names that can be read-only (with the right arguments)."""

_NO_FILES = frozenset(
    {"pwd", "echo", "printf", "true", "false", "whoami", "uname", "which", "basename", "dirname", "date"}
)


def is_read_only(
    argv: list[str],
    *,
    cwd: Path | None = None,
    project_dir: Path | None = None,
    text: str | None = None,
    readable: tuple[Path, ...] = (),
    line: str | None = None,
) -> bool:
    """True when this simple command only reads (and reads only inside the project).

    ``argv`` is the scanner's literal words with wrappers removed, the real command
    first. ``cwd`` is where relative paths resolve (default ``project_dir``);
    ``project_dir`` bounds every path operand (symlinks resolved). Conservative: an
    unknown command, an unknown flag, a dynamic path (``$X``), a path outside the
    project, or a glob where an expanded ``-name`` could turn into an option all give
    False. When ``text`` (the command's source text) is given it must be plain (see
    ``plain_command_text``) and split into exactly ``argv``: no wrapper, assignment,
    redirect other than to /dev/null or an fd copy (``2>/dev/null``, ``2>&1``) or
    executable path. ``readable``: extra roots (shellpilot's tool-output folder) whose
    files count as inside for reads (never for ``git``).

    ``echo``, ``printf``, ``basename`` and ``dirname`` may take plain parameter
    expansions (``$NAME``, ``${NAME}``, ``$?``): inside double quotes always; unquoted
    (where bash would split and glob the value) only when ``line``, the whole command
    line, is given and does not set the variable (``X='/outside/*'; echo $X`` would list
    another folder). ``head`` may read ``/dev/urandom``, ``/dev/zero`` and ``/dev/null``.

    What the shell would still expand is judged too: any unquoted brace expansion
    (``{a,b}``, ``{1..3}``) is refused; an unquoted glob passes only when every file it
    could match stays inside (``expansion.glob_is_safe``). Without ``text`` the quoting
    is lost, so every ``{``, ``*``, ``?``, ``[`` counts as unquoted. Symlink-following
    walks (``grep -R``, ``find -L``/``-follow``, ``ls -L``, ``du -L``, ``rg -L``) and git
    paths outside the project (git would silently compare plain files) are refused.
    """
    if not argv or "`" in "".join(argv):
        return False
    judge = _JUDGES.get(argv[0])
    if judge is None:
        return False
    plain = text
    if text is not None:
        plain = without_null_redirects(text)
        if plain is None or not plain_command_text(text) or not same_words(plain, argv):
            return False
        if not expansions_allowed(argv[0], plain, line, PRINTERS):
            return False
    where = _Where(cwd or project_dir, project_dir, tuple(readable))
    if argv[0] not in _NO_FILES and not where.in_project("."):
        return False  # the cwd itself is outside the project
    if not _expansions_safe(argv, plain, where):
        return False
    return judge(argv[1:], where)


def _expansions_safe(argv: list[str], text: str | None, where: _Where) -> bool:
    """No unquoted brace expansion, and every unquoted glob expands only to inside files."""
    if text is None:
        masks = list(argv)
    else:
        split = masked_words(text)
        if split is None or len(split) != len(argv):
            return False
        masks = [mask for _, mask in split]
    base = str(where.cwd) if where.cwd is not None else None
    for word, mask in zip(argv[1:], masks[1:], strict=True):
        if has_brace_expansion(mask):
            return False
        if "$" in word and text is not None and not has_glob(_PARAMETER.sub("", mask)):
            continue  # a printer's parameter expansion (judged by expansions_allowed)
        # (`echo /etc/*$X` still lists /etc: a glob beside an expansion is no safer)
        if has_glob(mask) and not glob_is_safe(word, base, where.inside):
            return False
    return True


def plain_command_text(text: str) -> bool:
    """True when ``text`` is one plain simple command of the read-only set.

    Plain: no expansion (``$``, backticks) outside single quotes, except the plain
    parameter expansions of ``echo`` and ``printf`` (``$NAME``, ``${NAME}``, ``$?``); no
    redirect but to or from /dev/null and fd copies (``2>/dev/null``, ``2>&1``); no pipe,
    list, subshell or newline outside quotes; balanced quotes; and the first word (after
    unquoting) is a read-only command name, so no ``VAR=x`` prefix, wrapper (``sudo``,
    ``env``, ``timeout``...) or executable path (``./ls``). The permission service uses
    it as a backstop before granting the read-only allowance to a pattern.
    """
    return plain_text(text, READ_ONLY_COMMANDS, PRINTERS)


__all__ = ["DEVICES", "READ_ONLY_COMMANDS", "is_read_only", "plain_command_text"]
