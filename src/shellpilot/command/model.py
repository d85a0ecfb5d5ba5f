"""The slash-command data model: what a command is, wherever it was found.

Owns: ``Command``, its source/syntax literals and MCP prompt argument specs.
Must not touch: files, servers or expansion (see sources/, registry.py, template.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

CommandSource = Literal["command", "mcp", "skill"]
"""Where a command came from: a command file or config, an MCP prompt, a skill."""

TemplateSyntax = Literal["shellpilot", "opencode", "claude", "claude-legacy", "gemini", "codex"]
"""The rules a template is expanded with: those of the agent its file was written for.

``shellpilot`` and ``opencode``: ``$1..$N`` (the highest takes the rest, a missing one is
empty), ``$ARGUMENTS``, `` !`cmd` ``; ``shellpilot`` adds ```` ```! ```` fences and ``\\$``.
``claude``: ``$0`` is the first argument, ``$ARGUMENTS[N]``, named ``arguments:``, a missing
one kept as written, ``ARGUMENTS: ...`` appended when nothing takes the arguments.
``claude-legacy``: the same, but ``$1`` is the first argument (files written before Claude
Code 2.1.19). ``gemini``: ``{{args}}`` and ``!{...}``. ``codex``: ``$1..$9``, ``$ARGUMENTS``
(words joined by spaces), ``$KEY`` from ``KEY=value``, no shell blocks.
``command/syntax.py`` describes each one; docs/commands.md cites the sources."""

PromptFetcher = Callable[[str], Awaitable[str]]
"""``await fetch(raw_arguments) -> text``: an MCP prompt rendered by its server."""


@dataclass(frozen=True, slots=True)
class PromptArgumentSpec:
    """One declared argument of an MCP prompt (bound by name, in declared order)."""

    name: str
    description: str | None = None
    required: bool = False


@dataclass(frozen=True, kw_only=True)
class Command:
    """A slash command: data plus a template (a frozen dataclass: thousands are built per
    listing, and every builder is our own typed code, so nothing is validated again).

    ``template`` is the raw text, or for MCP prompts a fetcher called at expansion time
    with the raw argument text. ``origin`` names the file path, ``mcp:<server>`` or
    ``builtin`` so errors and collision warnings can point at it. ``hints`` lists the
    placeholders (``$1``, ``$2``, ``$10``, then ``$ARGUMENTS``) for completion UIs.
    """

    name: str
    description: str | None = None
    agent: str | None = None
    model: str | None = None
    """The file's model as written: ``provider/model``, or a bare model or family name
    (``sonnet``, ``claude-sonnet-4-0``, ``gpt-4o``) resolved to a configured provider when
    the command runs; None = the caller's choice."""
    source: CommandSource = "command"
    template: str | PromptFetcher = field(repr=False)
    subtask: bool | None = None
    hints: list[str] = field(default_factory=list)
    origin: str = "builtin"
    syntax: TemplateSyntax = "shellpilot"
    display_name: str | None = None
    """The name as its file wrote it when the slash name had to differ (a skill called
    ``Plugin Settings`` is ``/plugin-settings``)."""
    arguments: list[PromptArgumentSpec] = field(default_factory=list)
    """Declared arguments (MCP prompts only)."""
    named_arguments: list[str] = field(default_factory=list)
    """Claude's ``arguments:`` frontmatter: ``$name`` is the positional argument of that index."""
    argument_hint: str | None = None
    """Free-text usage hint (Claude's and Codex's ``argument-hint``)."""
    allowed_tools: list[str] = field(default_factory=list)
    """Claude's ``allowed-tools``: its ``Bash(...)`` entries allow those commands while the
    command's own turn runs, when ``trusted`` (see ``command/toolrules.py``)."""
    disallowed_tools: list[str] = field(default_factory=list)
    """Claude's ``disallowed-tools``: its ``Bash(...)`` entries deny those commands for the turn."""
    trusted: bool = True
    """False for a file of a project whose config is not trusted (its allow rules are ignored)."""
    directory: str | None = None
    """The command's own directory: the skill's folder, or the folder holding the file
    (``${CLAUDE_SKILL_DIR}``; files under it are attached without asking)."""
    plugin_root: str | None = None
    """``${CLAUDE_PLUGIN_ROOT}``: the plugin holding the file (the folder with
    ``.claude-plugin/``, else the parent of the ``commands``/``skills`` folder)."""
    aliases: list[str] = field(default_factory=list)
    """Extra names that reach this command when free (``dir/name`` for ``dir:name``, ``prompts:x``)."""

    @property
    def is_lazy(self) -> bool:
        """True when the template is fetched at expansion time (MCP prompts)."""
        return not isinstance(self.template, str)

    def raw_template(self) -> str | None:
        """The template text, or None when it is fetched lazily."""
        return self.template if isinstance(self.template, str) else None
