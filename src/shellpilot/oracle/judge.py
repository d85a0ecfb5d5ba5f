"""Judging a scan against what bash really did: false negatives and read-only behaviour.

Owns: which traced programs, writes and outside paths count (the rules below) and the
`Judgement` of one command. Must not touch: running commands (sandbox.py) or parsing
traces (trace.py); it reads a `Run` and a `Scan`.

A false negative (`Finding`) is one of:

- ``exec``: a program ran that is not among the scan's commands (argv[0] or a peeled
  wrapper, by name), while the scan is not ``unknown``;
- ``write``: a file was created, modified or deleted (the file-system diff, plus write
  attempts the read-only sandbox refused) and no entry of ``writes`` covers it (equal, a
  directory above it, a glob matching it, ``*``, or a directory it creates on the way);
- ``dir``: a path outside the project was read, listed, stat'ed, entered or written (in
  /outside or the fake HOME, or any write outside the project) and no entry of ``dirs``
  covers it, while the scan is not ``unknown`` (an unknown scan is asked as a whole, and
  no entry of ``dirs`` could say "anywhere"; an unknown write place is ``*`` in ``writes``,
  so writes are judged for unknown scans too);
- ``silent``: the default policy would run the command without any prompt, yet it did
  something beyond the read-only set (a program outside it, a write, an outside path).

Who is held to account (roles.py): programs started by the shell, by git or by a wrapper
that names them are *checked* (their exec must be predicted); other programs' children
(``tar`` running ``gzip``) are their own implementation. Files count when a *watched*
program touches them; those of interpreters, build tools and their children count only
when the command line names them.

What is not the command's doing: reads of system files (the loader, locales), git's own
files under a ``.git`` directory when git writes them, ``__pycache__``, the per-user
config files programs read by themselves (`IMPLICIT_HOME`) and the caches and histories
they keep there (`KEPT_IN_HOME`), unless the command names them.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from shellpilot.oracle.fixture import OUTSIDE, Fixture
from shellpilot.oracle.roles import Roles, program_name
from shellpilot.oracle.sandbox import Run
from shellpilot.oracle.trace import Event, Program
from shellpilot.permission.readonly import READ_ONLY_COMMANDS
from shellpilot.scanner.scan_result import Scan

IMPLICIT_HOME = (
    ".gitconfig",
    ".config/git",
    ".gitignore",
    ".inputrc",
    ".terminfo",
    ".curlrc",
    ".wgetrc",
    ".npmrc",
    ".pip",
    ".config/pip",
    ".pydistutils.cfg",
    ".local/lib",
    ".local/share",
    ".cache",
    ".python_history",
    ".sqliterc",
    ".selected_editor",
    ".ssh/config",
    ".ssh/known_hosts",
    ".lesshst",
    ".wget-hsts",
    ".vim",
    ".vimrc",
    ".viminfo",
)
"""Paths under HOME that programs read (or keep) by themselves; counted only when named
(HOME itself too: ``cd`` with no operand enters it, which the shell's cwd shows)."""

KEPT_IN_HOME = (
    ".cache",
    ".local/state",
    ".lesshst",
    ".wget-hsts",
    ".python_history",
    ".node_repl_history",
    ".sqlite_history",
    ".viminfo",
    ".npm/_logs",
    ".npm/_cacache",
    ".rnd",
)
"""Caches and histories programs write under HOME by themselves; counted only when named
(``~/.gitconfig`` written by ``git config --global`` is not one: it changes behaviour)."""

_REFUSED = frozenset({"EROFS", "EACCES", "EPERM"})
"""A write attempt failing with these was stopped by the sandbox, not by the command."""

READ_ONLY_PROGRAMS = READ_ONLY_COMMANDS | {"bash"}
"""Programs whose running is read-only behaviour (the permission engine's read-only set)."""


@dataclass(frozen=True)
class Finding:
    """One false negative: ``kind`` (``exec`` | ``write`` | ``dir`` | ``silent``) and
    ``detail`` (a program name with its argv, or a path)."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class Judgement:
    """The verdict on one command: its ``findings`` (false negatives), whether the scan was
    ``unknown``, which permissions the default policy ``asks``, and whether bash's
    behaviour stayed ``read_only``: the shell exited 0, ran programs of the read-only set
    only, wrote nothing (git's index refresh aside), touched nothing in /outside or HOME
    and read no file outside the project that the command names (devices aside)."""

    command: str
    findings: tuple[Finding, ...]
    unknown: bool
    asks: tuple[str, ...]
    read_only: bool
    timed_out: bool = False

    @property
    def false_alarm(self) -> bool:
        """The command prompts although bash did nothing outside the read-only set."""
        return self.read_only and bool(self.asks)


class Judge:
    """Judges runs against their scans in one fixture."""

    def __init__(self, fixture: Fixture) -> None:
        self.fixture = fixture
        self.project = str(fixture.project)
        self.home = str(fixture.home)

    def short(self, text: str) -> str:
        """``text`` with the fixture's long paths shortened: ``<proj>``, ``~``."""
        return text.replace(self.project, "<proj>").replace(self.home, "~")

    # -- paths -------------------------------------------------------------------------
    def resolve(self, path: str, follow: bool = True) -> str:
        """``path`` with the template's symlinks resolved (the sandbox has the same ones
        in the project and HOME), the outside tree named ``/outside`` (Fixture.canon);
        other places stay lexical. ``follow`` False: a link in the last component is not
        followed (``lstat``, ``unlink``)."""
        canon = self.fixture.canon
        if not (_under(path, self.project) or _under(path, self.home)):
            return canon(path)
        if follow:
            return canon(os.path.realpath(path))
        parent, name = os.path.split(path)
        return canon(os.path.join(os.path.realpath(parent), name))

    def inside_project(self, path: str) -> bool:
        return path == self.project or path.startswith(self.project + "/")

    def outside_place(self, path: str) -> bool:
        """In /outside or the fake HOME: where reads are the command's doing."""
        return _under(path, OUTSIDE) or _under(path, self.home)

    def implicit_home(self, path: str) -> bool:
        """A per-user file programs read by themselves (`IMPLICIT_HOME`), or HOME itself."""
        if path == self.home:
            return True
        if not _under(path, self.home):
            return False
        rel = path[len(self.home) + 1 :]
        return any(rel == p or rel.startswith(p + "/") for p in IMPLICIT_HOME)

    def _kept_in_home(self, path: str) -> bool:
        if not _under(path, self.home) or path == self.home:
            return False
        rel = path[len(self.home) + 1 :]
        return any(rel == p or rel.startswith(p + "/") for p in KEPT_IN_HOME)

    def named(self, path: str, command: str, cwds: set[str]) -> bool:
        """Does the command line name ``path`` or a directory above it (a word, an option's
        value, ``~`` expanded), resolved against any cwd the shell was in?"""
        # (bash drops a backslash-newline before it reads words: `c\<newline>d` is cd)
        command = command.replace("\\\n", "")
        try:
            words = shlex.split(command, comments=False, posix=True)
        except ValueError:
            words = command.split()
        stoppers = {"/", "/tmp", self.home, *_ancestors(self.project)}
        after_cd = False
        for word in words:
            # (a cd's directory is where the shell is, already a base below; it names no
            # file in it: `cd mod && python3 -c ...` does not name what python writes there)
            if after_cd and word.startswith("-") and word != "-":
                continue
            if after_cd:
                after_cd = False
                continue
            if word.lstrip("({!") in ("cd", "pushd"):
                after_cd = True
                continue
            for candidate in _word_paths(word, self.home):
                bases = [""] if candidate.startswith("/") else sorted(cwds)
                for base in bases:
                    full = self.resolve(os.path.normpath(os.path.join(base, candidate)))
                    if full not in stoppers and _under(path, full):
                        return True
        return False

    # -- the verdict ---------------------------------------------------------------------
    def judge(self, run: Run, found: Scan, asks: list[str]) -> Judgement:
        """The findings for ``run`` against its scan ``found``; ``asks``: the prompts the
        default policy would show (prompts.Gate.asks)."""
        trace = run.trace
        assert trace.root is not None
        roles = Roles(trace.root)
        command = run.command
        cwds = {self.project} | {p for e in trace.events if e.kind == "chdir" for p in e.paths}
        findings: dict[Finding, None] = {}
        programs = [p for p in trace.programs if p is not trace.root]
        predicted = {os.path.basename(c.argv[0]) for c in found.commands if c.argv}
        predicted |= {w for c in found.commands for w in c.wrappers}
        behaviour_ok = True
        missed: dict[str, Program] = {}
        for program in programs:
            name = program_name(program)
            if roles.is_checked(program) and not found.unknown and name not in predicted:
                missed.setdefault(name, program)
            if name not in READ_ONLY_PROGRAMS or not program.path.startswith(("/usr/", "/bin/", "/sbin/")):
                behaviour_ok = False  # (a project file named `ls` is not ls)
        for name, program in missed.items():
            findings[Finding("exec", f"{name} ({self.short(_argv_text(program))})")] = None
        writes = self._written(run, roles, command, cwds)
        for path in _tops([p for p in writes if not self._covered(p, found.writes)]):
            findings[Finding("write", self.short(path))] = None
        touched = [p for p in writes if not self.inside_project(p)]
        touched += self._touched(run, roles, command, cwds, found.dirs)
        if not found.unknown:  # no entry of dirs could say "anywhere": the whole text is asked
            for path in _tops([p for p in touched if not self._covered(p, found.dirs, dirs=True)]):
                findings[Finding("dir", self.short(path))] = None
        if writes or touched or self._state_changed(run, roles, command, cwds):
            behaviour_ok = False
        if not asks and not behaviour_ok:
            names = sorted({program_name(p) for p in programs} - READ_ONLY_PROGRAMS)
            detail = "; ".join(x for x in (", ".join(names), ", ".join(_tops([*writes, *touched])[:3])) if x)
            findings[Finding("silent", self.short(detail))] = None
        read_only = behaviour_ok and run.status == 0  # a failed command did not show its behaviour
        return Judgement(command, tuple(findings), found.unknown, tuple(asks), read_only, run.timed_out)

    def _written(self, run: Run, roles: Roles, command: str, cwds: set[str]) -> list[str]:
        """Paths the command wrote that count (see the module docstring)."""
        writers: dict[str, list[Event]] = {}
        for event in run.trace.events:
            if event.writes:
                places = {
                    self.fixture.canon(event.real),
                    *event.paths,
                    *(self.resolve(p, event.follows) for p in event.paths),
                }
                for path in places:
                    if path:
                        writers.setdefault(path, []).append(event)
        candidates = list(run.changed)
        for event in run.trace.events:
            if event.writes and not event.ok and event.error in _REFUSED:
                candidates += [
                    self.resolve(p, False) for p in event.paths if not p.startswith(("/dev/", "/proc/"))
                ]
        out: list[str] = []
        for path in dict.fromkeys(candidates):
            if "__pycache__" in path.split("/") or path.endswith(".pyc"):
                continue
            if self._kept_in_home(path) and not self.named(path, command, cwds):
                continue
            events = writers.get(path, [])
            if events and "/.git/" in path + "/" and all(program_name(e.program) == "git" for e in events):
                continue  # git's own files (index refresh, objects, refs)
            unwatched = bool(events) and not any(roles.is_watched(e.program) for e in events)
            if unwatched and not self.named(path, command, cwds):
                continue
            out.append(path)
        return out

    def _state_changed(self, run: Run, roles: Roles, command: str, cwds: set[str]) -> bool:
        """Beyond the counted writes: did git change repository state (anything in a .git
        directory but its index), did a watched program open a file for writing (``>> f``
        changes nothing yet is a write), or read a file outside the project that the
        command line names (``cat /etc/hostname``; devices in /dev excepted)?"""
        for path in run.changed:
            if "/.git/" in path + "/" and os.path.basename(path) not in ("index", "index.lock"):
                return True
        for event in run.trace.events:  # opened for writing, even if nothing was written (`>> f`)
            places = [p for p in (event.real, *event.paths) if p]
            opened = event.writes and event.ok and roles.is_watched(event.program)
            if opened and not any(_housekeeping(p, event) for p in places):
                return True
        for event in run.trace.events:
            if event.writes or not event.ok or event.kind != "open" or not roles.is_watched(event.program):
                continue
            path = self.fixture.canon(event.real or (event.paths[0] if event.paths else ""))
            outside = (
                bool(path) and not self.inside_project(path) and not path.startswith(("/dev/", "/proc/"))
            )
            if outside and self.named(path, command, cwds):
                return True
        return False

    def _touched(
        self, run: Run, roles: Roles, command: str, cwds: set[str], dirs: Sequence[str] = ()
    ) -> list[str]:
        """Paths in /outside or HOME that the command read, listed, stat'ed or entered.

        A stat of a directory above one of the scan's ``dirs`` does not count: getting
        there passes through it (bash stats each parent when a ``cd -P`` or ``popd``
        makes its cwd canonical)."""
        bare = [d[:-2] if d.endswith("/*") else d for d in dirs]
        above = {form for d in bare for form in (d, self.resolve(d))}
        out: list[str] = []
        for event in run.trace.events:
            if event.writes or not event.ok or event.kind == "exec":
                continue
            if event.real:
                paths = [self.fixture.canon(event.real)]
            else:
                paths = [self.resolve(p, event.follows) for p in event.paths]
            for path in paths:
                if not self.outside_place(path):
                    continue
                if event.kind == "stat" and any(d != path and _under(d, path) for d in above):
                    continue
                implicit = self.implicit_home(path) and not (path == self.home and event.kind == "open")
                if (implicit or not roles.is_watched(event.program)) and not self.named(path, command, cwds):
                    continue  # HOME itself is stat'ed by many programs; listing it is not implicit
                out.append(path)
        return out

    def _covered(self, path: str, entries: Sequence[str], *, dirs: bool = False) -> bool:
        """Is ``path`` covered by a scan's ``writes`` (or ``dirs``) entry?"""
        for entry in entries:
            if entry == "*" and not dirs:
                return True
            for form in {entry, self.resolve(entry)}:
                bare = form[:-2] if form.endswith("/*") else form
                if _under(path, bare) or fnmatch.fnmatchcase(path, form):
                    return True
                if not dirs and _under(bare, path):
                    return True  # a directory created on the way to a predicted write
        return False


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _housekeeping(path: str, event: Event) -> bool:
    """A device, or git refreshing its own index (``git status`` rewrites .git/index)."""
    if path.startswith(("/dev/", "/proc/")):
        return True
    index = os.path.basename(path) in ("index", "index.lock") and "/.git/" in path
    return index and program_name(event.program) == "git"


def _tops(paths: list[str]) -> list[str]:
    """``paths`` without those below another one of them, sorted (``/a`` hides ``/a/b``)."""
    out: list[str] = []
    for path in sorted(set(paths)):
        if not out or not _under(path, out[-1]):
            out.append(path)
    return out


def _ancestors(path: str) -> list[str]:
    out = [path]
    while path not in ("/", ""):
        path = os.path.dirname(path)
        out.append(path)
    return out


def _word_paths(word: str, home: str) -> list[str]:
    """Path candidates in one shell word: itself, an option's value (``--out=x``, ``-ox``),
    an assignment's value, with ``~``/``$HOME`` expanded; trailing ``/`` dropped."""
    forms = [word]
    if "=" in word:
        forms.append(word.split("=", 1)[1])
    if word.startswith("-") and not word.startswith("--") and len(word) > 2:
        forms.append(word[2:])
    out: list[str] = []
    for form in forms:
        for var in ("${HOME}", "$HOME"):
            form = form.replace(var, home)
        if form == "~" or form.startswith("~/"):
            form = home + form[1:]
        form = form.rstrip("/") or form
        if form and not form.startswith("-"):
            out.append(form)
    return out


def _argv_text(program: Program) -> str:
    text = " ".join(shlex.quote(a) for a in program.argv)
    return text if len(text) <= 120 else text[:117] + "..."


__all__ = [
    "IMPLICIT_HOME",
    "KEPT_IN_HOME",
    "Finding",
    "Judge",
    "Judgement",
    "program_name",
]
