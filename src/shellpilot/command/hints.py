"""Placeholder hints of a template, for completion and ``command list``.

Owns: ``hints()``. Must not touch: substitution (substitution.py) or files.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellpilot.command.layout import layout
from shellpilot.command.model import TemplateSyntax
from shellpilot.command.placeholders import BASE, find


def hints(template: str, syntax: TemplateSyntax = "shellpilot", named: Sequence[str] = ()) -> list[str]:
    """The distinct placeholders the format's rules see in ``template``, in a stable order:
    numbered ones in NUMERIC order (``$10`` after ``$9``; OpenCode sorts them as text),
    then ``$ARGUMENTS[N]``, named ones (``$name``, ``$KEY``) in order of first use, then
    ``$ARGUMENTS`` (Gemini: ``{{args}}``).

    ``hints("$10 $9 $1 $2 $ARGUMENTS")`` is ``["$1", "$2"]`` plus ``$ARGUMENTS``: the run
    of numbers breaks after ``$2`` (see ``placeholders.find``). ``$0`` is a hint only in
    Claude Code files.
    """
    found = find(template, syntax, layout(template, syntax), named)
    base = BASE[syntax]
    numbered = sorted({p.index for p in found if p.kind == "index" and not p.text.startswith("$ARGUMENTS[")})
    result = [f"${n + base}" for n in numbered]
    result += sorted({p.text for p in found if p.text.startswith("$ARGUMENTS[")}, key=lambda t: int(t[11:-1]))
    for p in found:
        if p.kind in ("named", "key") and p.text not in result:
            result.append(p.text)
    for p in found:
        if p.kind == "all" and p.text not in result:
            result.append(p.text)
    return result
