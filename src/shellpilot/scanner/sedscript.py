"""Reads a sed script the way GNU sed compiles it: its commands, what they run, write and read.

Owns: GNU sed's script syntax (addresses, regexes and their bracket expressions, s and y,
text, labels, file names). Must not touch: sed's options or operand files (readonly.py,
argument_commands.py and scan_writes.py judge those).
"""

from __future__ import annotations

from dataclasses import dataclass

_SPACE = " \t\n\r\v\f"  # what sed skips between commands (C isspace)
_BLANK = " \t"  # what sed skips inside a command (C isblank)
_DIGITS = "0123456789"
_PLAIN = set("=dDFgGhHnNpPzx")  # no argument; only `;`, `}`, `#` or a newline may follow


@dataclass(frozen=True)
class SedCommand:
    """One command of a sed script as sed compiled it.

    `letter`: the command (`s`, `w`, `e`, `{`, `}`, `:`, `a`, ...). `runs`: the `e` command
    or the `s///e` flag, which hand text to /bin/sh. `file`: the file of `r`, `R`, `w`, `W`
    or of the `s///w` flag, exactly as sed reads it (the rest of the line, blanks kept).
    """

    letter: str
    runs: bool = False
    file: str | None = None

    @property
    def writes(self) -> bool:
        """Whether the command writes `file` (`w`, `W`, `s///w`)."""
        return self.file is not None and self.letter in "wWs"

    @property
    def reads(self) -> bool:
        """Whether the command reads `file` (`r`, `R`)."""
        return self.file is not None and self.letter in "rR"


@dataclass(frozen=True)
class SedScript:
    """A sed script read as GNU sed compiles it.

    `commands`: the commands in order, as far as they were read (comments and `v` leave
    none). `error`: empty when the whole script reads; else why and where it stops, as
    sed says it. The commands before an error still count: sed opens `w` files while it
    compiles, before it reports a later error.
    """

    commands: tuple[SedCommand, ...]
    error: str = ""

    @property
    def understood(self) -> bool:
        """Whether the whole script was read (a script that is not is judged unsafe)."""
        return not self.error

    @property
    def runs(self) -> bool:
        """Whether a command runs a program (`e`, `s///e`)."""
        return any(c.runs for c in self.commands)

    @property
    def writes(self) -> tuple[str, ...]:
        """The files the `w`/`W` commands and `s///w` flags write, in order."""
        return tuple(c.file for c in self.commands if c.writes and c.file is not None)

    @property
    def reads(self) -> tuple[str, ...]:
        """The files the `r`/`R` commands read, in order."""
        return tuple(c.file for c in self.commands if c.reads and c.file is not None)


def read_script(script: str) -> SedScript:
    """Read `script` (one `-e` value or a script operand) as GNU sed compiles it.

    A regex (an address `/re/` or `\\cREc`, the pattern of `s`) ends at the first
    delimiter that is neither escaped by a backslash nor inside a bracket expression
    (`[/]`, `[]/]`, `[^]/]`, `[[:alpha:]/]`, `[[.-.]]`, `[[=a=]]`: inside brackets a
    backslash is literal and the delimiter is a plain character). The replacement of
    `s` and both parts of `y` are no regexes: there only a backslash protects. An
    unescaped newline inside any of them is an error, as in sed. Labels end at a blank,
    `;`, `}`, `#` or a newline; `a`/`i`/`c`/`e` text and file names at the end of the
    line (a backslash-newline continues the text). Never raises: what does not read is
    reported in `SedScript.error`.
    """
    reader = _Reader(script)
    try:
        reader.program()
    except _Stop as stop:
        return SedScript(tuple(reader.commands), f"{stop} (at character {reader.i})")
    return SedScript(tuple(reader.commands))


def is_safe_script(script: str, *, files_ok: bool = False) -> bool:
    """True when `script` cannot write files, read other files or run commands.

    Rejects the `e` command and `s///e` flag (run a command), `w`/`W` and `s///w` (write
    a file), `r`/`R` (read another file) and any script that does not read as GNU sed
    reads it (see `read_script`). `files_ok=True` accepts the file commands, for a caller
    that sees their files itself (`read_script(...).writes`): then only running commands
    and unreadable scripts are rejected.
    """
    read = read_script(script)
    if not read.understood or read.runs:
        return False
    return files_ok or not any(c.file is not None for c in read.commands)


class _Stop(Exception):
    """sed would reject the script here."""


class _Reader:
    """A cursor over a script; each method mirrors the part of sed's compiler it names."""

    def __init__(self, script: str) -> None:
        self.s = script
        self.i = 0
        self.commands: list[SedCommand] = []

    def next(self) -> str:
        """The next character, consumed; "" at the end."""
        if self.i >= len(self.s):
            return ""
        self.i += 1
        return self.s[self.i - 1]

    def back(self, ch: str) -> None:
        """Un-read `ch`, the character last read (sed's savchar: the end is not un-read)."""
        if ch:
            self.i -= 1

    def nonblank(self) -> str:
        ch = self.next()
        while ch and ch in _BLANK:
            ch = self.next()
        return ch

    def program(self) -> None:
        while True:
            ch = self.next()
            while ch and (ch == ";" or ch in _SPACE):
                ch = self.next()
            if not ch:
                return
            addresses = 0
            if self.address(ch, first=True):
                addresses = 1
                ch = self.nonblank()
                if ch == ",":
                    if not self.address(self.nonblank(), first=False):
                        raise _Stop("unexpected ','")
                    addresses = 2
                    ch = self.nonblank()
            if ch == "!":
                ch = self.nonblank()
                if ch == "!":
                    raise _Stop("multiple '!'s")
            self.command(ch, addresses)

    def command(self, ch: str, addresses: int) -> None:
        if not ch:
            raise _Stop("missing command")
        if ch == "#":
            if addresses:
                raise _Stop("comments don't accept any addresses")
            while ch and ch != "\n":
                ch = self.next()
            return
        if ch == "v":  # needs a GNU sed at least this version; compiles to nothing
            self.label()
            return
        if ch in ":}" and addresses:
            raise _Stop(f"{ch} doesn't want any addresses")
        if ch in "qQ" and addresses > 1:
            raise _Stop("command only uses one address")
        runs = False
        file: str | None = None
        if ch == "{":
            pass
        elif ch == "}" or ch in _PLAIN:  # (a `}` may close a block of an earlier -e)
            self.end_of_command()
        elif ch in "qQlL":
            number = self.nonblank()
            if number and number in _DIGITS:
                self.integer(number)
            else:
                self.back(number)
            self.end_of_command()
        elif ch == "e":
            runs = True
            lead = self.nonblank()
            if lead and lead != "\n":
                self.text(lead)
        elif ch in "aic":
            self.text(self.nonblank())
        elif ch == ":":
            if not self.label():
                raise _Stop('":" lacks a label')
        elif ch in "btT":
            self.label()
        elif ch in "rRwW":
            file = self.filename()
        elif ch == "s":
            runs, file = self.substitute()
        elif ch == "y":
            delimiter = self.next()  # (no regexes: brackets protect nothing in y)
            if any(self.delimited(delimiter, regex=False) is None for _ in range(2)):
                raise _Stop("unterminated `y' command")
            self.end_of_command()
        else:
            raise _Stop(f"unknown command: `{ch}'")
        self.commands.append(SedCommand(ch, runs, file))

    def address(self, ch: str, *, first: bool) -> bool:
        """Read one address starting at `ch`; False (nothing read) when `ch` starts none."""
        if ch in ("/", "\\") and ch:
            delimiter = self.next() if ch == "\\" else ch
            if self.delimited(delimiter, regex=True) is None:
                raise _Stop("unterminated address regex")
            flag = self.nonblank()
            while flag and flag in "IM":
                flag = self.nonblank()
            self.back(flag)
            return True
        if ch and ch in _DIGITS:
            self.integer(ch)
            tilde = self.nonblank()
            if tilde == "~":
                self.integer(self.nonblank())
            else:
                self.back(tilde)
            return True
        if ch and ch in "+~":
            if first:
                raise _Stop("invalid usage of +N or ~N as first address")
            self.integer(self.nonblank())
            return True
        return ch == "$"

    def integer(self, ch: str) -> None:
        while ch and ch in _DIGITS:
            ch = self.next()
        self.back(ch)

    def end_of_command(self) -> None:
        ch = self.nonblank()
        if ch in ("}", "#"):
            self.back(ch)
        elif ch not in ("", "\n", ";"):
            raise _Stop("extra characters after command")

    def label(self) -> str:
        """A label: after blanks, up to a blank, `;`, `}`, `#`, a newline or the end."""
        ch = self.nonblank()
        begin = self.i - 1 if ch else self.i
        while ch and ch not in "\n \t;}#":
            ch = self.next()
        self.back(ch)
        return self.s[begin : self.i]

    def filename(self) -> str:
        """The rest of the line after blanks (sed keeps `;`, `}`, `#` and trailing blanks)."""
        ch = self.nonblank()
        begin = self.i - 1 if ch else self.i
        while ch and ch != "\n":
            ch = self.next()
        name = self.s[begin : self.i - 1 if ch else self.i]
        if not name:
            raise _Stop("missing filename in r/R/w/W commands")
        return name

    def text(self, ch: str) -> None:
        """The text of `a`, `i`, `c` or `e`, whose first character `ch` was read."""
        if not ch:
            raise _Stop("expected \\ after `a', `c' or `i'")
        if ch == "\\":
            if not self.next():
                return  # (the text goes on in the next -e)
        else:
            self.back(ch)
        while True:
            ch = self.next()
            if not ch or ch == "\n":
                return
            if ch == "\\" and not self.next():
                return

    def substitute(self) -> tuple[bool, str | None]:
        """The rest of an `s` command: (whether it has the `e` flag, its `w` file)."""
        delimiter = self.next()
        if self.delimited(delimiter, regex=True) is None or self.delimited(delimiter, regex=False) is None:
            raise _Stop("unterminated `s' command")
        runs = False
        seen: set[str] = set()
        while True:
            ch = self.nonblank()
            if ch in ("", "\n", ";"):
                return runs, None
            if ch in ("}", "#"):
                self.back(ch)
                return runs, None
            if ch == "\r":
                if self.next() == "\n":
                    return runs, None
                raise _Stop("unknown option to `s'")
            if ch == "w":
                return runs, self.filename()
            if ch in _DIGITS:
                start = self.i - 1
                self.integer(ch)
                if "0" in seen or int(self.s[start : self.i]) == 0:
                    raise _Stop("multiple number options to `s' command, or a zero one")
                seen.add("0")
            elif ch in "pg":
                if ch in seen:
                    raise _Stop(f"multiple `{ch}' options to `s' command")
                seen.add(ch)
            elif ch == "e":
                runs = True
            elif ch not in "iImM":
                raise _Stop("unknown option to `s'")

    def delimited(self, delimiter: str, *, regex: bool) -> str | None:
        """Skip to the closing `delimiter` (sed's match_slash); its text, None if unclosed.

        In a `regex`, a `[` opens a bracket expression in which the delimiter and the
        backslash are plain characters.
        """
        if not delimiter or delimiter == "\n" or not delimiter.isascii():
            return None  # (sed: unterminated, or a delimiter that is not one byte)
        start = self.i
        while True:
            ch = self.next()
            if not ch or ch == "\n":
                return None
            if ch == delimiter:
                return self.s[start : self.i - 1]
            if ch == "\\":
                if not self.next():
                    return None
            elif ch == "[" and regex and self.bracket() != "]":
                return None

    def bracket(self) -> str:
        """Skip a bracket expression after its `[` (sed's snarf_char_class); the character
        that ended it: `]`, or "" / a newline when it is not closed.

        A `^` and then a `]` right after the `[` are plain; `[:`, `[.`, `[=` open a class,
        collating symbol or equivalence class that only `:]`, `.]`, `=]` close.
        """
        ch = self.next()
        if ch == "^":
            ch = self.next()
        if ch == "]":
            ch = self.next()
        state = 0  # 0 plain, 1 after `[`, 2 inside `[:`..., 3 after its closing `:`
        opener = ""
        while True:
            if not ch or ch == "\n":
                return ch
            if ch in ".:=":
                if state == 1:
                    opener, state = ch, 2
                    ch = self.next()
                    continue
                if state == 2 and ch == opener:
                    state = 3
                    ch = self.next()
                    continue
            elif ch == "[":
                if state == 0:
                    state = 1
                ch = self.next()
                continue
            elif ch == "]":
                if state in (0, 1):
                    return ch
                if state == 3:
                    state = 0
            state &= ~1
            ch = self.next()
