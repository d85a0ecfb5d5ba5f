"""Where a path word really points: the simulated cwd, `~`, `$HOME`, globs, symlinks.

Owns: `PathResolver` (quotes, `~`, `~user`, `$HOME`, `$PWD`, glob cut, simulated cwd)
reporting outside directories and writes. Must not touch: which words are paths
(options.py, option_table.py), parsing or rules.
"""

from __future__ import annotations

import ntpath
import os
import re
from collections.abc import Callable, Sequence
from typing import Protocol

from shellpilot.scanner.symlinks import Physical, Unresolvable
from shellpilot.scanner.words import Word

CD_COMMANDS = frozenset({"cd", "chdir", "pushd", "popd"})
DEV_SINKS = (
    "/dev/null",
    "/dev/stdin",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
)
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
_GLOB_CHARS = re.compile(r"[*?\[]")


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
    A path inside the project that a symlink takes out of it (`docs -> /outside`) counts
    where it resolves: its directory is outside, and a write through it writes there.
    One resolver serves one scan (built per scan: keep construction cheap).
    """

    __slots__ = ("_home", "_isdir", "_physical", "_prefix", "last_cd", "project", "sink")

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
        self._physical: Physical | None = None  # (made when a path inside is checked)
        self.last_cd: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        """(what the last `cd` returned, the cwds had it succeeded) when it may fail: the
        command after `&&` runs only where it succeeded."""

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
        """Expand `~`, `~user`, `~+` (the cwd), `$HOME`, `${HOME}`, `$PWD`; `None` if not
        knowable (`~-` is the previous cwd, `~2`, `~+1`, `~-1` entries of the dirs stack)."""
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
            elif head == "~+":  # $PWD: relative, so each possible cwd counts
                text = "." + sep + tail
            elif head == "~-" or head.lstrip("~+-").isdigit():
                return None
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
                and "[" not in plain
                and "*" not in plain
                and "?" not in plain
                and "{" not in plain
                and self.inside(cwds[0])
            ):
                cwd = cwds[0]
                self._escaped((cwd + "/" if cwd != "/" else "/") + plain.rstrip("/"), None, what)
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
            if not word.dynamic:
                self._matches(text, cwds, what)
            text = text[:cut]
        if os.path.isabs(text):
            self._report(os.path.normpath(text), globbed, text, text, what)
            return
        if cwds is None:
            self.sink.unknown(f"relative path {word.raw} in {what} after a cd to an unknown directory")
            return
        for cwd in cwds:
            joined = os.path.join(cwd, text)
            self._report(os.path.normpath(joined), globbed, text, joined, what)

    def target(
        self, word: Word, cwds: tuple[str, ...] | None, into: Sequence[str] = (), directory: bool = False
    ) -> None:
        """Report what `word` (a path a command writes) points at to `wrote`.

        Absolute normalised paths, inside the project or not, glob characters kept
        (`rm *.log` writes `<cwd>/*.log`); `*` when the place cannot be known (a dynamic
        word, a relative path under an unknown cwd, find's `{}`). `/dev/null` and the
        other device sinks are not writes. `into`: names written inside the path when it
        is a directory (`directory`, a trailing `/`, or an existing directory), e.g. the
        sources of `cp a b dir`. A write outside the project also reports its directory
        to `outside`; one through a symlink that leads out of the project is reported
        where it lands too. Unknown words: `check()` reports those.
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
            path = cwds[0] + "/" + plain if cwds[0] != "/" else "/" + plain
            wrote(path)
            if self.inside(path):
                real = self._escaped(path, None, "a write")
                if real is not None:
                    wrote(real)
            else:
                self._outside_dir(path, False, plain)
                self._made_outside(path, wrote)
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
            places = [path]
            if self.inside(path):
                real = self._escaped(path, raw, "a write")
                if real is not None:
                    places.append(real)
            elif self._physical is not None and self._physical.made:
                made = self._physical.through_made(path)
                if made is not None and made != path:
                    places.append(made)
            for place in places:
                if into and (directory or text.endswith("/") or self._isdir(place)):
                    for name in into:
                        wrote(os.path.normpath(os.path.join(place, name)))
                    if not self.inside(place):
                        self.sink.outside(place)  # the directory written into
                else:
                    wrote(place)
                    if not self.inside(place):
                        self._outside_dir(place, False, text)

    def _matches(self, pattern: str, cwds: tuple[str, ...] | None, what: str) -> None:
        """A glob inside the project may match a symlink that leads out of it (`ls -d */`
        with `docs -> /outside`): each match that is a link is judged where it lands.

        A glob in the last component only (`src/*.py`, `*/`) lists its directory once
        (`scandir`: link or not is known without a call per entry); any other glob is
        expanded whole (at most 256 matches, then unknown).
        """
        from fnmatch import fnmatchcase

        bases = [""] if os.path.isabs(pattern) else list(cwds or ())
        for base in bases:
            full = os.path.join(base, pattern)
            head, _, last = full.rstrip("/").rpartition("/")
            folder = os.path.normpath(head or "/")
            if not self.inside(folder):
                continue
            if _GLOB_CHARS.search(head) is not None:
                self._expanded(full, what)
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        if entry.is_symlink() and fnmatchcase(entry.name, last):
                            self._escaped(os.path.join(folder, entry.name), None, what)
            except (OSError, ValueError):
                continue

    def _expanded(self, full: str, what: str) -> None:
        """Judge each match of glob `full` where it lands (at most 256, then unknown), and
        each match of its part up to the last component with a glob character (`*/x`:
        bash looks for `x` inside every directory `*` matches, links out included)."""

        parts = full.split("/")
        last = max((i for i, part in enumerate(parts) if _GLOB_CHARS.search(part)), default=len(parts) - 1)
        patterns = [full] if last == len(parts) - 1 else ["/".join(parts[: last + 1]), full]
        for pattern in patterns:
            self._matched(pattern, what)

    def _matched(self, full: str, what: str) -> None:
        """Judge each match of glob `full` inside the project where it lands."""
        import glob

        try:
            for count, match in enumerate(glob.iglob(full)):
                if count >= 256:
                    self.sink.unknown(f"glob {full} in {what} matches too many files to follow")
                    break
                path = os.path.normpath(match)
                if self.inside(path):
                    self._escaped(path, None, what)
        except (OSError, ValueError):
            return

    def _physical_cd(
        self, target: str, cwds: tuple[str, ...] | None, results: tuple[str, ...]
    ) -> tuple[str, ...]:
        """`results` (where `cd target` goes, read logically) plus where it goes read
        physically, when a symlink before a `..` makes the two differ: bash takes the
        physical one under `cd -P` and `set -P`, and also when the logical one is no
        directory (`cd lnk/../dir`, with `lnk -> /outside/sub`, lands in /outside/dir)."""
        bases = ("",) if os.path.isabs(target) or not cwds else cwds
        found = list(results)
        for base in bases:
            joined = os.path.join(base, target)
            physical = os.path.realpath(joined)
            if physical != os.path.realpath(os.path.normpath(joined)) and physical not in found:
                if not self.inside(physical) and not self._keeps(physical):
                    self.sink.outside(physical)
                found.append(physical)
        return tuple(found)

    def made_link(self, link: str, target: str) -> None:
        """Record that the text makes `link` (absolute, normalised) a symlink to `target`
        (as written): later paths through it are judged where it leads."""
        if os.path.normpath(os.path.join(os.path.dirname(link), target)) == link:
            return  # (`ln -s tgt` in tgt's own folder: ln fails, the name exists)
        physical = self._physical
        if physical is None:
            physical = self._physical = Physical(self.project)
        physical.make(link, target)
        try:  # where it really is when its folder is reached through a link (`inner/l`)
            real = os.path.join(os.path.realpath(os.path.dirname(link)), os.path.basename(link))
        except (OSError, ValueError):
            return
        if real != link:
            physical.make(real, target)

    def _keeps(self, real: str) -> bool:
        """Whether physical path `real` is the project or inside it (the project's own
        path may run through a link)."""
        physical = self._physical
        if physical is None:
            physical = self._physical = Physical(self.project)
        return physical.keeps(real)

    def _escaped(self, path: str, joined: str | None, what: str) -> str | None:
        """Where `path` (inside the project) really is when a symlink takes it out, its
        directory reported outside; `None` when it stays in. An unresolvable link (a loop,
        a denied `/proc` entry) is reported as unknown."""
        try:
            physical = self._physical
            if physical is None:
                physical = self._physical = Physical(self.project)
            real = physical.escape(path, joined)
        except Unresolvable as err:
            self.sink.unknown(f"cannot follow the symlinks of {err} in {what}")
            return None
        if real is not None:
            self._outside_dir(real, False, real)
        return real

    def _report(self, path: str, globbed: bool, text: str, joined: str, what: str) -> None:
        if path.startswith("//"):
            path = "/" + path.lstrip("/")
        if self.inside(path):
            self._escaped(path, joined if ".." in joined else None, what)
            return
        self._outside_dir(path, globbed, text)
        self._made_outside(path, None)

    def _made_outside(self, path: str, wrote: Callable[[str], None] | None) -> None:
        """`path` outside the project through a link the text made (`cd /x && ln -s /y l;
        echo z > l/f` writes /y/f): where it leads is reported too, written when `wrote`."""
        physical = self._physical
        if physical is None or not physical.made:
            return
        made = physical.through_made(path)
        if made is None or made == path:
            return
        if wrote is not None:
            wrote(made)
        if not self.inside(made):
            self._outside_dir(made, False, made)

    def _outside_dir(self, path: str, globbed: bool, text: str) -> None:
        """Report the directory a path outside the project lies in: itself when it is a
        directory (or named as one: `ls /backup/`), else its parent; never `/` for a path
        that does not exist (`rm -rf /nothing` asks for `/nothing`, not for every dir)."""
        named_dir = text.endswith("/") or (globbed and not text)
        if named_dir or self._isdir(path):
            self.sink.outside(path)
        else:
            parent = os.path.dirname(path) or "/"
            if parent == "/" and path != "/" and not os.path.lexists(path):
                self.sink.outside(path)
            else:
                self.sink.outside(parent)

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
            else:  # `cd lnk` where lnk leads out: the commands after it run there
                self._escaped(path, os.path.join(cwds[0], target) if cwds and ".." in target else None, what)
        if ".." in target:
            results = self._physical_cd(target, cwds, results)
        if cwds and not all(self._isdir(path) for path in results):
            # a cd to a directory missing now may fail, and bash then goes on where it was
            # (`cd build; rm -rf *`); an earlier command may also create it (`mkdir d; cd d`)
            either = tuple(dict.fromkeys([*results, *cwds]))
            self.last_cd = (either, results)
            return either
        return results
