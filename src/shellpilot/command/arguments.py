"""Splitting the argument text of a slash command into positional arguments.

Owns: ``split_arguments`` (step 1 of expansion) and its inverse for the CLI,
``join_arguments``. Must not touch: templates or files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Priority order: an image placeholder, a double-quoted run, a
# single-quoted run, a run of characters that are neither whitespace nor quotes.
_TOKEN = re.compile(r"""\[image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+""", re.IGNORECASE)


def split_arguments(text: str) -> list[str]:
    """Split ``text`` shell-like into arguments.

    Double and single quotes group words and are stripped; ``[Image 1]`` (any case) is
    one token; an unmatched quote character is dropped. No escapes, no expansion:
    ``split_arguments('a "b c" [Image 2] \\'d\\'') == ["a", "b c", "[Image 2]", "d"]``.
    """
    result: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if len(token) >= 2 and token[0] == token[-1] and token[0] in "\"'":
            token = token[1:-1]
        result.append(token)
    return result


def _needs_quotes(word: str) -> bool:
    return (
        not word
        or any(ch.isspace() or ch in "\"'" for ch in word)
        or word[:6].lower() == "[image"  # "[Image" "1]" must not become one [Image 1] token
    )


def join_arguments(words: Sequence[str]) -> str:
    """The argument text for argv ``words`` typed after a command name on the CLI.

    Words are joined by spaces; only a word that needs it is quoted, the way
    ``split_arguments`` undoes: empty or holding whitespace or ``'`` -> ``"..."``,
    holding ``"`` -> ``'...'``. So ``split_arguments(join_arguments(w)) == w`` and
    ``$ARGUMENTS`` reads as typed: ``["fix", "it's", "a b"]`` -> ``fix "it's" "a b"``.
    ``split_arguments`` has no escapes, so a word holding both quote characters cannot
    survive whole: it is double-quoted with its ``"`` dropped.
    """
    out: list[str] = []
    for word in words:
        if not _needs_quotes(word):
            out.append(word)
        elif '"' not in word:
            out.append(f'"{word}"')
        elif "'" not in word:
            out.append(f"'{word}'")
        else:
            out.append('"' + word.replace('"', "") + '"')
    return " ".join(out)
