"""Commands defined inline in ``shellpilot.json`` under ``command``.

Owns: turning ``CommandConfig`` entries into commands and naming the file each came from.
Must not touch: config loading or precedence (config/load.py does that).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.sources.base import Loaded
from shellpilot.config.model import Config


def _origins(sources: Sequence[Path]) -> dict[str, str]:
    """The last config file defining each ``command.<name>`` (later files win)."""
    from shellpilot.config.jsonc import read_jsonc
    from shellpilot.errors import ConfigError

    origins: dict[str, str] = {}
    for path in sources:
        try:
            _, data = read_jsonc(path)
        except ConfigError:  # the loader already validated these; a race is not our concern
            continue
        section = data.get("command") if isinstance(data, dict) else None
        if isinstance(section, dict):
            for name in section:
                origins[name] = str(path)
    return origins


def config_commands(config: Config, sources: Sequence[Path] = ()) -> Loaded:
    """One command per ``config.command`` entry; ``origin`` is the defining file if known."""
    origins = _origins(sources) if sources else {}
    loaded = Loaded()
    for name, entry in config.command.items():
        loaded.commands.append(
            Command(
                name=name,
                description=entry.description,
                agent=entry.agent,
                model=entry.model,
                subtask=entry.subtask,
                template=entry.template,
                hints=hints(entry.template),
                origin=origins.get(name, f"config:command.{name}"),
            )
        )
    return loaded
