"""Reading ``strace -f -y`` output into programs and file events.

Owns: parsing one strace log (unfinished/resumed lines, C-escaped strings, ``<path>`` fd
decorations) into `Trace`: the programs executed, with who ran them, and every traced file
operation as absolute paths. Must not touch: sandboxes, fixtures or the scanner.

The log is the output of ``strace -f -qq -y -e signal=none -e trace=<TRACED>``. With ``-y``
strace shows every fd argument (``AT_FDCWD`` too) with its path (``AT_FDCWD</cwd>``), so a
relative path is resolved against that; the few calls without a directory fd (``mkdir``,
``unlink``, ``chdir``...) use the cwd last seen for the process, which children inherit.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

Slots = tuple[tuple[int | None, int], ...]
"""Where a call's paths are: (directory-fd argument or None, path argument) pairs."""

_EXEC: dict[str, Slots] = {"execve": ((None, 0),), "execveat": ((0, 1),)}
_OPEN: dict[str, Slots] = {"openat": ((0, 1),), "open": ((None, 0),), "creat": ((None, 0),)}
_WRITE: dict[str, Slots] = {
    "unlink": ((None, 0),),
    "unlinkat": ((0, 1),),
    "rmdir": ((None, 0),),
    "rename": ((None, 0), (None, 1)),
    "renameat": ((0, 1), (2, 3)),
    "renameat2": ((0, 1), (2, 3)),
    "mkdir": ((None, 0),),
    "mkdirat": ((0, 1),),
    "symlink": ((None, 1),),
    "symlinkat": ((1, 2),),
    "link": ((None, 1),),
    "linkat": ((2, 3),),
    "truncate": ((None, 0),),
    "chmod": ((None, 0),),
    "fchmodat": ((0, 1),),
    "chown": ((None, 0),),
    "lchown": ((None, 0),),
    "fchownat": ((0, 1),),
    "utimensat": ((0, 1),),
    "utimes": ((None, 0),),
    "utime": ((None, 0),),
    "mknod": ((None, 0),),
    "mknodat": ((0, 1),),
    "fchmod": ((0, -1),),
    "fchown": ((0, -1),),
}
_STAT: dict[str, Slots] = {
    "stat": ((None, 0),),
    "lstat": ((None, 0),),
    "newfstatat": ((0, 1),),
    "statx": ((0, 1),),
    "access": ((None, 0),),
    "faccessat": ((0, 1),),
    "faccessat2": ((0, 1),),
    "readlink": ((None, 0),),
    "readlinkat": ((0, 1),),
}
_CLONE = frozenset({"clone", "clone3", "fork", "vfork"})
_CHDIR = frozenset({"chdir", "fchdir"})

TRACED: tuple[str, ...] = (*_EXEC, *_OPEN, *_WRITE, *_STAT, *sorted(_CLONE), *sorted(_CHDIR))
"""The system calls the oracle traces (the ``-e trace=`` list)."""

_WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND")
_FOLLOWING = frozenset(
    {
        "open",
        "openat",
        "creat",
        "truncate",
        "chmod",
        "fchmodat",
        "chown",
        "fchownat",
        "utimensat",
        "utimes",
        "utime",
        "fchmod",
        "fchown",
        "stat",
        "newfstatat",
        "statx",
        "access",
        "faccessat",
        "faccessat2",
        "chdir",
        "fchdir",
    }
)
"""Calls that follow a symlink in their path's last component (unless a NOFOLLOW flag)."""


@dataclass
class Program:
    """One program image: what a process became with a successful ``execve``.

    ``path``: the file passed to execve (as given, absolute when resolved against the cwd);
    ``argv``; ``via``: the program that was running in the process when it called execve
    (None for the first program of the trace: the shell the oracle started).
    """

    path: str
    argv: list[str]
    via: Program | None
    pid: int
    inside: bool = False
    """The program is the traced shell or runs below it (not the sandbox's own set-up)."""

    @property
    def name(self) -> str:
        """The program's name: the last component of its path."""
        return os.path.basename(self.path)


@dataclass(frozen=True)
class Event:
    """One traced file operation.

    ``kind``: ``exec`` | ``open`` | ``write`` | ``stat`` | ``chdir``. ``call``: the system
    call. ``paths``: the absolute, normalised paths it named (two for rename/link: from, to).
    ``real``: for a successful open, the path of the fd it returned (symlinks resolved).
    ``writes``: the open asked for writing (or the call modifies by nature). ``ok``: it
    succeeded; else ``error`` holds the errno name. ``program``: the program running in the
    process at the time (for ``exec``, the new program). ``follows``: the call follows a
    symlink in the last component of its paths (``stat``, ``open``; not ``lstat``,
    ``unlink``, ``AT_SYMLINK_NOFOLLOW``, ``O_NOFOLLOW``).
    """

    kind: str
    call: str
    pid: int
    paths: tuple[str, ...]
    real: str
    writes: bool
    ok: bool
    error: str
    program: Program
    follows: bool = True


@dataclass
class Trace:
    """A parsed log: ``root`` (the traced shell), the programs it and its children ran in
    exec order (``root`` first), and their events. Events of other processes (the sandbox's
    set-up before the shell starts) are left out."""

    root: Program | None = None
    programs: list[Program] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    truncated: bool = False


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "a": "\a", "b": "\b", "\\": "\\", '"': '"'}


def unescape(text: str) -> str:
    """Decode strace's C escapes (``\\n``, ``\\ooo``, ``\\xNN``) into a str (UTF-8,
    undecodable bytes kept as surrogates, like os.fsdecode)."""
    if "\\" not in text:
        return text
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _ESCAPES:
            out += _ESCAPES[nxt].encode()
            i += 2
        elif nxt == "x":
            out.append(int(text[i + 2 : i + 4], 16))
            i += 4
        elif nxt.isdigit():
            j = i + 1
            while j < len(text) and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(int(text[i + 1 : j], 8) & 0xFF)
            i = j
        else:
            out += nxt.encode("utf-8", "surrogateescape")
            i += 2
    return out.decode("utf-8", "surrogateescape")


def split_args(text: str) -> tuple[list[str], str]:
    """Split a call's text after ``name(`` into its top-level arguments and the rest after
    the closing parenthesis (`` = 0``). Quotes, brackets, braces, ``<path>`` decorations and
    ``/* comments */`` are kept whole."""
    args: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch == "<":
            end = text.find(">", i)
            i = end if end >= 0 else n
        elif ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i)
            i = end + 1 if end >= 0 else n
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            if depth == 0:
                piece = text[start:i].strip()
                if piece or args:
                    args.append(piece)
                return args, text[i + 1 :]
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    args.append(text[start:].strip())
    return args, ""


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_FD = re.compile(r"^(?:AT_FDCWD|-?\d+)<(.*)>$", re.S)
_RESULT = re.compile(r"^\s*=\s*(-?\d+|\?)(?:<(.*)>)?(?:\s+([A-Z][A-Z0-9_]*))?", re.S)


def string_arg(arg: str) -> str | None:
    """The decoded value of a quoted string argument, else None (NULL, a pointer)."""
    found = _STRING.match(arg)
    return unescape(found.group(1)) if found else None


def fd_path(arg: str) -> str | None:
    """The path strace printed for an fd argument (``3</a/b>``, ``AT_FDCWD</cwd>``), else None."""
    found = _FD.match(arg)
    return unescape(found.group(1)) if found else None


def array_arg(arg: str) -> list[str]:
    """The strings of an array argument (``["ls", "-l"]``)."""
    return [unescape(m.group(1)) for m in _STRING.finditer(arg)]


_LINE = re.compile(r"^(\d+)\s+(.*)$", re.S)
_SYSTEM_READ = re.compile(
    r"^\d+\s+(?:newfstatat|statx|openat|access|faccessat2?|readlink(?:at)?|stat|lstat)\("
    r"(?:AT_FDCWD<[^>]*>, )?\"/(?:usr|lib|lib64|proc|sys|dev)/[^\"]*\"(?:, O_RDONLY[|A-Z_]*[,)]|, [^O])"
)
"""A read or stat of a system file (the loader's libraries, locales, /proc): never judged,
skipped before parsing (most of a log)."""
_SETUP_SKIP = re.compile(r"execve|clone|fork")
"""Before the shell starts only its execve and the forks leading to it matter."""
_RESUMED = re.compile(r"^<\.\.\. ([a-z0-9_]+) resumed>(.*)$", re.S)
_CALL = re.compile(r"^([a-z0-9_]+)\((.*)$", re.S)


class _Parser:
    def __init__(self, start_cwd: str, shell_argv: list[str] | None) -> None:
        self.trace = Trace()
        self.program: dict[int, Program] = {}
        self.cwd: dict[int, str] = {}
        self.pending: dict[int, str] = {}
        self.start_cwd = start_cwd
        self.shell_argv = shell_argv
        # Processes seen before the clone/vfork that made them returned in their parent.
        self.orphans: set[int] = set()

    def line(self, raw: str) -> None:
        if _SYSTEM_READ.match(raw) or (self.trace.root is None and _SETUP_SKIP.search(raw) is None):
            return  # a system read, or the sandbox's own set-up before the shell starts
        found = _LINE.match(raw)
        if not found:
            return
        pid, rest = int(found.group(1)), found.group(2)
        if rest.endswith(" <unfinished ...>"):
            self.pending[pid] = rest[: -len(" <unfinished ...>")]
            return
        resumed = _RESUMED.match(rest)
        if resumed:
            head = self.pending.pop(pid, None)
            if head is None:
                return
            rest = head + resumed.group(2)
        call = _CALL.match(rest)
        if call:
            self.call(pid, call.group(1), call.group(2))

    def place(self, pid: int, args: list[str], slot: tuple[int | None, int]) -> str | None:
        dirfd, index = slot
        base: str | None = None
        if dirfd is not None and dirfd < len(args):
            base = fd_path(args[dirfd])
            if base is not None and args[dirfd].startswith("AT_FDCWD"):
                self.cwd[pid] = base
        if index == -1:
            return base
        if index >= len(args):
            return None
        path = string_arg(args[index])
        if path is None:
            return base if args[index] == "NULL" else None
        if not path:
            return base  # AT_EMPTY_PATH: the fd itself
        if path.startswith("/"):
            return os.path.normpath(path)
        if base is None:
            base = self.cwd.get(pid, self.start_cwd)
        return os.path.normpath(os.path.join(base, path))

    def cloned(self, parent: int, child: int) -> None:
        """``parent``'s clone/fork returned ``child``: it inherits program and cwd, unless
        its own lines came first (vfork), in which case its first program is adopted."""
        program = self.program.get(parent)
        if child not in self.orphans:
            if program is not None:
                self.program[child] = program
            self.cwd.setdefault(child, self.cwd.get(parent, self.start_cwd))
            return
        self.orphans.discard(child)
        own = self.program.get(child)
        if own is None or program is None:
            return
        while own.via is not None and own.via.pid == child:
            own = own.via
        if own.path == "":  # a placeholder for lines seen before the parent's return
            own.path, own.argv, own.via, own.inside = program.path, program.argv, program.via, program.inside
        elif own.via is None and own is not self.trace.root:
            own.via = program
            own.inside = own.inside or program.inside

    def call(self, pid: int, name: str, text: str) -> None:
        args, rest = split_args(text)
        result = _RESULT.match(rest)
        value, decorated, error = (
            (result.group(1), result.group(2), result.group(3) or "") if result else ("?", None, "")
        )
        ok = value != "?" and not value.startswith("-")
        if name in _CLONE:
            if ok and value.isdigit() and int(value) > 0:
                self.cloned(pid, int(value))
            return
        if pid not in self.program and self.trace.root is not None:
            # Seen before its parent's clone returned (vfork): after the shell started,
            # every new process is one of its descendants.
            self.orphans.add(pid)
            self.program[pid] = Program("", [], None, pid, inside=True)
        slots = _EXEC.get(name) or _OPEN.get(name) or _WRITE.get(name) or _STAT.get(name)
        if name in _CHDIR:
            target = self.place(pid, args, (0, -1) if name == "fchdir" else (None, 0))
            if ok and target:
                self.cwd[pid] = target
            kind = "chdir"
            paths: tuple[str, ...] = (target,) if target else ()
        elif slots is None:
            return
        else:
            found = [self.place(pid, args, slot) for slot in slots]
            paths = tuple(p for p in found if p)
            kind = (
                "exec"
                if name in _EXEC
                else "open"
                if name in _OPEN
                else "write"
                if name in _WRITE
                else "stat"
            )
        if kind == "exec":
            if ok:
                self.exec(
                    pid, paths, array_arg(args[2 if name == "execveat" else 1]) if len(args) > 1 else []
                )
            return
        program = self.program.get(pid)
        if program is None or not program.inside:
            return
        writes = kind == "write"
        if kind == "open":
            flags = args[2] if name == "openat" and len(args) > 2 else args[1] if len(args) > 1 else ""
            writes = name == "creat" or bool(_WRITE_FLAGS.search(flags))
        real = unescape(decorated) if decorated and kind == "open" and ok else ""
        follows = name in _FOLLOWING and "NOFOLLOW" not in text
        self.trace.events.append(Event(kind, name, pid, paths, real, writes, ok, error, program, follows))

    def exec(self, pid: int, paths: tuple[str, ...], argv: list[str]) -> None:
        via = self.program.get(pid)
        program = Program(paths[0] if paths else "", argv, via, pid)
        if self.trace.root is None:
            if self.shell_argv is not None and argv != self.shell_argv:
                self.program[pid] = program
                return
            program.inside = True
            self.trace.root = program
        else:
            program.inside = via is not None and via.inside
        self.program[pid] = program
        if program.inside:
            self.trace.programs.append(program)
            self.trace.events.append(Event("exec", "execve", pid, paths, "", False, True, "", program))


def parse(text: str, start_cwd: str = "/", shell_argv: list[str] | None = None) -> Trace:
    """Parse a whole strace log (see the module docstring).

    ``shell_argv``: the argv of the shell whose work is wanted (``["bash", "-c", cmd]``);
    lines before it is executed, and of processes not descended from it, are left out.
    None: the first program executed is the root. ``start_cwd``: the first process's cwd,
    used until a decorated fd shows it. Never raises on odd lines: a line it cannot read
    is skipped.
    """
    parser = _Parser(start_cwd, shell_argv)
    for raw in text.splitlines():
        parser.line(raw)
    return parser.trace


__all__ = ["TRACED", "Event", "Program", "Trace", "parse"]
