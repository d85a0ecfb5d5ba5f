"""Which ``$...`` in a template are placeholders, by the rules of the format it was written in.

Owns: finding placeholders (``$N``, ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$name``, ``$KEY``,
``${CLAUDE_*}``, ``{{args}}``, the ``\\$`` and ``\\!`` escapes) and the rules that keep text an author
could not have meant as one. Must not touch: argument values (arguments.py, values.py).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from shellpilot.command.layout import Region
from shellpilot.command.model import TemplateSyntax

PlaceholderKind = Literal["all", "index", "named", "key", "variable", "escape"]
Where = Literal["text", "code", "block"]

_DOLLAR_FORMATS: frozenset[TemplateSyntax] = frozenset(
    {"shellpilot", "opencode", "claude", "claude-legacy", "codex"}
)
_PATTERNS: dict[TemplateSyntax, re.Pattern[str]] = {
    "shellpilot": re.compile(r"\\\$|\\!(?=`)|\$ARGUMENTS|\$(\d+)"),
    "opencode": re.compile(r"\$ARGUMENTS|\$(\d+)"),
    "claude": re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$(\d+)|\$\{(CLAUDE_[A-Za-z0-9_]*)\}"),
    "codex": re.compile(r"\$\$|\$ARGUMENTS|\$([1-9])|\$([A-Z][A-Z0-9_]*)"),
    "gemini": re.compile(r"\{\{args\}\}"),
}
_PATTERNS["claude-legacy"] = _PATTERNS["claude"]
_MONEY_AFTER = re.compile(r",\d{3}(?!\d)|\.\d")
"""After ``$5``: a thousands group or decimals (``$5,000``, ``$1.50``): a price, not an argument."""
_CELL_BEFORE = re.compile(r"(?:^|[^A-Za-z0-9_])\$?[A-Z]{1,3}\Z")
"""Before ``$6``: a spreadsheet column (``$B$6``, ``A$1``): a cell reference, not an argument."""

BASE: dict[TemplateSyntax, int] = {
    "shellpilot": 1,
    "opencode": 1,
    "claude": 0,
    "claude-legacy": 1,
    "codex": 1,
    "gemini": 1,
}
"""The number written for the first argument: ``$0`` (Claude Code) or ``$1`` (the others)."""


@dataclass(frozen=True)
class Placeholder:
    """One placeholder: ``template[start:end]`` is its text.

    ``kind``: ``all`` (``$ARGUMENTS``, ``{{args}}``), ``index`` (argument ``index``, 0-based),
    ``named`` (Claude ``arguments:``, argument ``index``), ``key`` (Codex ``$KEY``, ``name``),
    ``variable`` (``${CLAUDE_*}``, ``name``), ``escape`` (``\\$``: a dollar sign).
    ``where``: in prose, in a code span or fence, or in a shell block's command.
    """

    start: int
    end: int
    kind: PlaceholderKind
    where: Where
    text: str
    index: int = -1
    name: str = ""

    @property
    def takes_arguments(self) -> bool:
        """True for the kinds that consume the arguments (all but variables and escapes)."""
        return self.kind in ("all", "index", "named", "key")


class _Where:
    """``where`` of an index, by bisecting the sorted regions."""

    def __init__(self, regions: Sequence[Region]) -> None:
        self.regions = list(regions)
        self.starts = [r.start for r in self.regions]

    def __call__(self, index: int) -> Where | None:
        at = bisect.bisect_right(self.starts, index) - 1
        if at < 0 or not self.regions[at].contains(index):
            return "text"
        region = self.regions[at]
        if region.kind == "code":
            return "code"
        return "block" if region.inner_contains(index) else None


def _not_meant(template: str, start: int, end: int) -> bool:
    """A ``$N`` that is a price (``$5,000``, Codex's ``$1`` of ``$125``), a cell
    (``$B$6``) or escaped (``\\$1``)."""
    if start > 0 and template[start - 1] == "\\":
        return True
    if end < len(template) and template[end].isdigit():
        return True  # the format reads fewer digits than are written
    if _MONEY_AFTER.match(template, end):
        return True
    return bool(_CELL_BEFORE.search(template, max(0, start - 5), start))


def _named_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    usable = sorted({n for n in names if re.fullmatch(r"[A-Za-z_][\w-]*", n)}, key=len, reverse=True)
    if not usable:
        return None
    return re.compile(r"\$(" + "|".join(re.escape(n) for n in usable) + r")(?![\w-])")


def find(
    template: str,
    syntax: TemplateSyntax,
    regions: Sequence[Region] = (),
    named: Sequence[str] = (),
) -> list[Placeholder]:
    """Every placeholder of ``template`` in document order (``regions`` from ``layout``).

    Rules for the numbered kind, ``$N`` (the others are always placeholders):

    - not one when escaped (``\\$1``), a price (``$5,000``, ``$1.50``) or a cell (``$B$6``);
    - in a code span or fence, only when the template also has a numbered placeholder in
      its prose or a shell block: otherwise the author wrote code (awk ``$1``, SQL ``$1``,
      a regex's ``$1``), and the arguments are appended instead;
    - numbers count up from the first argument (``$1``; ``$0`` in Claude Code), each at
      most one past the previous (one gap allowed); a number that breaks the run
      (``$125`` beside ``$1``, a lone ``$5``) and every higher one are text.

    A Codex ``$KEY`` inside code is filled when given and kept otherwise; only the keys
    used outside code are required (``required_keys``).
    """
    pattern = _PATTERNS.get(syntax)
    if pattern is None:
        return []
    where_of = _Where(regions)
    found: list[Placeholder] = []
    base = BASE[syntax]
    for match in pattern.finditer(template):
        where = where_of(match.start())
        text = match.group(0)
        if where is None or text == "$$":
            continue
        if text in ("\\$", "\\!"):
            if where != "block":
                found.append(Placeholder(match.start(), match.end(), "escape", where, text))
            continue
        if text.startswith("${"):
            found.append(
                Placeholder(match.start(), match.end(), "variable", where, text, name=match.group(3))
            )
            continue
        if text in ("$ARGUMENTS", "{{args}}"):
            if not (syntax in _DOLLAR_FORMATS and match.start() > 0 and template[match.start() - 1] == "\\"):
                found.append(Placeholder(match.start(), match.end(), "all", where, text))
            continue
        if text.startswith("$ARGUMENTS["):
            found.append(Placeholder(match.start(), match.end(), "index", where, text, int(match.group(1))))
            continue
        if syntax == "codex" and match.group(2):
            found.append(Placeholder(match.start(), match.end(), "key", where, text, name=match.group(2)))
            continue
        number = int(text[1:])
        if number < base or _not_meant(template, match.start(), match.end()):
            continue
        found.append(Placeholder(match.start(), match.end(), "index", where, text, number - base, "$N"))
    if syntax in ("claude", "claude-legacy") and named:
        named_re = _named_pattern(named)
        if named_re is not None:
            for match in named_re.finditer(template):
                where = where_of(match.start())
                if where is not None and not (match.start() > 0 and template[match.start() - 1] == "\\"):
                    index = list(named).index(match.group(1))
                    found.append(
                        Placeholder(match.start(), match.end(), "named", where, match.group(0), index)
                    )
            found.sort(key=lambda p: p.start)
    return _meant(found)


def _meant(found: list[Placeholder]) -> list[Placeholder]:
    """Apply the code and run rules to the bare ``$N`` (marked ``name == "$N"``)."""
    bare = [p for p in found if p.name == "$N"]
    outside = any(p.where != "code" for p in bare)
    candidates = [p for p in bare if outside or p.where != "code"]
    accepted: set[int] = set()
    previous = -1
    for index in sorted({p.index for p in candidates}):
        if index > previous + 2:
            break
        accepted.add(index)
        previous = index
    kept: list[Placeholder] = []
    for p in found:
        if p.name != "$N":
            kept.append(p)
        elif p.index in accepted and (outside or p.where != "code"):
            kept.append(Placeholder(p.start, p.end, p.kind, p.where, p.text, p.index))
    return kept


def required_keys(placeholders: Sequence[Placeholder]) -> list[str]:
    """Codex ``$KEY`` names used outside code, in order of first use (all must be given)."""
    keys: list[str] = []
    for p in placeholders:
        if p.kind == "key" and p.where != "code" and p.name not in keys:
            keys.append(p.name)
    return keys


def claude_rules(template: str, regions: Sequence[Region], named: Sequence[str]) -> TemplateSyntax:
    """``claude`` or ``claude-legacy`` for a Claude Code file (command or skill).

    Claude Code 2.1.19 made ``$N`` the 0-based shorthand of ``$ARGUMENTS[N]``; files
    written before numbered from ``$1``. A file that uses ``$0``, ``$ARGUMENTS[N]`` or
    declares ``arguments:`` follows the current rule; one whose numbers start at ``$1``
    (no ``$0``) was written for the old one, where ``$1`` is the first argument.
    """
    if named:
        return "claude"
    found = find(template, "claude", regions)
    numbers = [p for p in found if p.kind == "index"]
    if any(p.text.startswith("$ARGUMENTS[") for p in numbers):
        return "claude"
    bare = [p.index for p in numbers if p.where != "code"]
    if bare and 0 not in bare:
        return "claude-legacy"
    return "claude"
