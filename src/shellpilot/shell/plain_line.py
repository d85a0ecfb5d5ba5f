"""Plain command lines: words and `&& || ; |` only, scanned without a parse.

Owns: recognising such a line and splitting it into simple commands as `Word` lists.
Must not touch: anything else; scan_bash.py decides what the commands mean.
"""

from __future__ import annotations

import re

from shellpilot.shell.scan_paths import CD_COMMANDS
from shellpilot.shell.words import Word

# A line of plain words (no quotes, expansions, redirects, globs, comments, `~`) split
# only by `&&`, `||`, `;`, `|` needs no parse: its simple commands are the runs of words
# between operators. Assignments, reserved words and (in a chain) the cd family take the
# tree-sitter path; tests/shell/test_scan_windows.py checks both paths agree on the corpus.
_W = r"[A-Za-z0-9_./:@%+,=-]+"
_PLAIN = re.compile(rf" *{_W}(?: +{_W})*(?: *(?:&&|\|\||\||;) *{_W}(?: +{_W})*)* *")
_TOKEN = re.compile(r"[^ &|;]+|&&|\|\||\||;")
_OPERATORS = frozenset({"&&", "||", "|", ";"})
_RESERVED = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "function",
        "select",
        "coproc",
        "time",
        "!",
        "{",
        "}",
        "[[",
        "]]",
    }
)


def plain_commands(source: str) -> list[list[Word]] | None:
    """The simple commands of a plain-word line, or `None` when it needs the parser."""
    if not _PLAIN.fullmatch(source):
        return None
    if "&" not in source and "|" not in source and ";" not in source:
        single: list[Word] = []
        at = 0
        for token in source.split(" "):
            if token:
                single.append(Word(token, token, at, at + len(token), False, token))
            at += len(token) + 1
        first = single[0].value
        return None if first in _RESERVED or "=" in first else [single]
    commands: list[list[Word]] = []
    words: list[Word] = []
    for match in _TOKEN.finditer(source):
        token = match.group()
        if token in _OPERATORS:
            commands.append(words)
            words = []
            continue
        if not words and (token in _RESERVED or "=" in token):
            return None
        words.append(Word(token, token, match.start(), match.end(), False, token))
    commands.append(words)
    if len(commands) > 1:
        for command in commands:
            for word in command:
                if word.value in CD_COMMANDS:
                    return None
    return commands
