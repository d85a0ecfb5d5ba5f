"""The scanner's result types and the builder every shell scanner fills.

Owns: `Scan`, `ScannedCommand`, `ScanBuilder` (patterns, always, dirs, unknown reasons).
Must not touch: parsing, shells or permission rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from shellpilot.scanner.arity import prefix_text as arity_text

MAX_DEPTH = 8
"""How deep `bash -c` / `eval` strings are re-parsed before giving up."""

RESCAN_FACTOR = 8
"""Command text re-scanned for one scan (`bash -c` strings, eval, hidden substitutions,
PowerShell script blocks) may total this many times the command's length (plus
`RESCAN_SLACK`) before further nested text is left unscanned and the scan is `unknown`: nesting must not
multiply the work (a 643-character line of nested `"$(eval "..` once took 14,000 re-scans)."""

RESCAN_SLACK = 65536
"""Characters of nested text always allowed, however short the line (see RESCAN_FACTOR)."""

MAX_NESTING = 64
"""How deep statements may nest (`$(..)` in `$(..)`, subshells, groups, bodies), counted
over all the nested scanners of one scan, before the rest is left unscanned and the scan
is `unknown`. Keeps the stack bounded: Python's, and the C stack of the compiled build."""


class Record:
    """A read-only record: fields set once by `__init__`; `repr` and `==` over `_fields`.

    Plain classes, not frozen dataclasses or NamedTuples: the scanner builds one `Scan`
    per command line and one `ScannedCommand` per simple command, and compiled by mypyc
    (setup.py) a plain class is built in 0.06 us against 0.27 us for a NamedTuple and
    0.62 us for a frozen dataclass. The fields are `Final`: mypy rejects assignments, and
    compiled code refuses them at run time too.
    """

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self._fields)

    __hash__: ClassVar[Any] = None  # holds lists: not hashable


_COMMAND_FIELDS = ("text", "argv", "always", "dynamic", "wrappers")


class ScannedCommand(Record):
    """One simple command found by the scanner (a read-only record).

    `text`: its source text with redirects (the permission pattern). `argv`: the REAL
    command after unwrapping wrappers and leading assignments: literal words with quotes
    removed, escapes resolved and concatenations joined; the name normalised
    (`/usr/bin/rm`, `\\rm` -> `rm`); dynamic words kept as written. `always`: the arity
    prefix of `argv` plus ` *`. `dynamic`: some word of `argv` is not literal.
    `wrappers`: wrapper names peeled off, outer first (`["sudo", "timeout"]`).
    """

    __slots__ = _COMMAND_FIELDS
    _fields = _COMMAND_FIELDS

    def __init__(self, text: str, argv: list[str], always: str, dynamic: bool, wrappers: list[str]) -> None:
        self.text: Final = text
        self.argv: Final = argv
        self.always: Final = always
        self.dynamic: Final = dynamic
        self.wrappers: Final = wrappers


_SCAN_FIELDS = ("patterns", "always", "dirs", "unknown", "reasons", "commands", "writes")


class Scan(Record):
    """What a command line runs and touches, for the permission engine (a read-only record).

    `patterns`: source text of each simple command, ordered, de-duplicated; for a wrapped
    command (`sudo rm x`, `FOO=1 npm test`, `xargs rm`) both the full text and the text
    from the real command on (`rm x`, `npm test`), so a rule `rm *` matches `sudo rm x`.
    `always`: per command, the real command's arity prefix + ` *` (`rm *`), followed, for
    a wrapped command, by the same prefixed with the wrapper text (`sudo rm *`) so that
    answering "always" also covers the wrapped form next time.
    `dirs`: absolute directories outside the project that the command reads or writes.
    `writes`: what the command writes, as absolute normalised paths inside or outside the
    project (redirect targets other than /dev/null and fd copies, here-docs sent to a
    file, `tee` files, the files rm/rmdir/mv/cp/install/touch/mkdir/chmod/chown/chgrp/
    ln/truncate/`dd of=`/`sed -i` modify; globs kept as written), or `*` for a write
    whose place is not known statically (`> $X`, `xargs rm`, find's `{}`).
    `unknown`: something could not be analysed statically (`reasons` say what); the
    caller must then ask about the whole command text.
    """

    __slots__ = _SCAN_FIELDS
    _fields = _SCAN_FIELDS

    def __init__(
        self,
        patterns: list[str],
        always: list[str],
        dirs: list[str],
        unknown: bool,
        reasons: list[str],
        commands: list[ScannedCommand],
        writes: list[str],
    ) -> None:
        self.patterns: Final = patterns
        self.always: Final = always
        self.dirs: Final = dirs
        self.unknown: Final = unknown
        self.reasons: Final = reasons
        self.commands: Final = commands
        self.writes: Final = writes


NestedScan = Callable[[str, str, "tuple[str, ...] | None", "ScanBuilder", Any, int], None]
"""``(grammar, script, cwds, builder, resolver, depth)``: scan ``script`` as a nested shell of
``grammar`` ("bash" or "powershell") runs it. scan.py hands one to every ScanBuilder, so a
grammar's scanner reaches the other grammar's without importing it."""


class ScanBuilder:
    """Accumulates one scan's results in order, de-duplicated (dict keys as ordered sets)."""

    __slots__ = (
        "_always",
        "_dirs",
        "_patterns",
        "_reasons",
        "_writes",
        "commands",
        "nested",
        "nesting",
        "rescan_budget",
        "seen",
    )

    def __init__(self, source_length: int = 0, nested: NestedScan | None = None) -> None:
        """`source_length`: characters of the scanned line, which sets the rescan budget;
        `nested` scans text run by a shell of another grammar (without it, such text is unknown)."""
        self._patterns: dict[str, None] = {}
        self._always: dict[str, None] = {}
        self._dirs: dict[str, None] = {}
        self._reasons: dict[str, None] = {}
        self._writes: dict[str, None] = {}
        self.commands: list[ScannedCommand] = []
        self.seen = False
        # How deep the walk is right now, over all nested scanners (see MAX_NESTING).
        self.nesting = 0
        # Characters of nested command text still allowed (see RESCAN_FACTOR).
        self.rescan_budget = RESCAN_FACTOR * source_length + RESCAN_SLACK
        self.nested = nested

    def scan_nested(
        self, grammar: str, script: str, cwds: tuple[str, ...] | None, resolver: Any, depth: int
    ) -> None:
        """Scan `script` as a nested `grammar` shell runs it (bash or powershell), at `depth`."""
        if self.nested is None:
            self.unknown(f"{grammar} text run by another shell is not analysed here")
        else:
            self.nested(grammar, script, cwds, self, resolver, depth)

    def command(
        self,
        text: str,
        argv: list[str],
        dynamic: bool,
        wrappers: list[str],
        inner_text: str = "",
        prefix_text: str = "",
    ) -> None:
        """Record one simple command (see `Scan` for the wrapped-command patterns).

        `wrappers` becomes the record's own list (pass a new one per command).
        """
        self.seen = True
        always = arity_text(argv) + " *"
        self._patterns[text] = None
        if inner_text and inner_text != text:
            self._patterns[inner_text] = None
        self._always[always] = None
        if prefix_text:
            self._always[prefix_text + " " + always] = None
        self.commands.append(ScannedCommand(text, argv, always, dynamic, wrappers))

    def rescan(self, text: str) -> bool:
        """Whether nested command `text` may be scanned: spends its length from the budget;
        when it is spent, records why (once) and returns False (see RESCAN_FACTOR)."""
        if len(text) > self.rescan_budget:
            self.rescan_budget = -1
            self.unknown("too much nested command text to analyse")
            return False
        self.rescan_budget -= len(text)
        return True

    def outside(self, path: str) -> None:
        """Record an absolute directory outside the project."""
        self._dirs[path] = None

    def wrote(self, path: str) -> None:
        """Record a path the command writes (absolute, or `*` for an unknown place)."""
        self._writes[path] = None

    def unknown(self, reason: str) -> None:
        """Record why part of the command could not be analysed."""
        self._reasons[reason] = None

    def build(self) -> Scan:
        """The frozen result."""
        reasons = list(self._reasons)
        return Scan(
            list(self._patterns),
            list(self._always),
            list(self._dirs),
            bool(reasons),
            reasons,
            self.commands,
            list(self._writes),
        )
