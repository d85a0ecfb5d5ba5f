"""Find, parse (JSON with comments) and merge config files; later files win.

Owns: config precedence. Order: user config dir ``shellpilot.json``, ``shellpilot.jsonc``;
then the project's ``shellpilot.json(c)``; then ``<project>/.shellpilot/shellpilot.json(c)``.
Objects merge key by key (deep); any other value is replaced, except permission rules: a
project file's ``permission`` and ``agent.<name>.permission`` are kept apart
(``Config.project_rules``) and may only tighten the user's. Project files are trusted only
when the project is (see config/trust.py); from an untrusted one, keys that could run code or
loosen prompts are dropped and listed in ``LoadedConfig.ignored``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shellpilot.config.jsonc import read_jsonc
from shellpilot.config.model import Config, ProjectRules
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


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _take_rules(data: dict[str, Any], permission: list[Any], agents: dict[str, list[Any]]) -> dict[str, Any]:
    """``data`` (one project file, already validated) without its permission rules, which
    are appended to ``permission`` and ``agents[name]`` instead: project rules are kept
    apart so that they can only tighten the user's (``ProjectRules``). Pure on ``data``."""
    out = dict(data)
    if out.get("permission") is not None:
        permission.append(out.pop("permission"))
    out.pop("permission", None)
    section = out.get("agent")
    if isinstance(section, dict):
        kept: dict[str, Any] = {}
        for name, entry in section.items():
            if isinstance(entry, dict) and "permission" in entry:
                entry = {k: v for k, v in entry.items() if k != "permission"}
                if data["agent"][name]["permission"] is not None:
                    agents.setdefault(name, []).append(data["agent"][name]["permission"])
            kept[name] = entry
        out["agent"] = kept
    return out


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

    Raises ConfigError (path, line) for unreadable files, text that is not UTF-8, bad JSON
    (or nested over ``jsonc.MAX_DEPTH`` levels) or invalid values.
    """
    user_dir = default_config_dir(config_dir)
    project = Path(project_dir).resolve() if project_dir is not None else None
    environ = os.environ if env is None else env
    merged: dict[str, Any] = {}
    files = config_files(project, user_dir)
    user_files = {user_dir / name for name in CONFIG_NAMES}
    trusted: bool | None = None if project is not None and not trust and not env_trusts(environ) else True
    ignored: list[str] = []
    project_permission: list[Any] = []
    project_agents: dict[str, list[Any]] = {}
    for file in files:
        text, data = read_jsonc(file)
        if not isinstance(data, dict):
            raise ConfigError("the config must be a JSON object", path=str(file))
        validate_config(data, path=str(file), text=text)  # errors point at the file and line
        if file not in user_files:
            if trusted is None:  # decided once, from the user files merged so far
                assert project is not None
                trusted = listed_as_trusted(project, merged.get("trusted_projects"))
            if not trusted:
                data, dropped = strip_untrusted(data, merged)
                ignored += [f"{key} ({file})" for key in dropped]
            data = _take_rules(data, project_permission, project_agents)
        merged = _deep_merge(merged, data)
    if inline:
        merged = _deep_merge(merged, inline)
    config = validate_config(merged, path=str(files[-1]) if files and not inline else None)
    if project_permission or project_agents:
        layers = ProjectRules(
            permission=tuple(project_permission),
            agent={name: tuple(values) for name, values in project_agents.items()},
        )
        config = config.with_project_rules(layers)
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
