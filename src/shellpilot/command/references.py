"""``@path`` references in an expanded prompt: files, directories and agents.

Owns: finding references and resolving them in document order. Must not touch: the
template pass (substitution.py) or shell blocks; it reads the file system, and reaches
permission only through the ``ask`` it is given (outside paths).
"""

from __future__ import annotations

import mimetypes
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from shellpilot.errors import PermissionCorrected, PermissionDenied, PermissionRejected
from shellpilot.permission.request import Ask, AskRequest

# `@` not after a word character or a backtick (so e-mail addresses don't match), then
# `"path with spaces"`, Gemini's `{path}`, or a bare run up to whitespace/backtick.
_REFERENCE = re.compile(r"""(?<![\w`])@(?:"([^"\n]+)"|\{([^{}\n]+)\}|([^\s`]+))""")
_TRAILING = ",.;:!?)]}\"'"
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
LISTING_LIMIT = 200
"""Most entries shown in a directory listing (the rest are counted)."""


@dataclass(frozen=True)
class FileReference:
    """A referenced file or directory (an ``@path`` in a template).

    ``name`` is the reference as written; ``path`` is absolute; ``mime`` is guessed from
    the extension (``application/x-directory`` for directories); ``listing`` holds the
    directory's entries, one per line, sub-directories ending in ``/``.
    """

    name: str
    path: Path
    kind: Literal["file", "directory"]
    mime: str
    listing: str | None = None


@dataclass(frozen=True)
class References:
    """What the references of one text resolved to, in document order."""

    files: list[FileReference] = field(default_factory=list)
    agents: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def find_references(text: str, exclude: Sequence[tuple[int, int]] = ()) -> list[str]:
    """Distinct reference names in document order, outside code spans and ``exclude`` ranges.

    A bare reference loses trailing ``, . ; : ! ? ) ] } " '`` (so
    ``(@paren)`` is ``paren``). ``exclude`` lists ``(start, end)`` spans of ``text`` that
    are data, not prose (shell block output).
    """
    skip = [(m.start(), m.end()) for m in _CODE.finditer(text)] + list(exclude)
    names: list[str] = []
    for match in _REFERENCE.finditer(text):
        if any(start <= match.start() < end for start, end in skip):
            continue
        name = match.group(1) or match.group(2)
        if name is None:
            name = match.group(3).rstrip(_TRAILING)
        name = name.strip()
        if name and name not in names:
            names.append(name)
    return names


def _listing(path: Path) -> str:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as exc:
        return f"(cannot list: {exc.strerror})"
    lines = [e.name + ("/" if e.is_dir() else "") for e in entries[:LISTING_LIMIT]]
    if len(entries) > LISTING_LIMIT:
        lines.append(f"... ({len(entries) - LISTING_LIMIT} more entries)")
    return "\n".join(lines)


def resolve_path(name: str, project_dir: Path, home: Path | None = None) -> Path:
    """Where a reference points: ``~/x`` under ``home``, absolute as is, else project-relative."""
    if name == "~" or name.startswith("~/"):
        base = home if home is not None else Path.home()
        return base / name[2:]
    path = Path(name)
    return path if path.is_absolute() else project_dir / path


def _outside_glob(resolved: Path, is_dir: bool) -> str:
    """The ``dir/*`` glob an outside reference asks ``external_directory`` for."""
    folder = resolved if is_dir else resolved.parent
    return f"{str(folder).rstrip('/')}/*"


async def resolve_references(
    text: str,
    *,
    project_dir: Path,
    ask: Ask | None = None,
    agents: Collection[str] = (),
    home: Path | None = None,
    exclude: Sequence[tuple[int, int]] = (),
    inside_project_only: bool = False,
    origin: str = "",
    own_dirs: Sequence[Path] = (),
) -> References:
    """Resolve each distinct ``@name`` of ``text`` once, in document order.

    An existing file becomes a ``FileReference`` (kind ``file``), a directory one of kind
    ``directory`` with a listing, else an agent name an agent reference; anything else
    stays text and yields a warning (OpenCode ignores it silently).
    A path that resolves (symlinks followed) outside ``project_dir`` is read only after
    ``ask(AskRequest("external_directory", ["<dir>/*"], ...))`` allows it, like a shell block that
    touches that directory; denied or rejected (or no ``ask`` given), it stays text with
    a warning saying why and expansion goes on. Each glob is asked once per text.
    ``inside_project_only`` refuses outside paths without asking (text a remote MCP
    server wrote). A path that resolves inside one of ``own_dirs`` (a trusted command's
    own folder: ``@${CLAUDE_SKILL_DIR}/reference.md``) is read without asking.
    """
    result = References()
    project = project_dir.resolve()
    owned = [d.resolve() for d in own_dirs]
    decided: dict[str, str | None] = {}
    for name in find_references(text, exclude):
        path = resolve_path(name, project_dir, home)
        try:
            resolved = path.resolve()
            is_dir, is_file = resolved.is_dir(), resolved.is_file()
        except (OSError, ValueError):
            is_dir = is_file = False
            resolved = path
        inside = resolved.is_relative_to(project) or any(resolved.is_relative_to(d) for d in owned)
        if (is_dir or is_file) and not inside:
            refusal = "refused for text an MCP server wrote" if inside_project_only else None
            if refusal is None:
                glob = _outside_glob(resolved, is_dir)
                if glob not in decided:
                    decided[glob] = await _ask_outside(ask, glob, name, resolved, origin)
                refusal = decided[glob]
            if refusal is not None:
                result.warnings.append(f"@{name}: outside the project ({resolved}), not attached: {refusal}")
                continue
        if is_file:
            mime = mimetypes.guess_type(resolved.name)[0] or "text/plain"
            result.files.append(FileReference(name, resolved, "file", mime))
        elif is_dir:
            result.files.append(
                FileReference(name, resolved, "directory", "application/x-directory", _listing(resolved))
            )
        elif name in agents:
            result.agents.append(name)
        else:
            result.warnings.append(f"@{name}: no such file, directory or agent; left as text")
    return result


async def _ask_outside(ask: Ask | None, glob: str, name: str, resolved: Path, origin: str) -> str | None:
    """None when reading under ``glob`` is allowed, else why not (for the warning)."""
    if ask is None:
        return "no permission asker"
    where = f" in {origin}" if origin else ""
    meta = {"command": f"@{name}", "path": str(resolved), "description": f"file reference{where}"}
    try:
        await ask(AskRequest("external_directory", [glob], [glob], meta))
    except PermissionDenied:
        return f'external_directory denied by rule for "{glob}"'
    except PermissionRejected as exc:
        return f"external_directory {rejection_reason(exc)}"
    return None


def rejection_reason(exc: PermissionRejected) -> str:
    """How a rejection reads in a warning: the asker's own reason when it gave one
    (``not allowed without a terminal ...``), else ``rejected by the user``."""
    if isinstance(exc, PermissionCorrected):
        return f"rejected by the user: {exc.feedback}"
    default = PermissionRejected().message
    return "rejected by the user" if exc.message == default else exc.message
