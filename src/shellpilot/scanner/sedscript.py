"""Judges whether a sed script only prints: no ``e``/``w``/``W``/``r``/``R`` commands or flags.

Owns: a conservative walk over GNU sed script syntax. Must not touch: sed's options or
files (``readonly.py`` judges those); anything it does not understand is "not safe".
"""

from __future__ import annotations

# Commands that take no argument and only print, move or edit the pattern/hold space.
_PLAIN = set("pPdDnNgGhHxz=F{}")
# Commands that print text given in the script (to end of line).
_TEXT = set("aic")
# Labels and branches: the rest of the command is a label.
_LABEL = set(":btT")
# ``q``/``Q`` take an optional exit code; ``l``/``L`` an optional number.
_NUMBERED = set("qQlL")
# ``s`` flags that only change how the substitution matches or prints.
_S_FLAGS = set("gpiImM0123456789")


def is_safe_script(script: str, *, files_ok: bool = False) -> bool:
    """True when ``script`` cannot write files, read other files or run commands.

    Rejects the ``e`` command and ``s///e`` flag (run a command), ``w``/``W`` and
    ``s///w`` (write a file), ``r``/``R`` (read another file) and anything unknown.
    ``files_ok=True`` accepts the file commands (``w``, ``W``, ``r``, ``R``, ``s///w``),
    for a caller that sees their files itself: then only running commands is rejected.
    """
    walker = _Walker(script, files_ok=files_ok)
    try:
        return walker.run()
    except IndexError:
        return False


class _Walker:
    def __init__(self, script: str, *, files_ok: bool = False) -> None:
        self.s = script
        self.i = 0
        self.files_ok = files_ok

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def run(self) -> bool:
        while self.i < len(self.s):
            ch = self.peek()
            if ch in " \t\n;":
                self.i += 1
                continue
            if ch == "#":
                self.skip_line()
                continue
            self.address()
            if not self.command():
                return False
        return True

    def skip_line(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = len(self.s) if end < 0 else end + 1

    def address(self) -> None:
        for part in range(2):
            ch = self.peek()
            if ch.isdigit() or ch in "+~":
                self.i += 1
                while self.peek().isdigit() or self.peek() == "~":
                    self.i += 1
            elif ch == "$":
                self.i += 1
            elif ch == "/" or ch == "\\":
                if ch == "\\":
                    self.i += 1
                self.delimited(self.s[self.i])
                while self.peek() in ("I", "M"):
                    self.i += 1
            if part == 0 and self.peek() == ",":
                self.i += 1
                continue
            break
        while self.peek() in (" ", "\t", "!"):
            self.i += 1

    def delimited(self, delim: str) -> str:
        """Skip ``<delim>text<delim>`` starting at the opening delimiter; return text."""
        self.i += 1
        start = self.i
        while self.s[self.i] != delim:
            if self.s[self.i] == "\\":
                self.i += 1
            self.i += 1
        self.i += 1
        return self.s[start : self.i - 1]

    def command(self) -> bool:
        ch = self.peek()
        self.i += 1
        if ch in _PLAIN:
            return True
        if ch in _NUMBERED:
            while self.peek().isdigit() or self.peek() == " ":
                self.i += 1
            return True
        if ch in _TEXT or ch in _LABEL:
            self.skip_to_end_of_command(stop_at_semicolon=ch in _LABEL)
            return True
        if ch == "s":
            delim = self.peek()
            if not delim or delim in "\n\\":
                return False
            self.delimited(delim)
            self.i -= 1  # the closing delimiter of the regex opens the replacement
            self.delimited(delim)
            while self.peek() and self.peek() not in " \t\n;}":
                if self.files_ok and self.peek() == "w":  # s///w FILE: the file is the rest of the line
                    self.skip_to_end_of_command(stop_at_semicolon=False)
                    return True
                if self.peek() not in _S_FLAGS:
                    return False
                self.i += 1
            return True
        if ch == "y":
            delim = self.peek()
            if not delim or delim in "\n\\":
                return False
            self.delimited(delim)
            self.i -= 1
            self.delimited(delim)
            return True
        if self.files_ok and ch in "wWrR":  # FILE is the rest of the line
            self.skip_to_end_of_command(stop_at_semicolon=False)
            return True
        return False  # e, w, W, r, R, v and anything unknown

    def skip_to_end_of_command(self, *, stop_at_semicolon: bool) -> None:
        while self.i < len(self.s) and self.s[self.i] != "\n":
            if stop_at_semicolon and self.s[self.i] in ";}":
                return
            self.i += 1
