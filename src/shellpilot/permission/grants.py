"""The project's "always" grants: allow rules remembered on disk across runs.

Owns: reading and atomically writing one project's grants file. Must not touch: rule
evaluation (a grant is an ordinary allow rule there) or any other file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from shellpilot.errors import ConfigError, StorageError
from shellpilot.permission.rules import Rule

FORMAT_VERSION = 1


def grants_path(data_dir: Path, project_dir: Path) -> Path:
    """Where a project's grants live: ``<data>/grants/<sha256(project)[:16]>.json``."""
    digest = hashlib.sha256(str(project_dir.resolve()).encode()).hexdigest()[:16]
    return data_dir / "grants" / f"{digest}.json"


def read_grants(path: Path) -> list[Rule]:
    """The grants stored in ``path`` (``[]`` when it does not exist).

    File shape: ``{"version": 1, "project": str, "updated": ms, "grants": [{"permission",
    "pattern"}]}``. Raises ConfigError naming the file and line when it is not valid (not
    UTF-8, not JSON, nested too deep, another shape), so the user can fix or delete it;
    StorageError when it cannot be read.
    """
    from shellpilot.config.jsonc import decode_utf8

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"cannot read permission grants: {exc.strerror}", path=str(path)) from exc
    text = decode_utf8(raw, path=str(path), what="the grants file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"grants file is not valid JSON ({exc.msg}, column {exc.colno}); fix or delete it",
            path=str(path),
            line=exc.lineno,
        ) from None
    except RecursionError:
        raise ConfigError("grants file is nested too deeply to be ours; delete it", path=str(path)) from None
    entries = data.get("grants") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ConfigError('grants file must be {"version": 1, "grants": [...]}', path=str(path))
    rules: list[Rule] = []
    for entry in entries:
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("permission"), str)
            and isinstance(entry.get("pattern"), str)
        ):
            raise ConfigError(f"bad grant entry {entry!r}; expected permission and pattern", path=str(path))
        rules.append(Rule(entry["permission"], entry["pattern"], "allow", "grant"))
    return rules


def set_aside(path: Path, error: ConfigError) -> str:
    """Move a broken grants file out of the way (``<name>.broken-<UTC time>``, never deleted
    or overwritten) and return the warning to show: what was wrong, where the file went, and
    what to do. StorageError when it cannot be moved (then nothing would be safe to write)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    try:
        os.replace(path, aside)
    except OSError as exc:
        raise StorageError(
            f"the permission grants file is broken ({error.reason}) and cannot be moved aside: "
            f"{exc.strerror}; delete it",
            path=str(path),
        ) from exc
    where = f"{path}:{error.line}" if error.line is not None else str(path)
    return (
        f"{where}: {error.reason}. Moved it to {aside} and started with no remembered "
        '"always" answers; fix that file and move it back, or delete it.'
    )


def write_grants(path: Path, rules: Iterable[Rule], project_dir: Path | None = None) -> None:
    """Replace ``path`` with ``rules`` atomically (temp file in the same dir, fsync, rename)."""
    now = int(time.time() * 1000)
    body = {
        "version": FORMAT_VERSION,
        "project": str(project_dir) if project_dir else None,
        "updated": now,
        "grants": [{"permission": r.permission, "pattern": r.pattern} for r in rules],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".grants-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(body, handle, indent=2)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise StorageError(f"cannot write permission grants: {exc.strerror}", path=str(path)) from exc


class GrantStore:
    """One project's grants: loaded at construction, written through on every ``add``.

    ``add`` re-reads the file before writing, so two processes granting at once both
    keep their grants (the last writer's file holds the union it saw). A broken file (not
    UTF-8, not JSON, another shape) is never read as empty and overwritten: it is moved
    aside (``set_aside``) and the store starts empty; ``warnings`` holds what to tell the user.
    """

    def __init__(self, path: Path, project_dir: Path | None = None) -> None:
        self.path = path
        self._project_dir = project_dir
        self.warnings: list[str] = []
        self._rules = self._read()

    def _read(self) -> list[Rule]:
        try:
            return read_grants(self.path)
        except ConfigError as exc:
            self.warnings.append(set_aside(self.path, exc))
            return []

    def rules(self) -> list[Rule]:
        """The current grants, as ``allow`` rules with source ``grant``."""
        return list(self._rules)

    def add(self, permission: str, patterns: Iterable[str]) -> list[Rule]:
        """Grant ``patterns`` for ``permission``; persist; return the rules that were new."""
        wanted = [Rule(permission, p, "allow", "grant") for p in dict.fromkeys(patterns)]
        current = self._read()
        merged = list(dict.fromkeys([*current, *self._rules]))
        fresh = [rule for rule in wanted if rule not in merged]
        if fresh:
            write_grants(self.path, [*merged, *fresh], self._project_dir)
        self._rules = [*merged, *fresh]
        return fresh
