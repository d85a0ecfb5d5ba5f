"""Which arguments of which commands are paths, and where a path word really points.

Owns: the per-command argument table (getopt-style) and path resolution (quotes, `~`,
`~user`, `$HOME`, `$PWD`, glob cut, simulated cwd). Must not touch: parsing or rules.
"""

from __future__ import annotations

import ntpath
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from shellpilot.scanner.words import Word

_EMPTY: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """How a command's arguments map to paths.

    `operands`: which non-option arguments are paths: "all", "skip1" (the first is a
    mode/owner/pattern/script), "first" (only the first, e.g. a script), "none".
    `short_values`/`short_paths`: option letters that take a value (not a path / a path).
    `long_values`/`long_paths`: the same for `--long` options (`--x=v` or `--x v`).
    `script`: option letters that supply the pattern/script, so "skip1" skips nothing.
    `stop`: option letters after which no further argument is a path (`python -c`).
    `global_only`: options are read only before the first operand (`git -C dir ...`).
    """

    operands: str = "all"
    short_values: str = ""
    short_paths: str = ""
    long_values: frozenset[str] = _EMPTY
    long_paths: frozenset[str] = _EMPTY
    script: str = ""
    stop: str = ""
    global_only: bool = False


def _s(*names: str) -> frozenset[str]:
    return frozenset(names)


_ALL = ArgSpec()
_GREP = ArgSpec("skip1", short_values="ABCmdDe", short_paths="f", script="ef", long_paths=_s("--file"))
_RG = ArgSpec(
    "skip1",
    short_values="ABCmgtTjMdEer",
    short_paths="f",
    script="ef",
    long_values=_s("--glob", "--type", "--type-not", "--max-depth", "--regexp", "--replace"),
    long_paths=_s("--file", "--ignore-file"),
)
_SCRIPT = ArgSpec("first", short_values="WXQ", stop="cme")
_HEADTAIL = ArgSpec(short_values="nc", long_values=_s("--lines", "--bytes"))
_CP = ArgSpec(short_paths="tT", short_values="S", long_paths=_s("--target-directory"))
_OWNER = ArgSpec("skip1", long_paths=_s("--reference"))

SPECS: dict[str, ArgSpec] = {
    # file commands (and their close kin)
    "rm": _ALL,
    "rmdir": _ALL,
    "unlink": _ALL,
    "shred": ArgSpec(short_values="nsu"),
    "cp": _CP,
    "mv": _CP,
    "install": ArgSpec(short_paths="tT", short_values="mogS"),
    "ln": _CP,
    "mkdir": ArgSpec(short_values="m"),
    "touch": ArgSpec(short_values="dt", short_paths="r", long_paths=_s("--reference")),
    "truncate": ArgSpec(short_values="s", short_paths="r"),
    "chmod": _OWNER,
    "chown": _OWNER,
    "chgrp": _OWNER,
    "cat": _ALL,
    "tac": _ALL,
    "nl": ArgSpec(short_values="bdfhilnsvw"),
    "head": _HEADTAIL,
    "tail": _HEADTAIL,
    "less": _ALL,
    "more": _ALL,
    "tee": _ALL,
    "dd": _ALL,  # if=/of= handled in path_operands
    "ls": ArgSpec(short_values="ITw", long_values=_s("--hide", "--ignore", "--format", "--sort")),
    "tree": ArgSpec(short_values="LIPH", short_paths="o"),
    "du": ArgSpec(short_values="dBt"),
    "stat": ArgSpec(short_values="c", long_values=_s("--format", "--printf")),
    "file": ArgSpec(short_values="mF"),
    "wc": _ALL,
    "realpath": _ALL,
    "readlink": _ALL,
    "md5sum": _ALL,
    "sha1sum": _ALL,
    "sha256sum": _ALL,
    "sha512sum": _ALL,
    "base64": ArgSpec(short_values="w"),
    "xxd": ArgSpec(short_values="cglnos"),
    "hexdump": ArgSpec(short_values="enos"),
    "od": ArgSpec(short_values="ANjSstw"),
    "strings": ArgSpec(short_values="nteT"),
    "diff": ArgSpec(short_values="UCFIxLD", short_paths="X"),
    "cmp": ArgSpec(short_values="iIn"),
    "comm": _ALL,
    "paste": ArgSpec(short_values="d"),
    "sort": ArgSpec(short_values="ktSTz", short_paths="o", long_paths=_s("--output")),
    "uniq": ArgSpec(short_values="fsw"),
    "cut": ArgSpec(short_values="bcdf"),
    "split": ArgSpec(short_values="abln"),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": _RG,
    "ag": ArgSpec("skip1", short_values="ABCmG"),
    "sed": ArgSpec("skip1", short_values="l", short_paths="f", script="ef", long_paths=_s("--file")),
    "awk": ArgSpec("skip1", short_values="vF", short_paths="f", script="f"),
    "gawk": ArgSpec("skip1", short_values="vF", short_paths="f", script="f"),
    "jq": ArgSpec("skip1", long_paths=_s("--from-file", "--rawfile", "--slurpfile")),
    "tar": ArgSpec(
        short_values="bHgN",
        short_paths="fCTX",
        long_paths=_s("--file", "--directory", "--files-from", "--exclude-from"),
    ),
    "zip": ArgSpec(short_values="nP"),
    "unzip": ArgSpec(short_paths="d", short_values="P"),
    "patch": ArgSpec(short_values="pFDzV", short_paths="idoBr", long_paths=_s("--input", "--directory")),
    "rsync": ArgSpec(short_values="eB", long_paths=_s("--exclude-from", "--include-from", "--files-from")),
    "scp": ArgSpec(short_values="cFiJloPS"),
    # interpreters: the script file is a path
    "source": ArgSpec("first"),
    ".": ArgSpec("first"),
    "python": _SCRIPT,
    "python3": _SCRIPT,
    "python2": _SCRIPT,
    "node": ArgSpec("first", short_values="r", stop="ep", long_values=_s("--require", "--import")),
    "ruby": ArgSpec("first", short_values="rIC", stop="e"),
    "perl": ArgSpec("first", short_values="IMm", stop="eE"),
    "php": ArgSpec("first", short_values="cd", stop="r"),
    # editors and openers
    "vi": _ALL,
    "vim": _ALL,
    "nvim": _ALL,
    "nano": _ALL,
    "emacs": _ALL,
    "code": _ALL,
    "open": _ALL,
    "xdg-open": _ALL,
    # tools whose options name a directory or an output file
    "git": ArgSpec(
        "none",
        short_values="c",
        short_paths="C",
        global_only=True,
        long_paths=_s("--git-dir", "--work-tree"),
        long_values=_s("--namespace"),
    ),
    "make": ArgSpec("none", short_values="jlWo", short_paths="Cf", long_paths=_s("--directory", "--file")),
    "npm": ArgSpec("none", long_paths=_s("--prefix")),
    "pnpm": ArgSpec("none", short_paths="C", long_paths=_s("--dir", "--prefix")),
    "yarn": ArgSpec("none", long_paths=_s("--cwd")),
    "cargo": ArgSpec("none", long_paths=_s("--manifest-path", "--target-dir")),
    "uv": ArgSpec("none", long_paths=_s("--directory", "--project")),
    "pip": ArgSpec(
        "none", short_paths="trc", long_paths=_s("--target", "--prefix", "--root", "--requirement")
    ),
    "pip3": ArgSpec(
        "none", short_paths="trc", long_paths=_s("--target", "--prefix", "--root", "--requirement")
    ),
    "curl": ArgSpec(
        "none",
        short_values="XHdAuxeEmwYyzrbCFUQ",
        short_paths="oTKcD",
        long_paths=_s("--output", "--upload-file", "--config", "--cookie-jar", "--dump-header", "--trace"),
    ),
    "wget": ArgSpec(
        "none",
        short_values="tTUewlQ",
        short_paths="OoaPi",
        long_paths=_s("--output-document", "--output-file", "--directory-prefix", "--input-file"),
    ),
}

CD_COMMANDS = frozenset({"cd", "chdir", "pushd", "popd"})
DEV_SINKS = ("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero")
_GLOB = "*?[{"


def _climbs(text: str, cut: int) -> bool:
    """Whether a glob component of `text` (from the one holding index `cut`) may match `..`.

    `.?`, `.*`, `.[.]`, `[.].` do in sh/dash and bash without `globskipdots`; `*`, `??`
    cannot (a leading dot must be matched explicitly). Conservative: any component that
    fnmatch-matches `..` and starts with `.` or `[` counts.
    """
    from fnmatch import fnmatchcase

    start = text.rfind("/", 0, cut) + 1
    return any(part[:1] in (".", "[") and fnmatchcase("..", part) for part in text[start:].split("/"))


_DRIVE = re.compile(r"^[A-Za-z]:")


def _long(arg: Word, spec: ArgSpec, rest: Sequence[Word], i: int, out: list[Word]) -> int:
    """Handle `--name[=value]`; returns how many extra words it consumed."""
    name, eq, _ = arg.value.partition("=")
    if eq:
        if name in spec.long_paths:
            out.append(arg.suffix(len(name) + 1))
        return 0
    if name in spec.long_paths:
        if i + 1 < len(rest):
            out.append(rest[i + 1])
        return 1
    if name in spec.long_values:
        return 1
    return 0


def path_operands(name: str, args: Sequence[Word]) -> list[Word] | None:
    """The path words among `args` (argv without the command name) for command `name`.

    Returns `None` when `name` has no entry (its arguments are not checked). Options are
    read getopt-style: clusters (`-rf`), attached values (`-C/tmp`, `--output=x`), `--`.
    """
    if name == "find":
        return _find_paths(args)
    spec = SPECS.get(name)
    if spec is None:
        return None
    if name != "dd" and name != "tar":
        for arg in args:
            if arg.value[:1] == "-":
                break
        else:
            # No option-like word (the common case): the getopt walk below would make
            # every argument an operand, or none after a `global_only` command's first.
            if spec.global_only:
                return []
            kind = spec.operands
            if kind == "all":
                return list(args)
            if kind == "skip1":
                return list(args[1:])
            if kind == "first":
                return list(args[:1])
            return []
    out: list[Word] = []
    operands: list[Word] = []
    scripted = False
    options = True
    i = 0
    n = len(args)
    while i < n:
        arg = args[i]
        v = arg.value
        if options and v.startswith("-") and len(v) > 1 and not arg.dynamic:
            if v == "--":
                options = False
            elif v.startswith("--"):
                i += _long(arg, spec, args, i, out)
            else:
                for k in range(1, len(v)):
                    letter = v[k]
                    if letter in spec.stop:
                        return out
                    if letter in spec.script:
                        scripted = True
                    takes_path = letter in spec.short_paths
                    if takes_path or letter in spec.short_values:
                        if k + 1 < len(v):
                            if takes_path:
                                out.append(arg.suffix(k + 1))
                        else:
                            if takes_path and i + 1 < n:
                                out.append(args[i + 1])
                            i += 1
                        break
        elif name == "dd" and "=" in v:
            key = v.partition("=")[0]
            if key in ("if", "of"):
                out.append(arg.suffix(len(key) + 1))
        elif name == "tar" and i == 0 and not arg.dynamic and v.isalpha():
            # old-style `tar xzf file`: a letter cluster without a dash
            if "f" in v and i + 1 < n:
                out.append(args[i + 1])
                i += 1
        else:
            if spec.global_only:
                break
            operands.append(arg)
        i += 1
    kind = spec.operands
    if kind == "all":
        out.extend(operands)
    elif kind == "skip1":
        out.extend(operands if scripted else operands[1:])
    elif kind == "first":
        out.extend(operands[:1])
    return out


_FIND_PATH_ACTIONS = frozenset(
    {"-fprint", "-fprint0", "-fprintf", "-fls", "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"}
)


def _find_paths(args: Sequence[Word]) -> list[Word]:
    """find's start points (before the first expression) and its file-valued actions."""
    out: list[Word] = []
    starting = True
    for i, arg in enumerate(args):
        v = arg.value
        if starting:
            if v in ("-H", "-L", "-P") or v.startswith("-D") or v.startswith("-O"):
                continue
            if v.startswith("-") or v in ("(", "!", "\\(", ","):
                starting = False
            else:
                out.append(arg)
                continue
        if v in _FIND_PATH_ACTIONS and i + 1 < len(args):
            out.append(args[i + 1])
    return out


def is_dir(path: str) -> bool:
    """Whether `path` (absolute) is a directory, following symlinks, like `os.path.isdir`.

    Asks `access(path + "/")`: the trailing slash makes the call fail for anything but a
    directory, and `os.access` answers with a bool where `os.stat` builds a result (or
    raises) each time: about 0.35 us against 0.9 us here, for a check the scanner makes
    for every path outside the project. (access uses the real uid, stat the effective;
    they differ only in a setuid process, which shellpilot is not.)
    """
    try:
        return os.access(path + "/", os.F_OK)
    except ValueError:  # an embedded NUL (`$'a\0b'`): no such file, as isdir says
        return False


class PathSink(Protocol):
    """Where a `PathResolver` reports (the scan's `ScanBuilder` in practice)."""

    def outside(self, path: str) -> None:
        """An absolute directory outside the project."""

    def unknown(self, reason: str) -> None:
        """A word whose value cannot be known statically, and why."""

    def wrote(self, path: str) -> None:
        """A path `PathResolver.target()` is told is written (absolute, or `*`)."""


class PathResolver:
    """Resolves path words against a simulated cwd and reports what lies outside.

    `project_dir` is absolute and normalised; `home` is the user's home directory (`None`:
    looked up only when a path needs it). Reports go to `sink`: `outside(path)` for each
    absolute directory outside the project, `unknown(reason)` for each word whose value
    cannot be known statically, `wrote(path)` for each path `target()` is told is written.
    One resolver serves one scan (built per scan: keep construction cheap).
    """

    __slots__ = ("_home", "_isdir", "_prefix", "project", "sink")

    def __init__(
        self,
        project_dir: str,
        sink: PathSink,
        home: str | None = None,
        isdir: Callable[[str], bool] = is_dir,
    ) -> None:
        self.project = project_dir
        self._prefix = project_dir if project_dir.endswith(os.sep) else project_dir + os.sep
        self.sink = sink
        self._home = home
        self._isdir = isdir

    @property
    def home(self) -> str:
        """The home directory (`None` at construction: read from the environment on first use)."""
        if self._home is None:
            self._home = os.path.expanduser("~")
        return self._home

    def inside(self, path: str) -> bool:
        """Whether absolute, normalised `path` is the project dir or below it."""
        return path == self.project or path.startswith(self._prefix)

    def expand(self, word: Word, cwd: str | None) -> str | None:
        """Expand `~`, `~user`, `$HOME`, `${HOME}`, `$PWD`; `None` if not knowable."""
        text = word.pathtext
        if text is None:
            return None
        if word.dynamic:
            if "HOME" in text:
                text = text.replace("${HOME}", self.home).replace("$HOME", self.home)
            if "PWD" in text:
                if cwd is None:
                    return None
                text = text.replace("${PWD}", cwd).replace("$PWD", cwd)
            if "$" in text:
                return None
        if text.startswith("~"):
            head, sep, tail = text.partition("/")
            if head == "~":
                text = self.home + sep + tail
            else:
                expanded = os.path.expanduser(head)
                text = (expanded if expanded != head else head) + sep + tail
        return text

    def check(self, word: Word, cwds: tuple[str, ...] | None, what: str, windows: bool = False) -> None:
        """Check one path word used by `what` (a command name or a redirect operator).

        Dynamic values and relative paths under an unknown cwd report `unknown`; absolute
        results outside the project report their directory (itself if a directory).
        `windows`: the word comes from PowerShell/cmd (`\\` separates, `C:\\x` is absolute).
        """
        if word.dynamic:
            if word.raw[:2] in ("<(", ">("):
                return  # a process substitution is a pipe (/dev/fd/N); its commands are scanned
        elif not windows and cwds is not None and len(cwds) == 1:
            # fast path: a plain relative path without `..` from a cwd inside the project
            plain = word.pathtext
            if (
                plain
                and plain[0] not in "/~"
                and ".." not in plain
                and ".?" not in plain
                and ".*" not in plain
                and "[" not in plain
                and self.inside(cwds[0])
            ):
                return
        text = self.expand(word, cwds[0] if cwds else None)
        if text is None:
            self.sink.unknown(f"dynamic path {word.raw} in {what}")
            return
        if windows:
            if text.lower() in ("nul", "$null", "con"):
                return
            if os.name != "nt" and (_DRIVE.match(text) or text.startswith("\\\\")):
                # A Windows path while running elsewhere: never inside a POSIX project.
                self.sink.outside(ntpath.dirname(ntpath.normpath(text)))
                return
            if os.name != "nt":
                text = text.replace("\\", "/")
        if text.startswith("/dev/") and (text in DEV_SINKS or text.startswith("/dev/fd/")):
            return
        cut = len(text)
        for ch in _GLOB:
            pos = text.find(ch)
            if 0 <= pos < cut:
                cut = pos
        globbed = cut < len(text)
        if globbed:
            if _climbs(text, cut):
                self.sink.unknown(f"glob {word.raw} in {what} may match '..' and climb out")
            text = text[:cut]
        if os.path.isabs(text):
            self._report(os.path.normpath(text), globbed, text)
            return
        if cwds is None:
            self.sink.unknown(f"relative path {word.raw} in {what} after a cd to an unknown directory")
            return
        for cwd in cwds:
            self._report(os.path.normpath(os.path.join(cwd, text)), globbed, text)

    def target(
        self, word: Word, cwds: tuple[str, ...] | None, into: Sequence[str] = (), directory: bool = False
    ) -> None:
        """Report what `word` (a path a command writes) points at to `wrote`.

        Absolute normalised paths, inside the project or not, glob characters kept
        (`rm *.log` writes `<cwd>/*.log`); `*` when the place cannot be known (a dynamic
        word, a relative path under an unknown cwd, find's `{}`). `/dev/null` and the
        other device sinks are not writes. `into`: names written inside the path when it
        is a directory (`directory`, a trailing `/`, or an existing directory), e.g. the
        sources of `cp a b dir`. Does not report dirs or unknown: `check()` does that.
        """
        wrote = self.sink.wrote
        plain = word.pathtext
        # fast path: a plain relative name (`out.txt`, `src/a.py`) needs no normalising
        if (
            not into
            and not word.dynamic
            and plain
            and cwds is not None
            and len(cwds) == 1
            and plain[0] not in "/~.{"
            and "/." not in plain
            and "//" not in plain
            and plain[-1] != "/"
        ):
            wrote(cwds[0] + "/" + plain if cwds[0] != "/" else "/" + plain)
            return
        text = None if word.value == "{}" else self.expand(word, cwds[0] if cwds else None)
        if text is None:
            wrote("*")
            return
        if text.startswith("/dev/") and (text in DEV_SINKS or text.startswith("/dev/fd/")):
            return
        if os.path.isabs(text):
            paths: Sequence[str] = (text,)
        elif cwds is None:
            wrote("*")
            return
        else:
            paths = [os.path.join(cwd, text) for cwd in cwds]
        for raw in paths:
            path = os.path.normpath(raw)
            if path.startswith("//"):
                path = "/" + path.lstrip("/")
            if into and (directory or text.endswith("/") or self._isdir(path)):
                for name in into:
                    wrote(os.path.normpath(os.path.join(path, name)))
            else:
                wrote(path)

    def _report(self, path: str, globbed: bool, text: str) -> None:
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        if self.inside(path):
            return
        if (globbed and (text.endswith("/") or not text)) or self._isdir(path):
            self.sink.outside(path)
        else:
            self.sink.outside(os.path.dirname(path) or "/")

    def cd(
        self, word: Word | None, cwds: tuple[str, ...] | None, what: str, windows: bool = False
    ) -> tuple[str, ...] | None:
        """The cwds after `cd word` (`None` word: cd to $HOME); reports outside targets."""
        if word is None:
            target: str | None = self.home
        else:
            target = self.expand(word, cwds[0] if cwds else None)
            if target is None or target == "-":
                self.sink.unknown(f"dynamic directory {word.raw} in {what}")
                return None
        assert target is not None
        if windows and os.name != "nt":
            if _DRIVE.match(target) or target.startswith("\\\\"):
                self.sink.outside(ntpath.normpath(target))
                self.sink.unknown(f"directory {target} in {what} cannot be followed on this system")
                return None
            target = target.replace("\\", "/")
        if os.path.isabs(target):
            results: tuple[str, ...] = (os.path.normpath(target),)
        elif cwds is None:
            self.sink.unknown(f"relative directory {target} in {what} after a cd to an unknown directory")
            return None
        elif len(cwds) == 1:
            results = (os.path.normpath(os.path.join(cwds[0], target)),)
        else:
            results = tuple(dict.fromkeys(os.path.normpath(os.path.join(c, target)) for c in cwds))
        for path in results:
            if path.startswith("//"):
                path = "/" + path.lstrip("/")
            if not self.inside(path):
                self.sink.outside(path)
        return results
