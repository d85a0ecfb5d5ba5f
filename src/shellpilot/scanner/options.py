"""Reading a command's arguments by its option shape: options, their values, operands.

Owns: `Shape` (how one command's options read and which words name files it reads or
writes), `Parsed` and `read()` (getopt-style: clusters `-rf`, attached values `-C/tmp`,
`--output=x`, abbreviated long options `--outp=x`, `--`, subcommands with their own
shapes) and `long_options()` (what an abbreviated `--name` stands for). Must not touch:
the table of shapes itself (option_table.py), path resolution or what a write rule makes
of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from shellpilot.scanner.words import Word

_EMPTY: frozenset[str] = frozenset()


def long_options(written: str, names: Iterable[str]) -> tuple[str, ...]:
    """The long options among `names` that `written` (`--name`, its `=value` cut off)
    stands for, the way getopt_long reads it: itself when it is one of them, else every
    one it is a prefix of (`--outp` is `--output`, `--sp` is `--split-string`); empty for
    none. getopt_long, Python's argparse and optparse and git's parse-options take any
    unambiguous prefix; an ambiguous one is an error, so naming every candidate costs at
    most a prompt. `--` alone and single-dash words stand for nothing."""
    if len(written) < 3 or not written.startswith("--"):
        return ()
    names = tuple(names)
    if written in names:
        return (written,)
    return tuple(name for name in names if name.startswith(written))


@dataclass(frozen=True, slots=True)
class Shape:
    """How one command's arguments read.

    `operands`: which non-option words are paths it reads: "all", "skip1" (the first is
    a mode, pattern or script), "first" (a script file), "none". Short option letters
    taking a value: `values` (not a path), `paths` (a file it reads), `outputs` (a file
    it writes), `output_dirs` (a directory it writes into); `attached`: letters whose
    value is only ever attached (`7z -oDIR`, `xargs -i`). The `long_*` sets are the same
    for `--long` options (`--x=v` or `--x v`). `script`: letters that give the script or
    pattern, so "skip1" skips nothing; `stop`: letters after which no word is a path
    (`python -c`). `dash_words`: a single dash starts a whole option name, as in gcc,
    go, openssl and find (`-out FILE`, `-o FILE`); its one-letter value options may
    also be attached (`-ofile`). `modes`: a `-word` that is not all flags is an operand
    (`chmod -x f`). `old_style`: a first word without a dash is a cluster (`tar xzf a`).
    `long_flags`: `--long` options that take no value (or only an attached one, as
    `--in-place=.bak`) that its write rule looks for, so that an abbreviation of one
    (`--in`) is read as that option too (every `long_*` name is).
    `writes`: the rule naming which operands it writes (scan_writes.RULES; "" none).
    `subcommands`: the first operand names a subcommand read with its own shape (options
    before it are global); a subcommand not in it is read no further.
    """

    operands: str = "all"
    values: str = ""
    paths: str = ""
    outputs: str = ""
    output_dirs: str = ""
    attached: str = ""
    flags: str = ""
    long_values: frozenset[str] = _EMPTY
    long_paths: frozenset[str] = _EMPTY
    long_outputs: frozenset[str] = _EMPTY
    long_output_dirs: frozenset[str] = _EMPTY
    long_flags: frozenset[str] = _EMPTY
    script: str = ""
    stop: str = ""
    dash_words: bool = False
    modes: bool = False
    old_style: bool = False
    writes: str = ""
    subcommands: Mapping[str, Shape] | None = None

    def kind(self, option: str) -> str:
        """What the value of `option` (a letter, `--long` or `-word`) is: "value",
        "path", "output", "output_dir", or "" when it takes none."""
        if len(option) == 1:
            if option in self.values or option in self.attached:
                return "value"
            if option in self.paths:
                return "path"
            if option in self.outputs:
                return "output"
            if option in self.output_dirs:
                return "output_dir"
            return ""
        if option in self.long_values:
            return "value"
        if option in self.long_paths:
            return "path"
        if option in self.long_outputs:
            return "output"
        if option in self.long_output_dirs:
            return "output_dir"
        return ""

    def long_names(self) -> frozenset[str]:
        """Every `--long` option this shape names (valued ones and `long_flags`)."""
        return (
            self.long_values | self.long_paths | self.long_outputs | self.long_output_dirs | self.long_flags
        )


class Parsed:
    """A command's arguments read by its `Shape`.

    `operands`: the non-option words after the subcommand names; `values`: option
    (letter, `--long` or `-word`) -> its value word; `seen`: every option given; `paths`,
    `outputs`, `output_dirs`: the value words of options of those kinds; `given`: every
    (option, value) in order (an option given twice, `-v a -v b`, keeps both); `sub`: the
    subcommand names read (`("worktree", "add")`); `shape`: the shape the operands were
    read with; `scripted`: a `script` option was given; `stopped`: a `stop` option ended
    the reading (the words after it are not paths).
    """

    __slots__ = (
        "given",
        "operands",
        "output_dirs",
        "outputs",
        "paths",
        "scripted",
        "seen",
        "shape",
        "stopped",
        "sub",
        "values",
    )

    def __init__(self, shape: Shape, operands: list[Word] | None = None) -> None:
        # (plain literals, not dataclass field factories: one of these per command)
        self.shape = shape
        self.operands: list[Word] = [] if operands is None else operands
        self.values: dict[str, Word] = {}
        self.seen: set[str] = set()
        self.paths: list[Word] = []
        self.outputs: list[Word] = []
        self.output_dirs: list[Word] = []
        self.given: list[tuple[str, Word]] = []
        self.sub: tuple[str, ...] = ()
        self.scripted = False
        self.stopped = False

    def take(self, option: str, kind: str, value: Word | None) -> None:
        """Record `option`'s value word of `kind` (see Shape.kind)."""
        if value is None:
            return
        self.values[option] = value
        self.given.append((option, value))
        if kind == "path":
            self.paths.append(value)
        elif kind == "output":
            self.outputs.append(value)
        elif kind == "output_dir":
            self.output_dirs.append(value)

    def path_words(self) -> list[Word]:
        """Every word naming a file it reads or writes: option values of those kinds, then
        the operands its shape says are paths."""
        out = [*self.paths, *self.outputs, *self.output_dirs]
        if self.stopped:
            return out
        kind = self.shape.operands
        if kind == "all" or (kind == "first" and self.scripted):
            out.extend(self.operands)  # (`perl -e CODE f g`: every operand is a data file)
        elif kind == "skip1":
            out.extend(self.operands if self.scripted else self.operands[1:])
        elif kind == "first":
            out.extend(self.operands[:1])
        return out


def read(shape: Shape, args: Sequence[Word]) -> Parsed:
    """`args` (argv without the command name) read by `shape` (see Shape)."""
    if shape.subcommands is None and not shape.old_style:
        for arg in args:
            if arg.value[:1] == "-":
                break
        else:  # no option-like word (the common case): every word is an operand
            return Parsed(shape, list(args))
    if shape.old_style and args and not args[0].dynamic and args[0].value[:1] not in ("-", ""):
        first = args[0]
        args = [Word.literal("-" + first.value, first.start, first.end, first.raw), *args[1:]]
    parsed = Parsed(shape)
    _walk(shape, args, 0, parsed)
    return parsed


def _walk(shape: Shape, args: Sequence[Word], i: int, parsed: Parsed) -> None:
    parsed.shape = shape
    n = len(args)
    options = True
    while i < n:
        arg = args[i]
        v = arg.value
        if options and v[:1] == "-" and len(v) > 1 and not arg.dynamic:
            if v == "--":
                options = False
            elif v[1] == "-" or (shape.dash_words and len(v) > 2):
                i += _long(shape, arg, args, i, parsed)
            elif shape.modes and not set(v[1:]) <= set(shape.flags):
                parsed.operands.append(arg)  # a mode such as `-x` or `-rwx`
            elif _short(shape, arg, args, i, parsed):
                i += 1
            if parsed.stopped:
                return
            i += 1
            continue
        subcommands = shape.subcommands
        if subcommands is not None:
            sub = subcommands.get(v) if not arg.dynamic else None
            if sub is None:
                return  # an unknown subcommand: its words are not read
            parsed.sub = (*parsed.sub, v)
            _walk(sub, args, i + 1, parsed)
            return
        parsed.operands.append(arg)
        i += 1


def _short(shape: Shape, arg: Word, args: Sequence[Word], i: int, parsed: Parsed) -> bool:
    """A cluster `-abc`, `-C/tmp`, `-oFILE`; True when it took the next word as a value."""
    v = arg.value
    for k in range(1, len(v)):
        letter = v[k]
        parsed.seen.add(letter)
        if letter in shape.stop:
            parsed.stopped = True
            return False
        if letter in shape.script:
            parsed.scripted = True
        kind = shape.kind(letter)
        if not kind:
            continue
        if k + 1 < len(v):
            parsed.take(letter, kind, arg.suffix(k + 1))
            return False
        if letter in shape.attached:
            return False
        parsed.take(letter, kind, args[i + 1] if i + 1 < len(args) else None)
        return True
    return False


_DANGER = ("output", "output_dir", "path", "value", "")
"""Kinds of value from the one that matters most to a scan to the least: an abbreviation
that may stand for several options is read as the first of these among them."""


def _long(shape: Shape, arg: Word, args: Sequence[Word], i: int, parsed: Parsed) -> int:
    """`--name[=value]` or, for `dash_words`, `-name [value]`; returns words consumed.
    An abbreviated `--name` is read as the option it stands for (see `long_options`): all
    of them count as seen, and its value goes to the one of the most telling kind."""
    written, eq, _ = arg.value.partition("=")
    name = written
    parsed.seen.add(name)
    also: tuple[str, ...] = ()
    if name[1] == "-" and not shape.kind(name) and name not in shape.long_flags:
        meant = long_options(name, shape.long_names())
        if meant:
            parsed.seen.update(meant)
            name = min(meant, key=lambda option: _DANGER.index(shape.kind(option)))
            also = tuple(o for o in meant if o != name and shape.kind(o) == shape.kind(name))
    kind = shape.kind(name)
    if not kind and eq and name in shape.long_flags:
        parsed.take(name, "value", arg.suffix(len(written) + 1))  # `--in-place=.bak`
        return 0
    if not kind and name[1] != "-" and shape.kind(name[1]):
        # `-ofile`, `-Idir`: a one-letter option with its value attached
        letter = name[1]
        parsed.seen.add(letter)
        parsed.take(letter, shape.kind(letter), arg.suffix(2))
        return 0
    if not kind:
        if name[1] != "-" and name[1] in shape.stop:
            parsed.stopped = True
        return 0
    value = arg.suffix(len(written) + 1) if eq else args[i + 1] if i + 1 < len(args) else None
    parsed.take(name, kind, value)
    for other in also:  # (an ambiguous abbreviation: each of its options has the value)
        if value is not None:
            parsed.values.setdefault(other, value)
    return 0 if eq else 1


_FIND_PATH_ACTIONS = frozenset(
    {"-fprint", "-fprint0", "-fprintf", "-fls", "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from"}
)


def find_paths(args: Sequence[Word]) -> list[Word]:
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
