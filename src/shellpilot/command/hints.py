"""Placeholder hints of a template, for completion and ``command list``.

Owns: ``hints()``. Must not touch: substitution (template.py) or files.
"""

from __future__ import annotations

import re

from shellpilot.command.model import TemplateSyntax

_NUMBERED = re.compile(r"\$(\d+)")


def hints(template: str, syntax: TemplateSyntax = "shellpilot") -> list[str]:
    """Distinct ``$N`` placeholders (N >= 1) in NUMERIC order, then ``$ARGUMENTS`` if used.

    ``hints("$10 $2 $1 $2 $ARGUMENTS") == ["$1", "$2", "$10", "$ARGUMENTS"]``. OpenCode
    sorts lexicographically (``$10`` before ``$2``); we sort by number.
    ``$0`` is literal text, so it is not a hint. Gemini templates report ``{{args}}``.
    """
    if syntax == "gemini":
        return ["{{args}}"] if "{{args}}" in template else []
    numbers = sorted({int(m.group(1)) for m in _NUMBERED.finditer(template)} - {0})
    result = [f"${n}" for n in numbers]
    if "$ARGUMENTS" in template:
        result.append("$ARGUMENTS")
    return result
