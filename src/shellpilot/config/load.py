"""Find, parse (JSON with comments) and merge config files; later files win.

Owns: config precedence. Order: user config dir ``shellpilot.json``, ``shellpilot.jsonc``;
then the project's ``shellpilot.json(c)``; then ``<project>/.shellpilot/shellpilot.json(c)``.
Objects merge key by key (deep); any other value is replaced. Project files are trusted only
when the project is (see config/trust.py); from an untrusted one, keys that could run code or
loosen prompts are dropped and listed in ``LoadedConfig.ignored``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shellpilot.config.model import Config
from shellpilot.config.trust import env_trusts, listed_as_trusted, strip_untrusted
from shellpilot.errors import ConfigError
from shellpilot.paths import config_dir as default_config_dir

CONFIG_NAMES = ("shellpilot.json", "shellpilot.jsonc")


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config plus the files it came from (in precedence order).

    ``trusted``: whether the project's own config files were applied whole (always True
    without a project). ``ignored``: each key dropped from an untrusted project file, as
    ``"mcp.evil (/repo/.shellpilot/shellpilot.json)"``; empty when nothing was dropped.
    """

    config: Config
    sources: list[Path] = field(default_factory=list)
    project_dir: Path | None = None
    config_dir: Path | None = None
    trusted: bool = True
    ignored: list[str] = field(default_factory=list)

    @property
    def user_config_file(self) -> Path | None:
        """The user config file that holds ``trusted_projects`` (an existing one, else the
        ``shellpilot.json`` to create); None when no config dir is known."""
        if self.config_dir is None:
            return None
        for name in reversed(CONFIG_NAMES):
            if (self.config_dir / name).is_file():
                return self.config_dir / name
        return self.config_dir / CONFIG_NAMES[0]


def _strip_jsonc(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments and trailing commas, keeping line numbers."""
    out: list[str] = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_str = False
            i += 1
            continue
        if ch == '"':
            in_str = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # trailing comma
            else:
                out.append(ch)
                i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_jsonc(text: str, *, path: str | None = None) -> Any:
    """Parse JSON that may hold comments and trailing commas.

    Raises ConfigError with ``path`` and the 1-based ``line`` of the syntax error.
    """
    try:
        return json.loads(_strip_jsonc(text))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"invalid JSON: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno
        ) from None


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def config_files(project_dir: Path | None, user_dir: Path) -> list[Path]:
    """Existing config files in precedence order (earliest = weakest)."""
    candidates = [user_dir / name for name in CONFIG_NAMES]
    if project_dir is not None:
        candidates += [project_dir / name for name in CONFIG_NAMES]
        candidates += [project_dir / ".shellpilot" / name for name in CONFIG_NAMES]
    return [p for p in candidates if p.is_file()]


def _line_of(text: str, loc: tuple[int | str, ...]) -> int | None:
    """1-based line of the key path ``loc`` in JSON ``text`` (each key searched after its parent)."""
    pos, found = 0, False
    for key in loc:
        if not isinstance(key, str):
            continue
        at = text.find(f'"{key}"', pos)
        if at < 0:
            break
        pos, found = at, True
    return text.count("\n", 0, pos) + 1 if found else None


def validate_config(data: Any, *, path: str | None = None, text: str | None = None) -> Config:
    """Validate config data; errors name the offending key path (and its line, given ``text``).

    Raises ConfigError(path, line) with a message like ``shell.timeout_ms: Input should be
    greater than 0``.
    """
    if not isinstance(data, dict):
        raise ConfigError("the config must be a JSON object", path=path)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        # the deepest location is the most specific one when a union tried several shapes
        first = max(exc.errors(), key=lambda e: len(e["loc"]))
        # pydantic names union members in the location (e.g. "str", "function-after[...]")
        loc = tuple(p for p in first["loc"] if not (isinstance(p, str) and ("[" in p or p in _TYPES)))
        where = ".".join(str(p) for p in loc) or "<root>"
        line = _line_of(text, loc) if text is not None else None
        raise ConfigError(f"{where}: {first['msg']}", path=path, line=line) from None


_TYPES = {"str", "dict", "list", "int", "literal", "function-after", "function-before"}


def load_config(
    project_dir: str | Path | None = None,
    *,
    config_dir: str | Path | None = None,
    inline: dict[str, Any] | None = None,
    trust: bool = False,
    env: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Load and merge every config file for ``project_dir``; ``inline`` overrides all.

    User files (``config_dir``) are always applied. Project files are applied whole only
    when the project is trusted: ``trust=True`` (the CLI's ``--trust``),
    ``SHELLPILOT_TRUST_PROJECT=1`` in ``env`` (default ``os.environ``), or the resolved
    project path listed in the user files' ``trusted_projects``. Otherwise the keys named by
    ``config.trust.strip_untrusted`` are dropped and listed in ``ignored`` (as VS Code's
    workspace trust or ``direnv allow`` do).

    Raises ConfigError (path, line) for unreadable files, bad JSON or invalid values.
    """
    user_dir = default_config_dir(config_dir)
    project = Path(project_dir).resolve() if project_dir is not None else None
    environ = os.environ if env is None else env
    merged: dict[str, Any] = {}
    files = config_files(project, user_dir)
    user_files = {user_dir / name for name in CONFIG_NAMES}
    trusted: bool | None = None if project is not None and not trust and not env_trusts(environ) else True
    ignored: list[str] = []
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read: {exc.strerror}", path=str(file)) from None
        data = parse_jsonc(text, path=str(file))
        if not isinstance(data, dict):
            raise ConfigError("the config must be a JSON object", path=str(file))
        validate_config(data, path=str(file), text=text)  # errors point at the file and line
        if file not in user_files:
            if trusted is None:  # decided once, from the user files merged so far
                assert project is not None
                trusted = listed_as_trusted(project, merged.get("trusted_projects"))
            if not trusted:
                data, dropped = strip_untrusted(data)
                ignored += [f"{key} ({file})" for key in dropped]
        merged = _deep_merge(merged, data)
    if inline:
        merged = _deep_merge(merged, inline)
    config = validate_config(merged, path=str(files[-1]) if files and not inline else None)
    if trusted is None:  # no project file was read: decide from the user files alone
        assert project is not None
        trusted = listed_as_trusted(project, merged.get("trusted_projects"))
    return LoadedConfig(
        config=config,
        sources=files,
        project_dir=project,
        config_dir=user_dir,
        trusted=trusted,
        ignored=ignored,
    )
