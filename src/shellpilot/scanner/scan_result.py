"""The scanner's result types and the builder every shell scanner fills.

Owns: `Scan`, `ScannedCommand`, `ScanBuilder` (patterns, always, dirs, unknown reasons).
Must not touch: parsing, shells or permission rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from shellpilot.scanner.arity import prefix_text as arity_text

_new = tuple.__new__

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
is `unknown`. Keeps Python's stack bounded."""


class ScannedCommand(NamedTuple):
    """One simple command found by the scanner (an immutable record: a NamedTuple, built
    once per command, cheaper than a frozen dataclass).

    `text`: its permission pattern: the words as bash reads them (quotes removed,
    escapes and line continuations resolved, see `Word.shown`) joined by single spaces,
    then its redirects (`cat f > out`), those of the pipeline, list or compound command
    they apply to included. `argv`: the REAL command after unwrapping wrappers and
    leading assignments; the name normalised (`/usr/bin/rm`, `\\rm` -> `rm`); dynamic
    words kept as written. `always`: the arity prefix of `argv` plus ` *`. `dynamic`:
    some word of `argv` is not literal. `wrappers`: wrapper names peeled off, outer first
    (`("sudo", "timeout")`). `cwds`: the directories it may run in (absolute; empty when
    a `cd` to an unknown place came before it, which also makes the scan `unknown`).
    """

    text: str
    argv: tuple[str, ...]
    always: str
    dynamic: bool
    wrappers: tuple[str, ...]
    cwds: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Scan:
    """What a command line runs and touches, for the permission engine.

    `patterns`: the pattern of each simple command (`ScannedCommand.text`), ordered,
    de-duplicated; for a wrapped command (`sudo rm x`, `FOO=1 npm test`, `xargs rm`)
    both the whole command and the real command from its name on (`rm x`, `npm test`),
    so a rule `rm *` matches `sudo rm x`; a bare redirect (`> f`) is its own pattern.
    `always`: per command, the real command's arity prefix + ` *` (`rm *`), followed, for
    a wrapped command, by the same prefixed with the wrapper text (`sudo rm *`) so that
    answering "always" also covers the wrapped form next time.
    `dirs`: absolute directories outside the project that the command reads or writes
    (symlinks followed), never `/` for a path that does not exist.
    `writes`: what the command writes, as absolute normalised paths inside or outside the
    project (redirect targets other than /dev/null and fd copies, here-docs sent to a
    file, `tee` files, the files rm/mv/cp/touch/mkdir/`sed -i`/... modify and the outputs
    of compilers, downloaders and archivers; globs kept as written), or `*` for a write
    whose place is not known statically (`> $X`, `xargs rm`, find's `{}`).
    `unknown`: something could not be analysed statically (`reasons` say what); the
    caller must then ask about the whole command text; its `writes` then hold `*`.
    """

    patterns: tuple[str, ...]
    always: tuple[str, ...]
    dirs: tuple[str, ...]
    unknown: bool
    reasons: tuple[str, ...]
    commands: tuple[ScannedCommand, ...]
    writes: tuple[str, ...]


class ScanBuilder:
    """Accumulates one scan's results in order, de-duplicated (dict keys as ordered sets)."""

    __slots__ = (
        "_always",
        "_dirs",
        "_patterns",
        "_reasons",
        "_writes",
        "commands",
        "nesting",
        "rescan_budget",
        "seen",
    )

    def __init__(self, source_length: int = 0) -> None:
        """`source_length`: characters of the scanned line, which sets the rescan budget."""
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

    def command(
        self,
        text: str,
        argv: list[str],
        dynamic: bool,
        wrappers: tuple[str, ...] = (),
        *,
        inner_text: str = "",
        prefix_text: str = "",
        cwds: tuple[str, ...] | None = None,
        always: str | None = None,
    ) -> None:
        """Record one simple command (see `Scan` for the wrapped-command patterns).

        `inner_text`: the real command's own pattern when wrappers or assignments come
        first; `prefix_text`: their text, which also prefixes the always pattern.
        `always`: overrides the arity prefix (a bare redirect is remembered exactly).
        """
        self.seen = True
        if always is None:
            always = arity_text(argv) + " *" if argv else text
        self._patterns[text] = None
        if inner_text and inner_text != text:
            self._patterns[inner_text] = None
        self._always[always] = None
        if prefix_text:
            self._always[prefix_text + " " + always] = None
        self.commands.append(_new(ScannedCommand, (text, tuple(argv), always, dynamic, wrappers, cwds or ())))

    def pattern(self, text: str) -> None:
        """Record one more pattern of a command already recorded (a reading of what an
        unknown command name may turn out to be, for deny rules to match)."""
        if text:
            self._patterns[text] = None

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

    def written(self) -> tuple[str, ...]:
        """The paths recorded as written so far (see `wrote`)."""
        return tuple(self._writes)

    def unknown(self, reason: str) -> None:
        """Record why part of the command could not be analysed."""
        self._reasons[reason] = None

    def build(self) -> Scan:
        """The frozen result. An `unknown` scan also writes `*`: what it cannot see may
        write anywhere (so an agent that may not edit never runs it)."""
        reasons = tuple(self._reasons)
        if reasons:
            self._writes["*"] = None
        return Scan(
            tuple(self._patterns),
            tuple(self._always),
            tuple(self._dirs),
            bool(reasons),
            reasons,
            tuple(self.commands),
            tuple(self._writes),
        )
