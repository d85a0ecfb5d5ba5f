"""What `echo` and `printf` print when all their words are literal: the text a pipe then
hands a shell (`echo 'rm x' | sh`, `printf '%s\\n' 'rm x' | bash`).

Owns: `printed(argv)`. Must not touch: parsing or scanning (the walker scans the text).
"""

from __future__ import annotations

import re

from shellpilot.scanner.bash_words import ansi_text

_CONVERSION = re.compile(r"%(.)")


_DASH_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|[abcfnrtv\\])")
_DASH_CHARS = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _dash_echo(args: list[str]) -> str:
    """What dash's `echo` prints: only `-n` is an option, and it always reads `\\n`,
    `\\t`, `\\0NNN` (octal)... and stops everything at `\\c`."""
    newline = True
    if args and args[0] == "-n":
        newline = False
        args = args[1:]
    out: list[str] = []
    text = " ".join(args)
    end = 0
    for match in _DASH_ESCAPE.finditer(text):
        out.append(text[end : match.start()])
        code = match.group(1)
        if code == "c":
            return "".join(out)
        out.append(chr(int(code[1:] or "0", 8) & 0xFF) if code[0] == "0" else _DASH_CHARS[code])
        end = match.end()
    out.append(text[end:])
    return "".join(out) + ("\n" if newline else "")


def printed(argv: list[str], *, posix: bool = False) -> str | None:
    """The output of `echo ARGS` / `printf FORMAT ARGS` (argv with the name), or `None`
    when it is not one of them or its output cannot be told (a `%d` format...).
    `posix`: as a POSIX sh (dash) prints it: its echo reads backslash escapes, and its
    printf knows no `\\x`, `\\u` or `\\e` (those make the output unknown)."""
    if not argv:
        return None
    name, args = argv[0], list(argv[1:])
    if name == "echo" and posix:
        return _dash_echo(args)
    if name == "printf" and posix and any(re.search(r"\\[xuUeE]", a) for a in args):
        return None
    if name == "echo":
        newline, escapes = True, False
        while args and len(args[0]) > 1 and args[0][0] == "-" and set(args[0][1:]) <= set("neE"):
            for flag in args.pop(0)[1:]:
                if flag == "n":
                    newline = False
                else:
                    escapes = flag == "e"
        text = " ".join(args)
        return (ansi_text(text) if escapes else text) + ("\n" if newline else "")
    if name != "printf" or not args or args[0].startswith("-"):
        return None
    fmt, values = args[0], args[1:]
    pieces = _CONVERSION.split(fmt)  # text, conversion, text, conversion, ...
    kinds = pieces[1::2]
    if any(kind not in "sb%" for kind in kinds):
        return None
    slots = sum(kind != "%" for kind in kinds)
    out: list[str] = []
    while True:
        for i, piece in enumerate(pieces):
            if i % 2 == 0:
                out.append(ansi_text(piece))
            elif piece == "%":
                out.append("%")
            else:
                value = values.pop(0) if values else ""
                out.append(ansi_text(value) if piece == "b" else value)
        if not slots or not values:
            return "".join(out)
