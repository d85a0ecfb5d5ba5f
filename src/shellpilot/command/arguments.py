"""Splitting the argument text of a slash command into positional arguments.

Owns: ``split_arguments`` (step 1 of expansion). Must not touch: templates or files.
"""

from __future__ import annotations

import re

# Priority order (spec §3.1 step 3): an image placeholder, a double-quoted run, a
# single-quoted run, a run of characters that are neither whitespace nor quotes.
_TOKEN = re.compile(r"""\[image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+""", re.IGNORECASE)


def split_arguments(text: str) -> list[str]:
    """Split ``text`` shell-like into arguments (seed: command(), argument tokenising).

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
