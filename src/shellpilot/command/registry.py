"""All slash commands of one project, by name, with precedence and collision warnings.

Owns: which source wins a name, the qualified names (``<server>:<prompt>``,
``skill:<name>``, aliases) and lookup. Must not touch: expansion or file formats.

Precedence (later wins): builtins < the user's files of other agents (``~/.gemini/commands``
< ``~/.claude/commands`` < ``~/.codex/prompts`` < ``~/.config/opencode/command(s)``) <
shellpilot's user config dir ``command(s)/`` < config ``command`` entries < project
``.gemini/commands`` < ``.claude/commands`` < ``.opencode/command(s)`` <
``.shellpilot/command(s)`` < MCP prompts. Skills and aliases only take free names, except
that a Claude Code skill wins over a Claude Code command of the same name (as in Claude Code).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from shellpilot.command.cache import gc_paused
from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.model import Command, PromptFetcher
from shellpilot.command.sources import (
    Loaded,
    builtin_commands,
    config_commands,
    load_gemini_dir,
    load_markdown_dir,
)
from shellpilot.command.sources.base import FileReader, read_each
from shellpilot.command.sources.codex import codex_prompts_dir, load_codex_dir
from shellpilot.command.sources.skill import skill_command
from shellpilot.config.load import LoadedConfig
from shellpilot.config.model import Config
from shellpilot.errors import CommandNotFound
from shellpilot.skill.discovery import discover_skills, outside_project, skill_dirs

if TYPE_CHECKING:
    from shellpilot.command.cache import ParseCache
    from shellpilot.mcp.manager import McpManager, McpPrompt

CLAUDE_SYNTAXES = ("claude", "claude-legacy")


def _env_dir(env: Mapping[str, str], name: str, default: Path) -> Path:
    """The folder ``env[name]`` names when set and not blank, else ``default``."""
    value = env.get(name, "").strip()
    return Path(value) if value else default


def _user_sources(home: Path, env: Mapping[str, str]) -> list[tuple[Path, str]]:
    """The user's command folders of other agents, weakest first, with their format.

    Each agent's own overrides apply: ``$GEMINI_CLI_HOME`` replaces the home of
    ``.gemini``, ``$CLAUDE_CONFIG_DIR`` replaces ``~/.claude``, ``$CODEX_HOME`` replaces
    ``~/.codex``; OpenCode reads ``$XDG_CONFIG_HOME/opencode`` (default ``~/.config``),
    ``~/.opencode`` and ``$OPENCODE_CONFIG_DIR``, in that order."""
    gemini = _env_dir(env, "GEMINI_CLI_HOME", home) / ".gemini" / "commands"
    dirs: list[tuple[Path, str]] = [(gemini, "gemini")]
    dirs.append((_env_dir(env, "CLAUDE_CONFIG_DIR", home / ".claude") / "commands", "claude"))
    dirs.append((codex_prompts_dir(home, env), "codex"))
    opencode = [_env_dir(env, "XDG_CONFIG_HOME", home / ".config") / "opencode", home / ".opencode"]
    if env.get("OPENCODE_CONFIG_DIR", "").strip():
        opencode.append(Path(env["OPENCODE_CONFIG_DIR"].strip()))
    seen: set[Path] = set()
    for folder in opencode:
        if folder not in seen:
            seen.add(folder)
            dirs += [(folder / d, "opencode") for d in ("command", "commands")]
    return dirs


def _file_sources(project: Path) -> list[tuple[Path, str]]:
    """Command directories after the config entries, weakest first, with their format."""
    dirs: list[tuple[Path, str]] = [(project / ".gemini" / "commands", "gemini")]
    dirs.append((project / ".claude" / "commands", "claude"))
    dirs += [(project / ".opencode" / d, "opencode") for d in ("command", "commands")]
    dirs += [(project / ".shellpilot" / d, "shellpilot") for d in ("command", "commands")]
    return dirs


def _load_dir(path: Path, flavour: str, trusted: bool, read: FileReader = read_each) -> Loaded:
    """One command directory; its files read by ``read`` (a parse cache's, or ``read_each``)."""
    if flavour == "gemini":
        return load_gemini_dir(path, trusted=trusted, read=read)
    if flavour == "codex":
        return load_codex_dir(path, read=read)
    if flavour == "claude":
        return load_markdown_dir(path, "claude", trusted=trusted, read=read)
    if flavour == "opencode":
        return load_markdown_dir(path, "opencode", trusted=trusted, read=read)
    return load_markdown_dir(path, "shellpilot", trusted=trusted, read=read)


def _file_leaf(path: str | None) -> str | None:
    """The last part of the name a command file would give: ``git/commit.md`` -> ``commit``,
    ``deploy/SKILL.md`` -> ``deploy``; None without a path."""
    if path is None:
        return None
    file = Path(path)
    return file.parent.name if file.name == "SKILL.md" else file.name.split(".", 1)[0]


def _skill_beats_command(skill: Command, command: Command) -> bool:
    """Claude Code's rule: its skill wins over its command file of the same name."""
    return (
        skill.source == "skill"
        and skill.syntax in CLAUDE_SYNTAXES
        and command.source == "command"
        and command.syntax in CLAUDE_SYNTAXES
    )


class CommandRegistry:
    """Commands of one project, loaded once and cached.

    ``config`` may be a ``Config`` or a ``LoadedConfig`` (whose file list lets config
    entries name the file they came from, and whose ``trusted`` says whether the
    project's own files are; with a bare ``Config`` they are not, unless ``trusted``).
    ``config_dir`` is the user config dir (None: no shellpilot user commands or skills).
    ``home`` is where the user's files of other agents live (default ``$HOME``; ``env``
    supplies ``CODEX_HOME``, default ``os.environ``). ``mcp`` is a manager to list prompts from;
    when None and ``config.mcp`` has enabled servers, the registry makes and owns one
    (close it with ``aclose()`` or ``async with``). ``get``/``list`` are async because
    MCP servers start on first use; ``load_files`` is the synchronous file-only part.
    ``cache`` keeps each command file's parse between processes (``ParseCache``; None:
    every file is read and parsed).
    """

    def __init__(
        self,
        project_dir: str | Path,
        config: Config | LoadedConfig,
        *,
        config_dir: str | Path | None = None,
        mcp: McpManager | None = None,
        home: str | Path | None = None,
        env: Mapping[str, str] | None = None,
        trusted: bool | None = None,
        cache: ParseCache | None = None,
    ) -> None:
        self.project_dir = Path(project_dir).resolve()
        if isinstance(config, LoadedConfig):
            self.config, self._sources = config.config, list(config.sources)
            config_dir = config_dir if config_dir is not None else config.config_dir
            self.trusted = config.trusted if trusted is None else trusted
        else:
            self.config, self._sources = config, []
            self.trusted = bool(trusted)
        self.config_dir = Path(config_dir) if config_dir is not None else None
        self.home = Path(home) if home is not None else Path.home()
        self._env = env if env is not None else os.environ
        self._owns_mcp = mcp is None and any(c.enabled for c in self.config.mcp.values())
        if self._owns_mcp:
            from shellpilot.mcp.manager import McpManager  # only a project with MCP servers pays for it

            mcp = McpManager(self.config.mcp, cwd=self.project_dir)
        self._mcp = mcp
        self._names: dict[str, Command] | None = None
        self._qualified: dict[str, Command] = {}
        self._files: tuple[list[Loaded], list[Command], list[LoadWarning]] | None = None
        self._file_warnings: list[LoadWarning] = []
        self._mcp_loaded = False
        self._cache = cache

    # -- loading -----------------------------------------------------------------------

    def _claim(self, names: dict[str, Command], command: Command, *, override: bool = True) -> None:
        old = names.get(command.name)
        if old is None:
            names[command.name] = command
            return
        if not override and _skill_beats_command(command, old):
            self._file_warnings.append(
                LoadWarning(
                    f'skill "{command.name}" from {command.origin} overrides the command in {old.origin} '
                    "(in Claude Code a skill wins over a command of the same name)"
                )
            )
            names[command.name] = command
        elif override:
            self._file_warnings.append(
                LoadWarning(f'command "{command.name}" from {command.origin} overrides {old.origin}')
            )
            names[command.name] = command
        else:
            self._file_warnings.append(
                LoadWarning(
                    f'{command.source} "{command.name}" from {command.origin} is shadowed by {old.origin}'
                    + (f"; use /{self._qualified_name(command)}" if self._qualified_name(command) else "")
                )
            )

    @staticmethod
    def _qualified_name(command: Command) -> str | None:
        if command.source == "skill":
            return f"skill:{command.name}"
        if command.source == "mcp":
            return f"{command.origin.removeprefix('mcp:')}:{command.name}"
        return None

    def _read_files(self) -> tuple[list[Loaded], list[Command], list[LoadWarning]]:
        """Every file-backed source, weakest first, plus the skills (read once, cached)."""
        if self._files is None:
            with gc_paused():  # thousands of files: see gc_paused
                self._files = self._read_all()
            if self._cache is not None:
                self._cache.save()
        return self._files

    def _read_all(self) -> tuple[list[Loaded], list[Command], list[LoadWarning]]:
        """Every file-backed source, weakest first, plus the skills."""
        read: FileReader = self._cache.read if self._cache is not None else read_each
        layers: list[Loaded] = [Loaded(commands=builtin_commands(self.project_dir))]
        layers += [
            _load_dir(path, flavour, True, read) for path, flavour in _user_sources(self.home, self._env)
        ]
        if self.config_dir is not None:
            for d in ("command", "commands"):
                layers.append(_load_dir(self.config_dir / d, "shellpilot", True, read))
        layers.append(config_commands(self.config, self._sources))
        for path, flavour in _file_sources(self.project_dir):
            # an untrusted project's folder reached through a link out of it holds no
            # command of the project's own (`.claude/commands -> /elsewhere`)
            problem = None if self.trusted else outside_project(path, self.project_dir)
            if problem is not None and path.exists():
                layers.append(Loaded(warnings=[problem]))
                continue
            layers.append(_load_dir(path, flavour, self.trusted, read))
        roots = skill_dirs(self.project_dir, self.config_dir, self.home, confine=not self.trusted)
        skills, skill_warnings = discover_skills(roots)
        commands: list[Command] = []
        for skill in skills:
            command, warnings = skill_command(skill, project_trusted=self.trusted)
            commands.append(command)
            skill_warnings += warnings
        return layers, commands, skill_warnings

    def _build(self, prompts: list[McpPrompt]) -> dict[str, Command]:
        layers, skills, skill_warnings = self._read_files()
        self._file_warnings = []
        names: dict[str, Command] = {}
        qualified: dict[str, Command] = {}
        for layer in layers:
            self._file_warnings.extend(layer.warnings)
            for command in layer.commands:
                self._claim(names, command)
        for prompt in prompts:
            command = self._mcp_command(prompt)
            qualified[f"{prompt.server}:{prompt.name}"] = command
            self._claim(names, command)
        self._file_warnings.extend(skill_warnings)
        for command in skills:
            qualified[f"skill:{command.name}"] = command
            self._claim(names, command, override=False)
        for command in list(names.values()):
            for alias in command.aliases:
                if alias not in names and alias not in qualified:
                    qualified[alias] = command
        self._names, self._qualified = names, qualified
        return names

    def load_files(self) -> dict[str, Command]:
        """Builtins, config entries, command files and skills, without MCP prompts (sync)."""
        if self._names is None:
            self._build([])
        assert self._names is not None
        return self._names

    def _mcp_command(self, prompt: McpPrompt) -> Command:
        from shellpilot.mcp.manager import bind_arguments

        manager = self._mcp
        assert manager is not None
        specs = prompt.arguments

        async def fetch(raw: str) -> str:
            bound = bind_arguments(prompt.name, specs, raw)
            return await manager.get_prompt(prompt.server, prompt.name, bound)

        fetcher: PromptFetcher = fetch
        return Command(
            name=prompt.name,
            description=prompt.description,
            source="mcp",
            template=fetcher,
            hints=[f"${i}" for i in range(1, len(specs) + 1)],
            origin=f"mcp:{prompt.server}",
            arguments=list(specs),
        )

    async def load(self) -> dict[str, Command]:
        """Everything, MCP prompts included (servers start here, once per load)."""
        if self._mcp is not None and self._mcp.configured and not self._mcp_loaded:
            self._mcp_loaded = True
            return self._build(await self._mcp.prompts())
        return self.load_files()

    # -- queries -----------------------------------------------------------------------

    @property
    def warnings(self) -> list[LoadWarning]:
        """Load warnings so far: broken files, collisions, servers that failed."""
        extra = list(self._mcp.warnings) if self._mcp is not None else []
        return self._file_warnings + extra

    @property
    def has_servers(self) -> bool:
        """True when MCP servers are configured: ``list``/``get`` start them (so need a loop);
        without them ``list_files`` gives what ``list`` would."""
        return self._mcp is not None and self._mcp.configured

    def list_files(self) -> list[Command]:
        """``list`` without MCP prompts, synchronously (no event loop to start)."""
        return self._listing(self.load_files())

    def _listing(self, names: dict[str, Command]) -> list[Command]:
        result = dict(names)
        for qualified, command in self._qualified.items():
            if command.source in ("mcp", "skill") and names.get(command.name) is not command:
                result[qualified] = dataclasses.replace(command, name=qualified)
        return [result[n] for n in sorted(result)]

    async def list(self) -> list[Command]:
        """Reachable commands sorted by name: each short name, plus the qualified names
        (``server:prompt``, ``skill:name``) of prompts and skills whose short name is taken."""
        return self._listing(await self.load())

    async def get(self, name: str) -> Command:
        """The command called ``name`` (a leading ``/`` is ignored).

        Short names first, then ``<server>:<prompt>``, ``skill:<name>`` and aliases.
        Raises CommandNotFound with up to three close matches.
        """
        names = await self.load()
        key = name.removeprefix("/")
        found = names.get(key) or self._qualified.get(key)
        if found is not None:
            return found
        candidates = list(names) + list(self._qualified)
        leaf = key.replace(":", "/").rsplit("/", 1)[-1]
        skipped = [
            str(w) for w in self.warnings if w.message.startswith("skipped") and _file_leaf(w.path) == leaf
        ]
        raise CommandNotFound(key, difflib.get_close_matches(key, candidates, n=3, cutoff=0.5), skipped)

    def reload(self) -> None:
        """Forget what was loaded; the next query reads files (and MCP prompts) again."""
        self._names = None
        self._files = None
        self._qualified = {}
        self._mcp_loaded = False

    async def aclose(self) -> None:
        """Stop the MCP servers this registry started (not a manager passed in)."""
        if self._owns_mcp and self._mcp is not None:
            await self._mcp.aclose()

    async def __aenter__(self) -> CommandRegistry:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
