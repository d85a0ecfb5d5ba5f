"""YAML frontmatter of markdown command and skill files, read leniently.

Owns: splitting ``---`` frontmatter from the body and the three readings (strict YAML,
the unquoted-colon sanitiser, key by key). Must not touch: what the keys mean.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from shellpilot.command.diagnostics import LoadWarning

if TYPE_CHECKING:
    import yaml


def _yaml() -> ModuleType:
    """PyYAML, imported on first use: simple frontmatter (and cached parses) never need it."""
    import yaml

    return yaml


_INDICATORS = "[]{}&*!|>%@`#,?-"
"""First characters with which a plain YAML value can fail to parse on its own."""
_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$")


class FrontmatterError(Exception):
    """The frontmatter cannot be used at all; ``line`` is 1-based in the file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Parsed:
    """A markdown file's frontmatter data and body (``body_line``: 1-based start)."""

    data: dict[str, Any]
    body: str
    body_line: int = 1
    warnings: list[LoadWarning] = field(default_factory=list)


_CORE_RESOLVERS: tuple[tuple[str, str, str], ...] = (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|(?:0|[1-9][0-9]*)(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
)
"""YAML 1.2 core-schema scalars (what the JavaScript parsers of Claude Code and OpenCode read)."""


@functools.cache
def _loader() -> type:
    """PyYAML's safe loader (C when available) reading plain scalars by YAML 1.2's core schema:
    only ``true``/``false`` are booleans (``yes``, ``no``, ``on``, ``off`` stay words), numbers
    are decimal or ``0x`` (``1:30``, ``010`` and dates stay text as written)."""
    yaml = _yaml()
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    replaced = {f"tag:yaml.org,2002:{kind}" for kind in ("bool", "int", "float", "timestamp")}

    class CoreLoader(base):  # type: ignore[misc,valid-type]
        pass

    CoreLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in entries if tag not in replaced]
        for first, entries in base.yaml_implicit_resolvers.items()
    }
    for kind, pattern, firsts in _CORE_RESOLVERS:
        CoreLoader.add_implicit_resolver(f"tag:yaml.org,2002:{kind}", re.compile(pattern), list(firsts))
    return CoreLoader


def _load(text: str) -> Any:
    return _yaml().load(text, Loader=_loader())  # a SafeLoader: no object construction


def _parses(value: str) -> bool:
    try:
        _load(value)
    except _yaml().YAMLError:
        return False
    return True


def sanitise(text: str) -> str:
    """Rewrite unindented ``key: value`` lines whose value holds a ``:`` as block scalars.

    Values that are empty, ``|``/``>`` or already quoted, comments, blank and indented
    lines are left alone (OpenCode's fallback for ``description: a: b``).
    We also rewrite a value that does not parse on its own, such as Claude's
    ``argument-hint: [pr-number] [priority]``, so it stays a string.
    """
    out: list[str] = []
    for line in text.split("\n"):
        match = _KEY_LINE.match(line)
        value = (match.group(2) or "").strip() if match else ""
        quotable = value and value not in ("|", ">", "|-", ">-") and value[0] not in "\"'"
        if match and quotable and (":" in value or (value[0] in _INDICATORS and not _parses(value))):
            out.append(f"{match.group(1)}: |-")
            out.append(f"  {value}")
        else:
            out.append(line)
    return "\n".join(out)


def _key_by_key(text: str) -> dict[str, Any]:
    """Third reading: each top-level key with its indented lines on its own; a value that
    does not parse stays a string."""
    chunks: list[tuple[str, list[str]]] = []
    for line in text.split("\n"):
        match = _KEY_LINE.match(line)
        if match:
            chunks.append((match.group(1), [line]))
        elif chunks and (line.startswith((" ", "\t", "-")) or not line.strip()):
            chunks[-1][1].append(line)
    data: dict[str, Any] = {}
    for key, lines in chunks:
        try:
            loaded = _load("\n".join(lines))
            data[key] = loaded[key] if isinstance(loaded, dict) and key in loaded else None
        except _yaml().YAMLError:
            first = _KEY_LINE.match(lines[0])
            rest = [(first.group(2) or "") if first else ""] + [ln.strip() for ln in lines[1:]]
            data[key] = "\n".join(x for x in rest if x).strip()
    return data


_BOOLS = {v: v.lower() == "true" for w in ("true", "false") for v in (w, w.capitalize(), w.upper())}
_NULLS = ("null", "Null", "NULL", "~")


def _plain_value(value: str) -> tuple[Any, bool] | None:
    """A simple scalar read without YAML: ``(value, needs_quoting)``, None when unsure."""
    if not value or value in _NULLS:
        return None, False
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return (inner, False) if value[0] not in inner and "\\" not in inner else None
    if value[0] in _INDICATORS or value[0] in "\"'" or value[0].isdigit() or " #" in value:
        return None
    if value in _BOOLS:
        return _BOOLS[value], False
    if value[0] in "+." or value.startswith(("-.", "+.")):
        return None
    return value, (": " in value or value.endswith(":"))


def _fast(raw: str) -> tuple[dict[str, Any], int | None] | None:
    """Frontmatter made only of ``key: simple value`` lines, read without YAML (the common
    case, and the load-time budget). Returns the data and the 1-based file line of the first
    value the strict reading would reject for an unquoted ``: `` (None if none); None when
    anything is not simple, so the YAML readings decide."""
    data: dict[str, Any] = {}
    first_bad: int | None = None
    for index, line in enumerate(raw.split("\n")):
        if not line.strip() or line.startswith("#"):
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            return None
        read = _plain_value((match.group(2) or "").strip())
        if read is None:
            return None
        data[match.group(1)], bad = read
        if bad and first_bad is None:
            first_bad = index + 2  # +1 for 0-based, +1 for the `---` line
    return data, first_bad


def _spaces_for_tabs(text: str) -> str:
    """Each tab of each line's indentation as two spaces (YAML forbids tabs there; the
    JavaScript parsers other agents use read ``\t- Bash`` as a list item)."""
    out: list[str] = []
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        out.append(line[: len(line) - len(body)].replace("\t", "  ") + body)
    return "\n".join(out)


def _error_line(exc: yaml.YAMLError) -> int:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return (mark.line + 2) if mark is not None else 1  # +1 for 0-based, +1 for the `---` line


def parse_markdown(text: str, path: str, *, warn_sanitised: bool = True) -> Parsed:
    """Split and parse a markdown file with optional ``---`` YAML frontmatter.

    The frontmatter opens with a first line ``---`` (trailing blanks allowed) and closes at
    the next line ``---`` or ``...``. Readings in turn: strict YAML (YAML 1.2 scalars, see
    ``_loader``); the sanitiser (``sanitise``); with tabs in indentation, those read as
    spaces; key by key. A lenient
    reading adds a warning naming ``path`` and the line of the YAML error (not for a
    sanitised reading when ``warn_sanitised`` is False: formats whose own parser is
    that lenient, like Claude Code's). Raises
    FrontmatterError when the frontmatter is unterminated, not a mapping, or nothing
    could be read from it.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.split("\n", 1)[0].rstrip() != "---":  # `--- ` opens too, as in gray-matter
        return Parsed({}, text.strip())
    lines = text.split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), -1)
    if end < 0:
        raise FrontmatterError("frontmatter starts with --- but never ends", 1)
    raw = "\n".join(line.rstrip("\r") for line in lines[1:end])
    body = "\n".join(lines[end + 1 :]).strip()
    warnings: list[LoadWarning] = []
    quick = _fast(raw)
    if quick is not None:
        fast, bad_line = quick
        if bad_line is not None and warn_sanitised:
            message = "frontmatter is not valid YAML (mapping values are not allowed here); values quoted"
            warnings.append(LoadWarning(message, path, bad_line))
        return Parsed(fast, body, end + 2, warnings)
    data: Any
    try:
        data = _load(raw)
    except _yaml().YAMLError as exc:
        line = _error_line(exc)
        reason = str(getattr(exc, "problem", None) or "invalid YAML")
        try:
            data = _load(sanitise(raw))
            how = "values quoted"
            warn = warn_sanitised
        except _yaml().YAMLError:
            data = None
        if data is None and "\t" in raw:
            try:
                data = _load(sanitise(_spaces_for_tabs(raw)))
                how = "tab indentation read as spaces (indent with spaces)"
                warn = True
            except _yaml().YAMLError:
                data = None
        if data is None:
            warn = True
            data = _key_by_key(raw)
            how = "read key by key"
            if not data:
                raise FrontmatterError(f"frontmatter is not valid YAML: {reason}", line) from None
        if warn:
            warnings.append(LoadWarning(f"frontmatter is not valid YAML ({reason}); {how}", path, line))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a mapping of keys to values", 2)
    return Parsed({str(k): v for k, v in data.items()}, body, end + 2, warnings)
